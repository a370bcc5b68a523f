// The live pipeline without a display (`phasor monitor`): a source runs through a LiveSession for a given
// length of signal; the same blocks feed a Welch average whose interpolated peaks are reported.
//
//   const r = await runMonitor({ source: { kind: 'mic' }, duration: 2, peaks: 5 });
//   // { blocks, dropped, reconnects, sampleRate, centerFrequency?, peaks: [{ frequency, level }], … }
//
// Peaks of an I/Q source with a centre (rtl_tcp, a complex generator) are absolute: the Welch feed carries
// the centre and findPeaks adds it.

import { findPeaks, welch } from '../dsp/index.js';
import { InvalidArgumentError, PhasorError, type WarningHandler } from '../errors.js';
import { defaultAnalysis, type Analysis } from '../protocol/messages.js';
import { WELCH_FFT_SIZE_MIN } from '../protocol/shape.js';
import { defaultPeaksFft, type SpectralPeak } from '../pipeline/peaks.js';
import type { SampleBlock, StreamFormat } from '../types.js';
import { Engine } from './engine.js';
import { sleep } from '../sources/live-source.js';
import { LiveSession } from './session.js';

export interface MonitorOptions {
  /** Source parameters ({ kind: 'mic', device }, { kind: 'generator', frequency }…). */
  source: unknown;
  /** Seconds of signal to take from the source (> 0). */
  duration: number;
  /** Frame length of the live analysis and of the Welch segments. Default: the live default (2048) for
   * the rows, and bins narrower than 1 Hz (within the duration) for the peaks. */
  fft?: number;
  /** How many peaks to report (0: none). */
  peaks?: number;
  /** Analysis overrides for the live session. */
  analysis?: Partial<Analysis>;
  engine?: Engine;
  signal?: AbortSignal;
  onWarning?: WarningHandler;
}

export interface MonitorResult {
  /** Source blocks processed. */
  blocks: number;
  /** Source blocks lost (overruns). */
  dropped: number;
  /** Reconnections of a networked source (rtl_tcp); 0 for the others. */
  reconnects: number;
  sampleRate: number;
  /** Centre frequency (Hz) of an I/Q source, when known: the last block's. */
  centerFrequency?: number;
  peaks?: SpectralPeak[];
  /** Spectrogram rows computed by the live session. */
  rows: number;
  /** Frames analysed. */
  frames: number;
  /** Welch segment length used for the peaks. */
  fft?: number;
  backend: string;
  source: string;
}

/** A one-consumer queue of blocks feeding an async iterable. */
class BlockQueue implements AsyncIterable<SampleBlock> {
  readonly #items: SampleBlock[] = [];
  #ended = false;
  #wake: (() => void) | null = null;

  push(b: SampleBlock): void {
    this.#items.push(b);
    this.#notify();
  }

  end(): void {
    this.#ended = true;
    this.#notify();
  }

  #notify(): void {
    const w = this.#wake;
    this.#wake = null;
    w?.();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<SampleBlock> {
    while (true) {
      const b = this.#items.shift();
      if (b) {
        yield b;
        continue;
      }
      if (this.#ended) return;
      await new Promise<void>((r) => (this.#wake = r));
    }
  }
}

export async function runMonitor(options: MonitorOptions): Promise<MonitorResult> {
  const { duration } = options;
  if (!(typeof duration === 'number' && Number.isFinite(duration) && duration > 0 && duration <= 86400)) {
    throw new InvalidArgumentError(`--duration must be a number of seconds in (0, 86400], got ${duration}`);
  }
  const count = options.peaks ?? 0;
  if (!Number.isInteger(count) || count < 0) {
    throw new InvalidArgumentError(`the peak count must be a whole number ≥ 0, got ${count}`);
  }
  const ownEngine = options.engine === undefined;
  const engine = options.engine ?? new Engine(options.onWarning ? { onWarning: options.onWarning } : {});
  let source;
  try {
    const backend = await engine.backend();
    source = await engine.kinds.open(
      options.source,
      options.onWarning ? { onWarning: options.onWarning } : {},
    );
    const format: StreamFormat = source.info;
    const rate = format.sampleRate;
    const target = Math.max(1, Math.round(duration * rate));
    const nperseg = count > 0 ? (options.fft ?? defaultPeaksFft(rate, target)) : undefined;
    if (nperseg !== undefined && (nperseg < WELCH_FFT_SIZE_MIN || nperseg > target)) {
      throw new InvalidArgumentError(
        `--fft ${nperseg} needs at least ${nperseg} frames (${(nperseg / rate).toFixed(3)} s) but --duration gives ${target}: use a longer duration or a smaller --fft (≥ ${WELCH_FFT_SIZE_MIN})`,
      );
    }
    const analysis: Analysis = {
      ...defaultAnalysis,
      ...(options.fft !== undefined ? { fft: options.fft } : {}),
      ...options.analysis,
    };
    const queue = new BlockQueue();
    const single: StreamFormat = {
      sampleRate: rate,
      complex: format.complex,
      channels: 1,
      ...(format.centerFrequency !== undefined ? { centerFrequency: format.centerFrequency } : {}),
    };
    const spectrum =
      nperseg !== undefined
        ? welch(backend, queue, {
            nperseg,
            window: 'hann',
            ...(options.signal ? { signal: options.signal } : {}),
          })
        : null;
    // Let a failing Welch surface when awaited below, not as an unhandled rejection.
    spectrum?.catch(() => undefined);
    let fed = 0;
    let centre = format.complex ? format.centerFrequency : undefined;
    let enough!: () => void;
    const reached = new Promise<void>((r) => (enough = r));
    let failure: string | null = null;
    let ended = false;
    const session = new LiveSession({
      id: engine.sessionId(),
      backend,
      source,
      analysis,
      peaks: false, // the Welch average below finds them, over the whole duration
      sink: {
        rows: (m) => session.ack(m.seq), // no display: consumed at once
        event: (e) => {
          if (e.event === 'source' && e.data.state === 'error')
            failure = e.data.message ?? 'the source failed';
          if (e.event === 'source' && e.data.state !== 'running') {
            ended = true;
            enough();
          }
        },
      },
      onBlock: (samples, block) => {
        if (fed >= target) return;
        if (format.complex && block.format.centerFrequency !== undefined)
          centre = block.format.centerFrequency;
        const w = format.complex ? 2 : 1;
        const frames = Math.min(block.frames, target - fed);
        // The session may reuse `samples` (a multi-channel source): keep a copy.
        const data = samples.slice(0, frames * w);
        fed += frames;
        queue.push({ format: single, start: fed - frames, frames, data });
        if (fed >= target) enough();
      },
    });
    const onAbort = (): void => enough();
    options.signal?.addEventListener('abort', onAbort);
    const stop = new AbortController();
    session.start();
    // A live source that delivers nothing must not hang the command.
    const guard = sleep(duration * 1500 + 15000, stop.signal).then(() => {
      if (fed < target && !ended)
        failure ??= `the source delivered ${(fed / rate).toFixed(2)} s of signal in ${(duration * 1.5 + 15).toFixed(0)} s`;
      enough();
    });
    await reached;
    const reconnects = source.link?.().reconnects ?? 0;
    stop.abort();
    await guard;
    options.signal?.removeEventListener('abort', onAbort);
    await session.stop();
    queue.end();
    if (options.signal?.aborted) throw new PhasorError('cancelled', 'cancelled');
    if (failure !== null) throw new PhasorError('io', failure);
    const stats = session.stats();
    const result: MonitorResult = {
      blocks: stats.blocks,
      dropped: stats.droppedBlocks,
      reconnects,
      sampleRate: rate,
      rows: stats.rows,
      frames: fed,
      backend: backend.name,
      source: source.label,
    };
    if (centre !== undefined) result.centerFrequency = centre;
    if (spectrum && nperseg !== undefined) {
      if (fed < nperseg) {
        throw new PhasorError('io', `the source ended after ${fed} frames, fewer than --fft ${nperseg}`);
      }
      const s = await spectrum;
      result.fft = nperseg;
      result.peaks = findPeaks(s, { count }).map((p) => ({ frequency: p.frequency, level: p.level }));
    }
    return result;
  } finally {
    await source?.close().catch(() => undefined);
    if (ownEngine) await engine.dispose();
  }
}
