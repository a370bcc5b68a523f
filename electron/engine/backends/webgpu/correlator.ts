// Streaming normalized cross-correlation of the WebGPU backend: the lag cursor of ../stream.ts on the
// JavaScript thread decides which lags a block completes; the kept samples and the template (or its
// spectrum) stay on the device. Short templates are correlated directly; longer ones by overlap-save in
// segments aligned to absolute lags (shaders/correlate.wgsl gather → FFT, rfft for real input → product
// with conj(T) → inverse → scores with window energies from per-segment chunk sums), so scores do not
// depend on the block sizes. Candidate peaks are picked on the host from the scores read back (the same
// greedy search as the CPU backend).

import { validateCorrelatorConfig } from '../validate.js';
import { getFftPlan } from '../../fft/index.js';
import type { CorrelationChunk, Correlator, CorrelatorConfig, ProcessorInput } from '../backend.js';
import { LagCursor, channelSamples, correlatorSettings, findPeaks } from '../stream.js';
import type { ComplexPlan, FftJob, RealPlan } from './fft.js';
import { webGpuOverlapSaveSize } from './fir.js';
import { uploadTable } from './gpu.js';
import {
  DeviceWindow,
  PROCESSOR_CHUNK_BYTES,
  WebGpuProcessor,
  type DeviceInput,
  type WebGpuDevice,
} from './processor.js';

/** Templates up to this length are correlated directly (as the CPU backend does): an FFT's rounding,
 * relative to a whole segment, would swamp the score of a lag whose short window is faint. */
export const WEBGPU_CORR_DIRECT_MAX_LENGTH = 16;

/** Samples per energy chunk (the CHUNK constant of shaders/correlate.wgsl). */
const ENERGY_CHUNK = 64;

const EMPTY: DeviceInput = { kind: 'host', data: new Float32Array(0), length: 0 };

export class WebGpuCorrelator extends WebGpuProcessor implements Correlator {
  readonly templateLength: number;
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
  private readonly plan: ComplexPlan | null;
  private readonly realPlan: RealPlan | null;
  private readonly direct: boolean;
  /** conj(FFT of the zero-padded template): L bins (complex) or L/2 + 1 (real); the template when direct. */
  private readonly spectrum: GPUBuffer;
  private readonly bins: number;

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
    if (this.direct) {
      this.size = this.segment = this.bins = 0;
      this.plan = this.realPlan = null;
      this.spectrum = uploadTable(device.ctx, Float32Array.from(config.template), 'correlate template');
    } else {
      this.size = webGpuOverlapSaveSize(M, device.fftPlanner.maxSize);
      this.segment = this.size - M + 1;
      const L = this.size;
      this.plan = this.complex ? device.fftPlanner.plan(L) : null;
      this.realPlan = this.complex ? null : device.fftPlanner.realPlan(L);
      this.bins = this.complex ? L : L / 2 + 1;
      const vps = this.complex ? 2 : 1;
      const padded = new Float64Array(2 * L);
      for (let k = 0; k < M; k++) {
        padded[2 * k] = config.template[vps * k];
        padded[2 * k + 1] = this.complex ? config.template[2 * k + 1] : 0;
      }
      const spec = new Float64Array(2 * L);
      getFftPlan(L).forward(padded, spec);
      const conj = new Float32Array(2 * this.bins);
      for (let k = 0; k < this.bins; k++) {
        conj[2 * k] = spec[2 * k];
        conj[2 * k + 1] = -spec[2 * k + 1];
      }
      this.spectrum = uploadTable(device.ctx, conj, 'correlate spectrum');
    }
    this.cursor = new LagCursor(M, this.segment);
    this.window = new DeviceWindow(device, 'correlate');
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
    const scores = new Float32Array(lags);
    let chunk = Math.floor(PROCESSOR_CHUNK_BYTES / 4);
    if (!this.direct) {
      const perSegment = 8 * (2 * this.size + (this.plan?.scratchPerRow ?? this.realPlan!.scratchPerRow));
      chunk = S * Math.max(1, Math.floor(PROCESSOR_CHUNK_BYTES / perSegment));
    }
    const dst = this.device.work.get(2, Math.max(16, Math.min(chunk, lags) * 4));
    let l0 = 0;
    do {
      const c = Math.min(chunk, lags - l0);
      const last = l0 + c >= lags;
      await this.device.submit(
        (r) => {
          const available = l0 === 0 ? this.window.append(r, x, 0) : this.window.kept;
          if (c > 0) r.compute((job) => this.encode(job, c, l0, available, dst));
          if (last) this.window.keep(r, lags * vps);
        },
        dst,
        scores.subarray(l0, l0 + c),
      );
      l0 += c;
    } while (l0 < lags);
    const result: CorrelationChunk = {
      startLag,
      count: lags,
      peaks:
        this.peakCount > 0 && lags > 0 ? findPeaks(scores, startLag, this.peakCount, this.peakRadius) : [],
    };
    if (this.wantScores) result.scores = scores;
    return result;
  }

  private encode(job: FftJob, lags: number, inBase: number, available: number, dst: GPUBuffer): void {
    const L = this.size;
    const S = this.segment;
    const segments = this.direct ? 0 : Math.ceil(lags / S);
    const chunksPerSegment = Math.ceil(L / ENERGY_CHUNK);
    const src = this.window.buffer;
    const w = this.device.work;
    const params = (total: number) => [
      lags,
      this.complex ? 2 : 1,
      this.templateLength,
      total,
      L,
      S,
      available,
      inBase,
      chunksPerSegment,
    ];
    const floats = [this.templateNorm];
    const k = (entry: string, total: number, buffers: Record<number, GPUBuffer>) =>
      this.device.fftPlanner.elementwiseDispatch(
        job,
        'correlate',
        entry,
        total,
        params(total),
        1,
        floats,
        buffers,
        6,
      );
    if (this.direct) {
      k('direct', lags, { 0: src, 5: dst, 9: this.spectrum });
      return;
    }
    const a = w.get(0, segments * L * 8);
    const b = w.get(1, segments * L * 8);
    const energy = w.get(3, Math.max(16, segments * chunksPerSegment * 4));
    const mul = (from: GPUBuffer, to: GPUBuffer) =>
      this.device.fftPlanner.elementwiseDispatch(
        job,
        'bluestein',
        'mul',
        segments * this.bins,
        [this.bins, this.bins, segments * this.bins, 0, 0],
        3,
        [1],
        { 0: from, 1: to, 2: this.spectrum },
        3,
      );
    if (this.plan !== null) {
      k('gatherComplex', segments * L, { 0: src, 1: a });
      this.plan.encode(job, a, 0, b, 0, segments, false);
      mul(b, a);
      this.plan.encode(job, a, 0, b, 0, segments, true);
    } else {
      k('gatherReal', segments * L, { 0: src, 7: a });
      this.realPlan!.forward(job, a, 0, b, 0, segments);
      mul(b, a);
      this.realPlan!.inverse(job, a, 0, b, 0, segments);
    }
    k('chunks', segments * chunksPerSegment, { 0: src, 2: energy });
    k('score', lags, { 0: src, 3: b, 4: energy, 5: dst, 8: b });
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
    });
  }
}
