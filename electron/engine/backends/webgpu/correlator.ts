// Streaming normalized cross-correlation of the WebGPU backend: the lag cursor of ../stream.ts on the
// JavaScript thread decides which lags a block completes; the kept samples and the template (or its
// spectrum) stay on the device. Short templates are correlated directly; longer ones by overlap-save in
// segments aligned to absolute lags (shaders/correlate.wgsl: gather with chunk energies → FFT (the
// half-length one for real input) → product with conj(T) (fused with the real transform's post- and
// pre-processing) → inverse → scores), so scores do not depend on the block sizes. The candidate peaks are
// reduced on the device (a histogram of the local maxima's scores, a threshold that fits a list, the list);
// only that list comes back, and the host selects from it by the CPU backend's rule.
// Segments up to twice the one-pass FFT run in one pass instead: the FIR's fused kernel (fir.ts
// encodeConvolve, shaders/fft_pow2.wgsl `convolve` with its score store; the conjugated template reversed
// as the filter) reads each segment from the window, correlates it, and writes its lags' scores with the
// window energies summed from the same segment in workgroup memory, so neither the segments, their
// correlation nor chunk energies pass through global memory. Real input: two segments a row, so lags are
// released two segments at a time; complex input: one segment a row.

import { validateCorrelatorConfig } from '../validate.js';
import { getFftPlan } from '../../fft/index.js';
import type {
  CorrelationChunk,
  CorrelationPeak,
  Correlator,
  CorrelatorConfig,
  ProcessorInput,
} from '../backend.js';
import { LagCursor, channelSamples, correlatorSettings, findPeaks, takePeaks } from '../stream.js';
import type { ComplexPlan, FftJob } from './fft.js';
import { convolveTable, encodeConvolve, fusedLength, webGpuOverlapSaveSize } from './fir.js';
import { unitCircle, uploadTable } from './gpu.js';
import { WEBGPU_CORRELATOR_PUSH_BYTES } from './limits.js';
import {
  DeviceWindow,
  PROCESSOR_CHUNK_BYTES,
  WebGpuProcessor,
  type DeviceInput,
  type Recorder,
  type WebGpuDevice,
} from './processor.js';

/** Templates up to this length are correlated directly (as the CPU backend does): an FFT's rounding,
 * relative to a whole segment, would swamp the score of a lag whose short window is faint. */
export const WEBGPU_CORR_DIRECT_MAX_LENGTH = 16;

/** Histogram bins of the candidates' scores, words of the list's header, lags a candHist invocation
 * reads (BINS, HEAD, HIST_PER of shaders/correlate.wgsl). */
const CANDIDATE_BINS = 2048;
const CANDIDATE_HEAD = 4;
const HIST_PER = 16;
/** Candidates the list holds at least (more when many peaks are asked for: 64 a peak). */
export const WEBGPU_CORR_CANDIDATES = 4096;

/** The list's capacity for `want` peaks among `lags` lags (never more than there can be local maxima). */
export function candidateCapacity(want: number, lags: number): number {
  return Math.min(Math.max(WEBGPU_CORR_CANDIDATES, 64 * want), Math.ceil(lags / 2) + 1);
}

const EMPTY: DeviceInput = { kind: 'host', data: new Float32Array(0), length: 0 };

export class WebGpuCorrelator extends WebGpuProcessor implements Correlator {
  readonly templateLength: number;
  readonly pushBytes = WEBGPU_CORRELATOR_PUSH_BYTES;
  /** FFT points and lags per overlap-save segment (0 when direct). */
  readonly size: number;
  readonly segment: number;
  private readonly complex: boolean;
  private readonly templateNorm: number;
  private readonly wantScores: boolean;
  private readonly peakCount: number;
  private readonly peakRadius: number;
  private readonly cursor: LagCursor;
  private readonly window: DeviceWindow;
  /** The L-point FFT (complex input) or the L/2-point one (real input, the rfft's inner transform). */
  private readonly plan: ComplexPlan | null;
  /** Fused (real input): the convolve kernel's FFT length, else 0. */
  private readonly fusedL: number;
  /** Lags the cursor releases at a time: the segment, or two when fused. */
  private readonly unit: number;
  private readonly direct: boolean;
  /** conj(FFT of the zero-padded template): L bins (complex) or L/2 + 1 (real); the template when direct;
   * fused: the convolve kernel's table of the conjugated, reversed template. */
  private readonly spectrum: GPUBuffer;
  /** Real input: (cos, sin)(2π·k/L) for k ≤ L/2, the rfft's post- and pre-processing twiddles. */
  private readonly twiddles: GPUBuffer | null;

  constructor(device: WebGpuDevice, config: CorrelatorConfig) {
    super(device, 'correlate');
    validateCorrelatorConfig(config);
    this.complex = config.complex;
    const settings = correlatorSettings(config);
    const M = settings.templateLength;
    this.templateLength = M;
    this.wantScores = settings.scores;
    this.peakCount = settings.peaks;
    this.peakRadius = settings.peakRadius;
    let e = 0;
    for (const v of config.template) e += v * v;
    this.templateNorm = Math.sqrt(e);
    this.direct = M <= WEBGPU_CORR_DIRECT_MAX_LENGTH;
    const planner = device.fftPlanner;
    const fusedSize = webGpuOverlapSaveSize(M, 2 * planner.onePassMax);
    this.fusedL = this.direct ? 0 : fusedLength(fusedSize, planner.onePassMax);
    if (this.fusedL > 0) {
      this.size = fusedSize;
      this.segment = fusedSize - M + 1;
      this.plan = this.twiddles = null;
      // the filter h[k] = conj(t[M − 1 − k]): its convolution with x is the correlation with t
      const h = new Float64Array(config.template.length);
      for (let k = 0; k < M; k++) {
        if (this.complex) {
          h[2 * k] = config.template[2 * (M - 1 - k)];
          h[2 * k + 1] = -config.template[2 * (M - 1 - k) + 1];
        } else h[k] = config.template[M - 1 - k];
      }
      this.spectrum = uploadTable(
        device.ctx,
        convolveTable(h, fusedSize, this.fusedL, this.complex),
        'correlate spectrum',
      );
    } else if (this.direct) {
      this.size = this.segment = 0;
      this.plan = this.twiddles = null;
      this.spectrum = uploadTable(device.ctx, Float32Array.from(config.template), 'correlate template');
    } else {
      this.size = webGpuOverlapSaveSize(M, device.fftPlanner.maxSize);
      this.segment = this.size - M + 1;
      const L = this.size;
      this.plan = device.fftPlanner.plan(this.complex ? L : L / 2);
      this.twiddles = this.complex
        ? null
        : uploadTable(device.ctx, unitCircle(L, L / 2 + 1), 'correlate twiddles');
      const bins = this.complex ? L : L / 2 + 1;
      const vps = this.complex ? 2 : 1;
      const padded = new Float64Array(2 * L);
      for (let k = 0; k < M; k++) {
        padded[2 * k] = config.template[vps * k];
        padded[2 * k + 1] = this.complex ? config.template[2 * k + 1] : 0;
      }
      const spec = new Float64Array(2 * L);
      getFftPlan(L).forward(padded, spec);
      const conj = new Float32Array(2 * bins);
      for (let k = 0; k < bins; k++) {
        conj[2 * k] = spec[2 * k];
        conj[2 * k + 1] = -spec[2 * k + 1];
      }
      this.spectrum = uploadTable(device.ctx, conj, 'correlate spectrum');
    }
    // fused real input: two segments a row, released together so the pairs do not depend on the blocks
    this.unit = this.fusedL > 0 && !this.complex ? 2 * this.segment : this.segment;
    this.cursor = new LagCursor(M, this.unit);
    this.window = new DeviceWindow(device, 'correlate');
  }

  /** Overlap-save through the fused kernel (shaders/fft_pow2.wgsl `convolve`) rather than as passes. */
  get fused(): boolean {
    return this.fusedL > 0;
  }

  process(input: ProcessorInput): Promise<CorrelationChunk> {
    let x: DeviceInput;
    let lags: number;
    try {
      x = this.input(input);
      lags = this.cursor.push(channelSamples('correlate', x.length, this.complex));
    } catch (err) {
      return Promise.reject(err);
    }
    const start = this.cursor.take(lags);
    return this.device.call(() => this.run(x, start, lags));
  }

  flush(): Promise<CorrelationChunk> {
    return this.ending(() => {
      const lags = this.cursor.flush();
      const start = this.cursor.take(lags);
      return this.device.call(() => this.run(EMPTY, start, lags));
    });
  }

  private async run(x: DeviceInput, startLag: number, lags: number): Promise<CorrelationChunk> {
    const vps = this.complex ? 2 : 1;
    const S = this.segment;
    const want = lags > 0 ? this.peakCount : 0;
    const capacity = want > 0 ? candidateCapacity(want, lags) : 0;
    // the result buffer: the candidate list's header and entries (when peaks are asked for), then the scores
    const head = want > 0 ? CANDIDATE_HEAD + 2 * capacity : 0;
    const result = this.device.work.get(2, Math.max(16, (head + lags) * 4));
    const out = new Float32Array(head + (this.wantScores ? lags : 0));
    let chunk = Math.floor(PROCESSOR_CHUNK_BYTES / 4);
    if (!this.direct)
      chunk =
        this.unit * Math.max(1, Math.floor(PROCESSOR_CHUNK_BYTES / ((this.segmentBytes() * this.unit) / S)));
    let l0 = 0;
    do {
      const c = Math.min(chunk, lags - l0);
      const last = l0 + c >= lags;
      const at = l0;
      await this.device.submit(
        (r) => {
          const available = at === 0 ? this.window.append(r, x, 0) : this.window.kept;
          if (c > 0) r.compute((job) => this.encode(job, c, at, available, result, head + at));
          if (last && want > 0) this.encodeCandidates(r, lags, capacity, result, head);
          if (last) this.window.keep(r, lags * vps);
        },
        last ? result : undefined,
        last ? out : undefined,
      );
      l0 += c;
    } while (l0 < lags);
    let scores: Float32Array | undefined;
    if (this.wantScores) scores = head > lags / 8 ? out.slice(head) : out.subarray(head);
    let peaks: CorrelationPeak[] = [];
    if (want > 0) {
      const words = new Uint32Array(out.buffer, out.byteOffset, head);
      const count = Math.min(words[0], capacity);
      const total = words[2];
      const band = words[3];
      // the CPU backend's rule (stream.ts findPeaks) over the list
      peaks = takePeaks(
        words.subarray(CANDIDATE_HEAD, CANDIDATE_HEAD + count),
        out.subarray(CANDIDATE_HEAD + capacity, CANDIDATE_HEAD + capacity + count),
        startLag,
        want,
        this.peakRadius,
      );
      // the list left out candidates and ran dry: select from every score (rare: many equal scores)
      if (peaks.length < want && band < total) {
        if (scores === undefined) {
          const all = new Float32Array(lags);
          const copy = this.device.work.get(8, Math.max(16, lags * 4));
          await this.device.submit(
            (r) => r.encoder.copyBufferToBuffer(result, head * 4, copy, 0, lags * 4),
            copy,
            all,
          );
          peaks = findPeaks(all, startLag, want, this.peakRadius);
        } else {
          peaks = findPeaks(scores, startLag, want, this.peakRadius);
        }
      }
    }
    const res: CorrelationChunk = { startLag, count: lags, peaks };
    if (scores !== undefined) res.scores = scores;
    return res;
  }

  /** Device bytes one overlap-save segment takes in a submit (rows, spectra, chunk sums, FFT scratch;
   * fused: the segment's input). */
  private segmentBytes(): number {
    const L = this.size;
    if (this.fusedL > 0) return (this.complex ? 8 : 4) * L;
    const scratch = this.plan?.scratchPerRow ?? 0;
    return (this.complex ? 24 : 12) * L + 8 * scratch + L;
  }

  /** Scores of `lags` lags from sample `inBase` of the window into result[outBase …]. */
  private encode(
    job: FftJob,
    lags: number,
    inBase: number,
    available: number,
    result: GPUBuffer,
    outBase: number,
  ): void {
    const L = this.size;
    const S = this.segment;
    const segments = this.direct ? 0 : Math.ceil(lags / S);
    const src = this.window.buffer;
    const w = this.device.work;
    const k = (entry: string, total: number, buffers: Record<number, GPUBuffer>) =>
      this.kernel(job, entry, total, [lags, available, inBase, outBase, 0], buffers);
    if (this.direct) {
      k('direct', lags, { 0: src, 5: result, 9: this.spectrum });
      return;
    }
    if (this.fusedL > 0) {
      // one pass: each segment read from the window, correlated, and its lags' scores (window energies
      // from the same segment) written to the result
      const vps = this.complex ? 2 : 1;
      encodeConvolve(this.device, job, {
        L: this.fusedL,
        N: L,
        table: this.spectrum,
        src,
        dst: result,
        seqs: segments * vps,
        lanes: vps,
        segment: S,
        keep: this.templateLength - 1,
        frames: lags,
        available,
        inBase: inBase * vps,
        outSeg: S,
        scores: { outBase, norm: this.templateNorm },
      });
      return;
    }
    const rowBytes = segments * L * 4 * (this.complex ? 2 : 1);
    const rows = w.get(0, rowBytes);
    const a = w.get(1, rowBytes);
    const b = w.get(4, rowBytes);
    const e8 = w.get(3, Math.max(16, (segments * L) / 2));
    const e64 = w.get(6, Math.max(16, (segments * L) / 16));
    k('gather', (segments * L) / 8, { 0: src, 7: rows, 2: e8, 12: e64 });
    if (this.complex) {
      const plan = this.plan!;
      plan.encode(job, rows, 0, a, 0, segments, false);
      this.device.fftPlanner.elementwiseDispatch(
        job,
        'bluestein',
        'mul',
        segments * L,
        [L, L, segments * L, 0, 0],
        3,
        [1],
        { 0: a, 1: b, 2: this.spectrum },
        3,
      );
      plan.encode(job, b, 0, a, 0, segments, true);
    } else {
      // the half-length FFT of the reals read as complex values, then rfft · conj(T) → irfft's input
      const plan = this.plan!;
      plan.encode(job, rows, 0, a, 0, segments, false);
      k('spectrum', (segments * L) / 2, { 16: a, 17: b, 18: this.spectrum, 19: this.twiddles! });
      plan.encode(job, b, 0, a, 0, segments, true);
    }
    // the sums of the runs of chunks of 64 a window holds, so a lag's energy is a few terms
    const runs = w.get(9, Math.max(16, (segments * L) / 16));
    k('runs', (segments * L) / 64, { 13: e64, 20: runs });
    k('score', lags, { 8: a, 10: rows, 4: e8, 13: e64, 21: runs, 5: result });
  }

  /** The candidate peaks of the push's scores (result[scoreBase …]) into the list at result's front. */
  private encodeCandidates(
    r: Recorder,
    lags: number,
    capacity: number,
    result: GPUBuffer,
    scoreBase: number,
  ): void {
    const list = this.device.work.get(5, (CANDIDATE_BINS + CANDIDATE_HEAD + 2 * capacity) * 4);
    r.encoder.clearBuffer(list, 0, (CANDIDATE_BINS + CANDIDATE_HEAD) * 4);
    r.compute((job) => {
      const k = (entry: string, total: number, buffers: Record<number, GPUBuffer>) =>
        this.kernel(job, entry, total, [lags, 0, 0, scoreBase, capacity], buffers);
      k('candHist', Math.ceil(lags / HIST_PER), { 14: result, 15: list });
      k('candThreshold', 1, { 15: list });
      k('candExtract', lags, { 14: result, 15: list });
    });
    const bytes = (CANDIDATE_HEAD + 2 * capacity) * 4;
    r.encoder.copyBufferToBuffer(list, CANDIDATE_BINS * 4, result, 0, bytes);
  }

  /** A kernel of shaders/correlate.wgsl; `w`: lags, available, inBase, outBase, capacity. */
  private kernel(
    job: FftJob,
    entry: string,
    total: number,
    w: [number, number, number, number, number],
    buffers: Record<number, GPUBuffer>,
  ): void {
    const [lags, available, inBase, outBase, capacity] = w;
    const words = [
      lags,
      this.complex ? 2 : 1,
      this.templateLength,
      total,
      this.size,
      this.segment,
      available,
      inBase,
      outBase,
      capacity,
    ];
    const floats = [this.templateNorm];
    this.device.fftPlanner.elementwiseDispatch(job, 'correlate', entry, total, words, 1, floats, buffers, 6);
  }

  reset(): void {
    this.cursor.reset();
    this.later(() => this.window.reset());
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.later(() => {
      this.window.destroy();
      this.spectrum.destroy();
      this.twiddles?.destroy();
    });
  }
}
