// Band measurements of a file's frame range (dsp/measure.ts): the range's blocks stream through a Welch
// spectrum on the backend, so a selection of any length takes constant memory.

import type { Backend } from '../backends/backend.js';
import { formatWindow, measureBlocks, parseWindow, type BandMeasurement } from '../dsp/index.js';
import { InvalidArgumentError, PhasorError } from '../errors.js';
import { resolveRange } from '../io/range.js';
import { DEFAULT_WINDOW } from '../protocol/shape.js';
import type { SampleSource } from '../sources/source.js';
import { checkChannel } from './channels.js';
import { fileReads } from './stages.js';

export interface MeasureSourceOptions {
  /** First frame (default 0) and one past the last (default the end). */
  start?: number;
  end?: number;
  /** Band edges (Hz, absolute for I/Q with a known centre); default the whole spectrum. */
  fLow?: number;
  fHigh?: number;
  channel?: number;
  window?: string;
  fft?: number;
  signal?: AbortSignal;
  onProgress?: (framesDone: number, framesTotal: number) => void;
}

export interface SourceMeasurement extends BandMeasurement {
  /** The canonical window text ('hann', 'kaiser:8.6'). */
  window: string;
  start: number;
  end: number;
}

export async function measureSource(
  backend: Backend,
  source: SampleSource,
  options: MeasureSourceOptions = {},
): Promise<SourceMeasurement> {
  const { info } = source;
  try {
    const channel = options.channel ?? 0;
    checkChannel(channel, info, info.path);
    const window = formatWindow(parseWindow(options.window ?? DEFAULT_WINDOW));
    const { start, end } = resolveRange({ start: options.start, end: options.end }, info.samples);
    const frames = end - start;
    const blocks = (async function* () {
      // welch() may keep views of a block's samples: fresh buffers, no reuse.
      for await (const b of source.blocks({
        ...fileReads(info, undefined, false),
        start,
        end,
        raw: true,
        ...(options.signal ? { signal: options.signal } : {}),
      })) {
        yield b;
      }
    })();
    const m = await measureBlocks(backend, blocks, info, frames, {
      window,
      channel,
      ...(options.fft !== undefined ? { fft: options.fft } : {}),
      ...(options.fLow !== undefined ? { fLow: options.fLow } : {}),
      ...(options.fHigh !== undefined ? { fHigh: options.fHigh } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.onProgress ? { onProgress: (done: number) => options.onProgress?.(done, frames) } : {}),
    });
    return { ...m, window, start, end };
  } catch (err) {
    // a bad band or selection is about this file: say which
    if (err instanceof InvalidArgumentError && info.path !== undefined) {
      throw new PhasorError('invalid-argument', err.message, { file: info.path, cause: err });
    }
    throw err;
  }
}
