// Streaming normalized cross-correlation of a long signal against a template that fits in memory.

import type { Backend, CorrelationPeak, HostBlocks } from '../backends/backend.js';
import { InvalidArgumentError, throwIfAborted } from '../errors.js';
import { resolveRange } from '../io/range.js';
import type { SampleSource } from '../sources/source.js';
import { toFloat32 } from '../types.js';
import { channelOf, checkChannel } from './channels.js';
import { FILE_BLOCK_BYTES, fileBlockFrames, fileReadBlocks, fileReads } from './stages.js';
import { PeakTracker } from './peak-tracker.js';

/** Templates are read whole; this bounds them (2^26 frames = 512 MiB of complex float32). */
export const MAX_TEMPLATE_FRAMES = 1 << 26;

export interface CorrelateOptions {
  /** Distinct peaks to report, best first. Default 5. */
  top?: number;
  /** Lags closer than this are one peak. Default half the template length. */
  radius?: number;
  /** Channel of each file to use. Default 0. */
  channel?: number;
  /** Also return every score (memory grows with the signal: for plots of short signals). */
  scores?: boolean;
  blockFrames?: number;
  signal?: AbortSignal;
  onProgress?: (framesDone: number, framesTotal: number | undefined) => void;
  /** Frames [start, end) of the template source to use (e.g. a selection); default all of it. */
  templateRange?: { start?: number; end?: number };
  /** Receives every score as the correlator completes it (lag startLag + i), without keeping them: for an
   * envelope of a long signal. The array is only valid during the call. */
  onScores?: (startLag: number, scores: Float32Array) => void;
}

export interface CorrelationMatch extends CorrelationPeak {
  /** Seconds from the signal's start. */
  time: number;
}

export interface CorrelateResult {
  peaks: CorrelationMatch[];
  /** Lags evaluated: signal length − template length + 1. */
  lags: number;
  templateLength: number;
  sampleRate: number;
  scores?: Float32Array;
}

/** Reads one channel of a source whole (or frames [start, end) of it), as float32 (for templates). */
export async function readChannel(
  source: SampleSource,
  channel: number,
  limitFrames: number,
  signal?: AbortSignal,
  range?: { start?: number; end?: number },
): Promise<Float32Array> {
  const { info } = source;
  checkChannel(channel, info, info.path);
  const w = info.complex ? 2 : 1;
  const r = range ? resolveRange({ start: range.start, end: range.end }, info.samples) : undefined;
  const frames = r ? r.end - r.start : info.samples;
  if (frames !== undefined && frames > limitFrames) {
    throw new InvalidArgumentError(
      `${info.path ?? 'template'} is too long for a template: ${frames} frames (at most ${limitFrames})`,
    );
  }
  const parts: Float32Array[] = [];
  let total = 0;
  for await (const block of source.blocks({ signal, ...(r ? { start: r.start, end: r.end } : {}) })) {
    const data = toFloat32(channelOf(block.data, info, channel));
    parts.push(data === block.data ? data.slice() : data);
    total += data.length;
    if (total / w > limitFrames) {
      throw new InvalidArgumentError(
        `${info.path ?? 'template'} is too long for a template (at most ${limitFrames} frames)`,
      );
    }
  }
  const out = new Float32Array(total);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

export async function correlateSources(
  backend: Backend,
  signalSource: SampleSource,
  templateSource: SampleSource,
  options: CorrelateOptions = {},
): Promise<CorrelateResult> {
  const s = signalSource.info;
  const t = templateSource.info;
  const channel = options.channel ?? 0;
  const top = options.top ?? 5;
  if (!Number.isInteger(top) || top < 1)
    throw new InvalidArgumentError(`--top must be a whole number ≥ 1, got ${top}`);
  checkChannel(channel, s, s.path);
  if (s.complex !== t.complex) {
    throw new InvalidArgumentError(
      `the signal is ${s.complex ? 'complex (I/Q)' : 'real'} but the template is ${t.complex ? 'complex (I/Q)' : 'real'}; both must be the same kind`,
    );
  }
  if (Math.abs(s.sampleRate - t.sampleRate) > 1e-9 * s.sampleRate) {
    throw new InvalidArgumentError(
      `sample rates differ: signal ${s.sampleRate} Hz, template ${t.sampleRate} Hz; resample one of them first`,
    );
  }
  const template = await readChannel(
    templateSource,
    Math.min(channel, t.channels - 1),
    MAX_TEMPLATE_FRAMES,
    options.signal,
    options.templateRange,
  );
  const w = s.complex ? 2 : 1;
  const m = template.length / w;
  if (m === 0) {
    throw new InvalidArgumentError(
      options.templateRange
        ? `the template range ${options.templateRange.start ?? 0} … ${options.templateRange.end ?? t.samples} of ${t.path ?? 'the template'} holds no samples`
        : `${t.path ?? 'the template'} holds no samples`,
    );
  }
  if (s.samples !== undefined && s.samples < m) {
    throw new InvalidArgumentError(
      `the signal (${s.samples} frames) is shorter than the template (${m} frames): no lag to evaluate`,
    );
  }
  const radius = options.radius ?? Math.max(1, Math.floor(m / 2));
  const tracker = new PeakTracker(top, radius);
  let reads: HostBlocks | undefined;
  const correlator = backend.createCorrelator({
    template,
    complex: s.complex,
    peaks: top,
    peakRadius: radius,
    scores: (options.scores ?? false) || options.onScores !== undefined,
  });
  // blocks of the usual size, or larger where the correlator's pushes have a large fixed cost (WebGPU)
  const blockFrames =
    options.blockFrames ?? fileBlockFrames(s, Math.max(FILE_BLOCK_BYTES, correlator.pushBytes ?? 0));
  const scoreParts: Float32Array[] = [];
  let lags = 0;
  let done = 0;
  try {
    // the reader's ring, in memory the backend moves fastest (page-locked on CUDA)
    reads = await fileReadBlocks(backend, s, blockFrames);
    const take = (chunk: Awaited<ReturnType<typeof correlator.process>>) => {
      tracker.add(chunk.peaks);
      if (chunk.scores && chunk.count > 0) options.onScores?.(chunk.startLag, chunk.scores);
      if (chunk.scores && options.scores) scoreParts.push(chunk.scores);
      lags = chunk.startLag + chunk.count;
    };
    for await (const block of signalSource.blocks({
      ...fileReads(s, blockFrames, true, reads),
      raw: s.channels === 1,
      signal: options.signal,
    })) {
      take(await correlator.process(channelOf(block.data, s, channel)));
      done += block.frames;
      options.onProgress?.(done, s.samples);
    }
    throwIfAborted(options.signal);
    take(await correlator.flush());
  } finally {
    correlator.dispose();
    await reads?.release();
  }
  if (done < m) {
    throw new InvalidArgumentError(
      `the signal (${done} frames) is shorter than the template (${m} frames): no lag to evaluate`,
    );
  }
  const result: CorrelateResult = {
    peaks: tracker.result().map((p) => ({ lag: p.lag, time: p.lag / s.sampleRate, score: p.score })),
    lags,
    templateLength: m,
    sampleRate: s.sampleRate,
  };
  if (options.scores) {
    const all = new Float32Array(scoreParts.reduce((a, p) => a + p.length, 0));
    let o = 0;
    for (const p of scoreParts) {
      all.set(p, o);
      o += p.length;
    }
    result.scores = all;
  }
  return result;
}
