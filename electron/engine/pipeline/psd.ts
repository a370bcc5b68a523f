// SciPy-exact PSD (scipy.signal.welch) and linear spectrogram (scipy.signal.spectrogram, mode 'psd') of
// one channel of a file: dsp/psd.ts on the file's blocks, with SciPy's choice of nperseg for short signals.

import type { Backend } from '../backends/backend.js';
import {
  checkSegments,
  MEDIAN_BYTES_MAX,
  psd,
  PSD_DEFAULT_NPERSEG,
  spectrogramPsd,
  type PsdOptions,
  type PsdResult,
  type SpectrogramPsdOptions,
  type SpectrogramPsdStream,
} from '../dsp/index.js';
import { InvalidArgumentError } from '../errors.js';
import type { SampleSource } from '../sources/source.js';
import { frameCount, spectrumBins } from '../protocol/shape.js';
import type { SampleBlock } from '../types.js';
import { checkChannel } from './channels.js';
import { fileReads } from './stages.js';

export interface FilePsdOptions extends Omit<PsdOptions, 'nperseg' | 'onProgress'> {
  /** Default PSD_DEFAULT_NPERSEG; like SciPy, the signal's length when it is shorter. */
  nperseg?: number;
  onProgress?: (framesDone: number, framesTotal: number | undefined) => void;
}

function fileBlocks(
  source: SampleSource,
  signal: AbortSignal | undefined,
  onProgress: ((done: number, total: number | undefined) => void) | undefined,
): AsyncIterable<SampleBlock> {
  const { info } = source;
  return (async function* () {
    let done = 0;
    for await (const b of source.blocks({ ...fileReads(info, undefined, false), signal, raw: true })) {
      done += b.frames;
      onProgress?.(done, info.samples);
      yield b;
    }
  })();
}

/** scipy.signal.welch of one channel of a file (default channel 0). */
export async function analyzePsd(
  backend: Backend,
  source: SampleSource,
  options: FilePsdOptions = {},
): Promise<PsdResult> {
  const { info } = source;
  const channel = options.channel ?? 0;
  checkChannel(channel, info, info.path);
  let nperseg = options.nperseg ?? PSD_DEFAULT_NPERSEG;
  // SciPy: a signal shorter than nperseg makes nperseg its length (and noverlap's default follows)
  if (info.samples !== undefined && info.samples < nperseg && info.samples > 0) nperseg = info.samples;
  const { noverlap } = checkSegments(nperseg, options.noverlap);
  const medianMax = options.medianBytesMax ?? MEDIAN_BYTES_MAX;
  const segments =
    info.samples !== undefined ? frameCount(info.samples, nperseg, nperseg - noverlap) : undefined;
  if (options.average === 'median' && segments !== undefined) {
    const bytes = segments * spectrumBins(nperseg, info.complex) * 8;
    if (bytes > medianMax) {
      throw new InvalidArgumentError(
        `average median keeps every segment's spectrum: ${segments} segments of nperseg ${nperseg} need ${Math.ceil(bytes / 2 ** 20)} MiB, over the ${medianMax / 2 ** 20} MiB limit; use average mean, a larger nperseg or a smaller noverlap`,
      );
    }
  }
  const { onProgress: _, ...rest } = options;
  return psd(backend, fileBlocks(source, options.signal, options.onProgress), {
    ...rest,
    nperseg,
    noverlap,
    channel,
    ...(segments !== undefined ? { expectedSegments: segments } : {}),
  });
}

export interface FileSpectrogramPsdOptions extends Omit<SpectrogramPsdOptions, 'onProgress'> {
  onProgress?: (framesDone: number, framesTotal: number | undefined) => void;
}

/** scipy.signal.spectrogram (detrend=False, mode 'psd') of one channel of a file, rows as they complete. */
export async function spectrogramPsdFile(
  backend: Backend,
  source: SampleSource,
  options: FileSpectrogramPsdOptions,
  onRows: (rows: Float32Array, count: number) => void | Promise<void>,
): Promise<SpectrogramPsdStream> {
  const { info } = source;
  const channel = options.channel ?? 0;
  checkChannel(channel, info, info.path);
  const { onProgress: _, ...rest } = options;
  return spectrogramPsd(
    backend,
    fileBlocks(source, options.signal, options.onProgress),
    { ...rest, channel },
    onRows,
  );
}
