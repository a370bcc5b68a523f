// The streaming bookkeeping of processors, written once for every backend and the failover: which frames
// a spectrogram push completes, which FIR output frames and correlation lags are ready, which input each
// must keep, the level normalisation, and the host-side tail the failover keeps to rebuild a processor.
//
// A backend's processor is an adapter: it asks a cursor what a push completes, runs its kernels on that,
// and keeps the input the cursor says (on the host or on the device). Cursors count samples (spectrogram,
// correlator) or frames (FIR), not interleaved values, and do arithmetic once per push, never per sample.
// Because every backend takes the same decisions here, results are the same whatever the block sizes.

import { InvalidArgumentError } from '../errors.js';
import { isRawSamples, toFloat32 } from '../types.js';
import { spectrumBins } from '../protocol/shape.js';
import type {
  CorrelationPeak,
  CorrelatorConfig,
  DeviceArray,
  FirConfig,
  HostBlocks,
  ProcessorInput,
  SpectrogramConfig,
} from './backend.js';

/** `count` plain ArrayBuffers of `bytes` as HostBlocks: what a backend without host memory of its own
 * (Backend.hostBlocks) moves as fast as any other. */
export function plainHostBlocks(count: number, bytes: number): HostBlocks {
  return {
    buffers: Array.from({ length: count }, () => new ArrayBuffer(bytes)),
    release: () => Promise.resolve(),
  };
}

/** A processor's output of `length` values: a view of `into` when it is large enough (the caller's reused
 * buffer, page-locked on CUDA), else a new array. */
export function outputArray(length: number, into: Float32Array | undefined): Float32Array {
  return into !== undefined && into.length >= length ? into.subarray(0, length) : new Float32Array(length);
}

/** Values (not samples) in a processor input: a Float32Array, a DeviceArray or raw integer samples. */
export function inputLength(input: ProcessorInput): number {
  if (input instanceof Float32Array) return input.length;
  if (isRawSamples(input)) return input.data.length;
  return (input as DeviceArray).length;
}

/** Samples in `values` values of one channel; throws unless complex input holds whole I/Q pairs. */
export function channelSamples(what: string, values: number, complex: boolean): number {
  if (!complex) return values;
  if (values % 2 !== 0) {
    throw new InvalidArgumentError(
      `${what}: complex input must hold interleaved I/Q pairs (an even number of values, got ${values})`,
    );
  }
  return values / 2;
}

/** Frames in `values` values of `lanes` interleaved real streams; throws unless they are whole frames. */
export function firFrames(values: number, lanes: number): number {
  if (values % lanes !== 0) {
    throw new InvalidArgumentError(
      `fir: input length ${values} is not a whole number of frames of ${lanes} values`,
    );
  }
  return values / lanes;
}

/** A spectrogram's settings with their defaults: bins per frame, values per row, lowest level (dB). */
export function spectrogramSettings(config: SpectrogramConfig): {
  bins: number;
  width: number;
  floorDb: number;
  peakHold: boolean;
} {
  const bins = spectrumBins(config.fft, config.complex);
  return {
    bins,
    width: config.columns ?? bins,
    floorDb: config.floorDb ?? -300,
    peakHold: config.peakHold === true,
  };
}

/** Interleaved real streams a FIR filter runs: each channel, and I and Q of a complex one. */
export function firLanes(config: FirConfig): number {
  return config.channels * (config.complex ? 2 : 1);
}

/** The FIR method once 'auto' is resolved by the backend's switch point (direct up to that many taps). */
export function firMethod(config: FirConfig, directMaxTaps: number): 'direct' | 'overlap-save' {
  const method = config.method ?? 'auto';
  if (method !== 'auto') return method;
  return config.taps.length <= directMaxTaps ? 'direct' : 'overlap-save';
}

/** A correlator's settings with their defaults: template length (samples), scores wanted, peaks, radius. */
export function correlatorSettings(config: CorrelatorConfig): {
  templateLength: number;
  scores: boolean;
  peaks: number;
  peakRadius: number;
} {
  const templateLength = config.template.length / (config.complex ? 2 : 1);
  return {
    templateLength,
    scores: config.scores === true,
    peaks: config.peaks ?? 0,
    peakRadius: config.peakRadius ?? Math.floor(templateLength / 2),
  };
}

/**
 * Level normalisation of a spectrogram (AES17 dBFS): the power of bin k is |X[k]|²·normEdge for complex
 * input and for a real input's DC and Nyquist bins, |X[k]|²·norm for the other real bins (the one-sided
 * amplitude doubled, ×4 in power), with normEdge = 1/(Σw)²: a full-scale real sine or a unit complex
 * exponential on a bin reads 0 dB whatever the window.
 */
export function levelNorm(window: ArrayLike<number>, complex: boolean): { norm: number; normEdge: number } {
  let sum = 0;
  for (let i = 0; i < window.length; i++) sum += window[i];
  const normEdge = 1 / (sum * sum);
  return { norm: complex ? normEdge : 4 * normEdge, normEdge };
}

/**
 * Spectrogram frames: frame i starts at sample i·hop since creation or reset. A push reports, in the
 * fields below, what to do with the kept samples followed by the pushed ones: drop `skip` pushed samples
 * that no frame uses (hop > fft), compute `count` frames starting at the front, then drop `drop` samples
 * from the front; what remains is kept for the next push.
 */
export class FrameCursor {
  /** Samples at the front of the last push that belong to no frame (not kept). */
  skip = 0;
  /** Frames the last push completed (also push()'s result). */
  count = 0;
  /** Index of the first of them. */
  first = 0;
  /** Samples to drop from the front (kept ++ pushed after skip) once those frames are computed. */
  drop = 0;
  private bufStart = 0; // absolute sample of the first kept sample
  private buffered = 0; // samples kept
  private nextFrame = 0;

  constructor(
    readonly fft: number,
    readonly hop: number,
  ) {}

  /** Samples kept for the next push. */
  get kept(): number {
    return this.buffered;
  }

  /** The first frame not yet complete. */
  get next(): number {
    return this.nextFrame;
  }

  /** Absolute sample where the input still needed begins (the start of the next frame). */
  get keepFrom(): number {
    return this.nextFrame * this.hop;
  }

  /** Records `samples` pushed; returns the frames they complete and sets skip, count, first and drop. */
  push(samples: number): number {
    const { fft, hop } = this;
    const firstNeeded = this.nextFrame * hop;
    const end = this.bufStart + this.buffered + samples;
    let skip = 0;
    if (this.buffered === 0 && this.bufStart < firstNeeded) {
      skip = Math.min(samples, firstNeeded - this.bufStart);
      this.bufStart += skip;
    }
    const total = this.buffered + samples - skip;
    let count = 0;
    if (end >= firstNeeded + fft) count = Math.floor((end - fft) / hop) - this.nextFrame + 1;
    this.first = this.nextFrame;
    this.nextFrame += count;
    // The kept samples always start at the next frame (or are none): frames start at the front.
    const drop = Math.min(total, Math.max(0, this.nextFrame * hop - this.bufStart));
    this.bufStart += drop;
    this.buffered = total - drop;
    this.skip = skip;
    this.count = count;
    this.drop = drop;
    return count;
  }

  reset(): void {
    this.bufStart = this.buffered = this.nextFrame = 0;
    this.skip = this.count = this.first = this.drop = 0;
  }
}

/**
 * FIR output frames, lfilter semantics per lane. Direct form (segment 0) computes every frame pushed;
 * overlap-save computes whole segments of `segment` output frames aligned to absolute frames, the last
 * partial one at flush. The input to keep starts numtaps − 1 frames before the next output frame (before
 * frame 0 that history is the zero initial state).
 */
export class FirCursor {
  private pushed = 0;
  private produced = 0;

  constructor(
    readonly numtaps: number,
    /** Output frames per overlap-save segment; 0 for direct form. */
    readonly segment: number,
  ) {}

  /** Frames pushed but not yet produced. */
  get pending(): number {
    return this.pushed - this.produced;
  }

  /** Frames produced since creation or reset (the next output frame). */
  get next(): number {
    return this.produced;
  }

  /** First input frame the next output frame needs (negative: the zero initial state). */
  get keepFrom(): number {
    return this.produced - (this.numtaps - 1);
  }

  /** Records `frames` pushed; returns the output frames ready now (to compute, then produce()). */
  push(frames: number): number {
    this.pushed += frames;
    const waiting = this.pushed - this.produced;
    return this.segment === 0 ? waiting : Math.floor(waiting / this.segment) * this.segment;
  }

  /** Output frames still to compute when the stream ends here (a partial last segment included). */
  flush(): number {
    return this.pushed - this.produced;
  }

  /** Records `frames` output frames computed (returned). */
  produce(frames: number): void {
    this.produced += frames;
  }

  reset(): void {
    this.pushed = this.produced = 0;
  }
}

/**
 * Correlation lags (scipy.signal.correlate mode 'valid'): lag l is complete once samples [l, l + M) have
 * arrived. Direct correlation (segment 0) returns every complete lag; overlap-save whole segments of
 * `segment` lags aligned to absolute lags, the rest at flush. The input to keep starts at the next lag.
 */
export class LagCursor {
  private pushed = 0;
  private nextLag = 0;

  constructor(
    readonly templateLength: number,
    /** Lags per overlap-save segment; 0 for direct correlation. */
    readonly segment: number,
  ) {}

  /** The first lag not yet returned. */
  get next(): number {
    return this.nextLag;
  }

  /** First sample the next lag needs. */
  get keepFrom(): number {
    return this.nextLag;
  }

  /** Records `samples` pushed; returns the lags ready now (to compute, then take()). */
  push(samples: number): number {
    this.pushed += samples;
    const complete = this.flush();
    return this.segment === 0 ? complete : Math.floor(complete / this.segment) * this.segment;
  }

  /** Complete lags not yet returned: what to compute when the signal ends here. */
  flush(): number {
    return Math.max(0, this.pushed - this.templateLength + 1 - this.nextLag);
  }

  /** Records `lags` lags computed (returned); returns the first of them. */
  take(lags: number): number {
    const start = this.nextLag;
    this.nextLag += lags;
    return start;
  }

  reset(): void {
    this.pushed = this.nextLag = 0;
  }
}

/** An append-at-the-end, drop-from-the-front float32 buffer (amortized O(1) per value). */
export class GrowableF32 {
  private data = new Float32Array(1024);
  private start = 0;
  private end = 0;

  get length(): number {
    return this.end - this.start;
  }

  /** Appends src[from…]. */
  append(src: Float32Array, from: number): void {
    const count = src.length - from;
    if (count <= 0) return;
    if (this.end + count > this.data.length) {
      const len = this.length;
      if (len + count > this.data.length / 2) {
        const next = new Float32Array(Math.max(2 * (len + count), 1024));
        next.set(this.data.subarray(this.start, this.end));
        this.data = next;
      } else this.data.copyWithin(0, this.start, this.end);
      this.start = 0;
      this.end = len;
    }
    this.data.set(from === 0 ? src : src.subarray(from), this.end);
    this.end += count;
  }

  /** Appends `count` zeros. */
  appendZeros(count: number): void {
    this.append(new Float32Array(count), 0);
  }

  /** A view of values [from, from + length) (valid until the next append or drop). */
  view(from: number, length: number): Float32Array {
    return this.data.subarray(this.start + from, this.start + from + length);
  }

  drop(count: number): void {
    this.start += Math.min(count, this.length);
    if (this.start === this.end) this.start = this.end = 0;
  }

  clear(): void {
    this.start = this.end = 0;
  }
}

/**
 * The recent input of a stream kept on the host as float32 values, values [start, end) of the stream: what
 * the failover replays to rebuild a processor on the next backend. Device-resident input cannot be kept
 * (hostOnly turns false, and failover then gives up).
 */
export class HostTail {
  private readonly buf = new GrowableF32();
  /** Stream position (values) of the first kept value. */
  start = 0;
  hostOnly = true;

  get end(): number {
    return this.start + this.buf.length;
  }

  /** Appends the next input and forgets every value before stream position keepFrom. */
  append(input: ProcessorInput, keepFrom: number): void {
    const n = inputLength(input);
    const oldEnd = this.end;
    const newEnd = oldEnd + n;
    if (!(input instanceof Float32Array) && !isRawSamples(input)) {
      this.hostOnly = false; // device-resident: nothing to keep
      this.buf.clear();
      this.start = newEnd;
      return;
    }
    const from = Math.min(Math.max(keepFrom, this.start), newEnd);
    if (from >= oldEnd) this.buf.clear();
    else this.buf.drop(from - this.start);
    const skip = Math.max(0, from - oldEnd); // values of the input not kept
    if (skip < n) {
      if (input instanceof Float32Array) this.buf.append(input, skip);
      else this.buf.append(toFloat32({ ...input, data: input.data.subarray(skip) }), 0);
    }
    this.start = from;
  }

  clear(): void {
    this.buf.clear();
    this.start = 0;
  }

  /** Values [from, end) as a fresh array. */
  slice(from: number): Float32Array {
    const at = Math.max(0, from - this.start);
    return this.buf.view(at, Math.max(0, this.buf.length - at)).slice();
  }
}

/** Local maxima findPeaks keeps while it scans (the strongest; at least 64 a peak asked for). */
const PEAK_SHORTLIST = 1024;

/**
 * A correlator's candidate peaks among one chunk's scores (every backend that picks them on the host).
 * Up to `count` peaks, strongest first: local maxima of the scores (greater than the left neighbour, not
 * less than the right one, so a plateau counts once) taken greedily, each suppressing the candidates within
 * ±radius lags (takePeaks). The scan keeps only the `shortlist` strongest maxima: the greedy selection over
 * them is the selection over all whenever it finds its `count` peaks among them (every maximum left out
 * ranks below every one kept), so only a chunk whose strongest maxima suppress one another scans again for
 * all of them. A chunk of 2^19 lags took 10 ms with every maximum in a heap.
 */
export function findPeaks(
  scores: Float32Array,
  startLag: number,
  count: number,
  radius: number,
  shortlist = Math.max(PEAK_SHORTLIST, 64 * count),
): CorrelationPeak[] {
  const n = scores.length;
  const m = Math.max(1, Math.floor(shortlist));
  // a min-heap of the strongest maxima so far, the weakest on top (a later maximum of equal score has the
  // larger lag, so it ranks below and does not enter a full list)
  const hl = new Uint32Array(Math.min(m, n));
  const hs = new Float32Array(Math.min(m, n));
  const weaker = (a: number, b: number) => hs[a] < hs[b] || (hs[a] === hs[b] && hl[a] > hl[b]);
  const swap = (a: number, b: number) => {
    const l = hl[a];
    hl[a] = hl[b];
    hl[b] = l;
    const v = hs[a];
    hs[a] = hs[b];
    hs[b] = v;
  };
  let size = 0;
  // once the list is full, only a maximum above its weakest enters: most samples fail the first test, a
  // branch the CPU predicts (testing every sample for a maximum first took 4 of 2^19 samples' 7 ms)
  let floor = 0;
  for (let i = 0; i < n; i++) {
    const s = scores[i];
    if (!(s > floor)) continue;
    if (i > 0 && !(s > scores[i - 1])) continue;
    if (i + 1 < n && s < scores[i + 1]) continue;
    if (size < m) {
      let c = size++;
      hl[c] = i;
      hs[c] = s;
      while (c > 0 && weaker(c, (c - 1) >> 1)) {
        swap(c, (c - 1) >> 1);
        c = (c - 1) >> 1;
      }
      if (size === m) floor = hs[0];
    } else {
      hl[0] = i;
      hs[0] = s;
      for (let c = 0; ;) {
        const l = 2 * c + 1;
        if (l >= size) break;
        const w = l + 1 < size && weaker(l + 1, l) ? l + 1 : l;
        if (!weaker(w, c)) break;
        swap(w, c);
        c = w;
      }
      floor = hs[0];
    }
  }
  const peaks = takePeaks(hl.subarray(0, size), hs.subarray(0, size), startLag, count, radius);
  // a list that never filled holds every maximum
  if (peaks.length >= count || size < m) return peaks;
  // the shortlist ran out before `count` peaks: the same over every maximum
  return findPeaks(scores, startLag, count, radius, Infinity);
}

/**
 * Greedy peak selection over candidates, candidate k at lag[k] (relative to `startLag`) with score[k], in any
 * order: up to `count`, strongest first, ties to the smaller lag, each taken peak suppressing the candidates
 * within ±radius lags. A max-heap keeps this O(C + popped·log C) however many candidates there are.
 */
export function takePeaks(
  lag: Uint32Array,
  score: Float32Array,
  startLag: number,
  count: number,
  radius: number,
): CorrelationPeak[] {
  const nc = lag.length;
  const heap = new Uint32Array(nc);
  for (let k = 0; k < nc; k++) heap[k] = k;
  const less = (a: number, b: number) => score[a] < score[b] || (score[a] === score[b] && lag[a] > lag[b]);
  const down = (i: number, size: number) => {
    for (;;) {
      const l = 2 * i + 1;
      if (l >= size) return;
      let m = l;
      if (l + 1 < size && less(heap[l], heap[l + 1])) m = l + 1;
      if (!less(heap[i], heap[m])) return;
      const t = heap[i];
      heap[i] = heap[m];
      heap[m] = t;
      i = m;
    }
  };
  for (let i = (nc >> 1) - 1; i >= 0; i--) down(i, nc);
  const peaks: CorrelationPeak[] = [];
  let size = nc;
  while (size > 0 && peaks.length < count) {
    const top = heap[0];
    heap[0] = heap[--size];
    down(0, size);
    const l = lag[top];
    let ok = true;
    for (const p of peaks) {
      if (Math.abs(p.lag - startLag - l) <= radius) {
        ok = false;
        break;
      }
    }
    if (ok) peaks.push({ lag: startLag + l, score: score[top] });
  }
  return peaks;
}
