// Streaming FIR filter of the WebGPU backend: the FIR cursor of ../stream.ts on the JavaScript thread
// decides which output frames a block makes ready; the kept input (the filter's history) and the taps'
// spectrum stay on the device. Overlap-save in segments aligned to absolute frames, two real sequences
// (lanes, or a real lane's consecutive segments) per complex row: fused in one kernel (shaders/fft_pow2.wgsl
// `convolve`: load, FFT, product with the spectrum, inverse FFT and store in one workgroup) for segments of
// up to twice the one-pass FFT size, else as passes (shaders/fir.wgsl gather → FFT → product → inverse FFT
// → scatter); or the direct form. Either way each output is the same computation whatever the block sizes.

import { validateFirConfig } from '../validate.js';
import { getFftPlan } from '../../fft/index.js';
import type { FirConfig, FirFilter, ProcessorInput } from '../backend.js';
import { FirCursor, firFrames, firLanes, firMethod, outputArray } from '../stream.js';
import type { ComplexPlan, FftJob } from './fft.js';
import { grid, unitCircle, uploadTable } from './gpu.js';
import {
  DeviceWindow,
  PROCESSOR_CHUNK_BYTES,
  WebGpuProcessor,
  inFlight,
  type DeviceInput,
  type WebGpuDevice,
} from './processor.js';

/** 'auto' uses the direct form up to this many taps (a short loop per output beats two FFTs per segment
 * there); not yet measured on a GPU. */
export const WEBGPU_FIR_DIRECT_MAX_TAPS = 16;

/** Overlap-save FFT size for `numtaps` taps: a power of two of at least 4·numtaps (so at least three
 * quarters of each segment are outputs) and 1024 points; 2048 for 129–256 taps, where 88 % of a
 * 2048-point segment are outputs against 75 % of 1024 points for a transform 9 % slower (255 taps: 0.183
 * ms against 0.203 for 2^24 samples on the lent H100; 1023 taps as 8192 points in two halves ran slower
 * than 4096, 0.306 against 0.263). */
export function webGpuOverlapSaveSize(numtaps: number, maxSize: number): number {
  let size = 1024;
  while (size < 4 * numtaps || (size < 2048 && size < 8 * numtaps)) size *= 2;
  while (size > maxSize && size / 2 >= 2 * numtaps) size /= 2;
  return size;
}

/** The FFT length of the fused overlap-save kernel for segments of N points: N up to the one-pass size,
 * N / 2 (the split form) up to twice that, else 0 (too large: the passes). */
export function fusedLength(N: number, onePassMax: number): number {
  return N <= onePassMax ? N : N <= 2 * onePassMax ? N / 2 : 0;
}

/** The fused kernel's table for taps h (real, or interleaved complex values when `complex`) and
 * segments of N points (FFT length L): H = FFT(h) / N, N bins, then for the split form (L < N) its
 * radix-2 twiddles (cos, sin)(2π·m/N), m < N/2. */
export function convolveTable(h: ArrayLike<number>, N: number, L: number, complex = false): Float32Array {
  const padded = new Float64Array(2 * N);
  if (complex) for (let i = 0; i < h.length; i++) padded[i] = h[i];
  else for (let i = 0; i < h.length; i++) padded[2 * i] = h[i];
  const spectrum = new Float64Array(2 * N);
  getFftPlan(N).forward(padded, spectrum);
  const table = new Float32Array(2 * N + (L < N ? N : 0));
  for (let i = 0; i < 2 * N; i++) table[i] = spectrum[i] / N;
  if (L < N) table.set(unitCircle(N, N / 2), 2 * N);
  return table;
}

/** What one dispatch of the fused kernel reads and writes (shaders/fft_pow2.wgsl ConvParams). */
export interface ConvolveDispatch {
  /** FFT length and segment points (L, or 2L for the split form). */
  L: number;
  N: number;
  table: GPUBuffer;
  src: GPUBuffer;
  dst: GPUBuffer;
  /** Real sequences (segments · lanes), lanes, outputs a segment, taps − 1, outputs in all (per lane),
   * values in src, first input value, dst values between segments. */
  seqs: number;
  lanes: number;
  segment: number;
  keep: number;
  frames: number;
  available: number;
  inBase: number;
  outSeg: number;
  /** The correlator: write normalized scores (from outBase of dst, the template's norm) instead of the
   * filter's outputs (shaders/fft_pow2.wgsl `convolve` with cv.score). */
  scores?: { outBase: number; norm: number };
  /** The FIR's kernel of 16 points a thread (WebGpuFft.convolveRadix16), decided once a processor. */
  radix16?: { pad: boolean };
}

/** Encodes the fused overlap-save kernel: one workgroup row per pair of real sequences. */
export function encodeConvolve(device: WebGpuDevice, job: FftJob, d: ConvolveDispatch): void {
  const fft = device.fftPlanner;
  const rows = Math.ceil(d.seqs / 2);
  const { pipeline, layout, cols } = fft.convolvePipeline(d.L, d.L < d.N, d.scores !== undefined, d.radix16);
  const g = grid(Math.ceil(rows / cols), device.ctx.limits.workgroupsPerDimension);
  const uniforms = job.arena.slot(
    [
      rows,
      g.x,
      d.seqs,
      d.lanes,
      d.segment,
      d.keep,
      d.frames,
      d.available,
      d.inBase,
      d.outSeg,
      d.scores?.outBase ?? 0,
      d.scores === undefined ? 0 : 1,
    ],
    [d.scores?.norm ?? 0],
  );
  const bindGroup = device.ctx.device.createBindGroup({
    layout,
    entries: [
      { binding: 2, resource: { buffer: fft.twiddleTable(d.L) } },
      { binding: 3, resource: { buffer: d.table } },
      { binding: 5, resource: { buffer: d.src } },
      { binding: 11, resource: { buffer: d.dst } },
      { binding: 12, resource: uniforms },
    ],
  });
  job.pass.setPipeline(pipeline);
  job.pass.setBindGroup(0, bindGroup);
  job.pass.dispatchWorkgroups(g.x, g.y);
}

const EMPTY: DeviceInput = { kind: 'host', data: new Float32Array(0), length: 0 };

export class WebGpuFir extends WebGpuProcessor implements FirFilter {
  readonly numtaps: number;
  readonly method: 'direct' | 'overlap-save';
  /** Overlap-save: FFT points and outputs per segment (0 for the direct form). */
  readonly size: number;
  readonly segment: number;
  private readonly lanes: number;
  private readonly pairs: number;
  private readonly cursor: FirCursor;
  private readonly window: DeviceWindow;
  /** The overlap-save passes' FFT plan (null for the direct form and the fused kernel). */
  private readonly plan: ComplexPlan | null;
  /** Fused overlap-save: the kernel's FFT length (size, or size / 2 when split), else 0. */
  private readonly fusedL: number;
  /** The fused kernel's radix-16 variant (one-pass segments), fixed for the processor's life. */
  private readonly radix16: { pad: boolean } | undefined;
  /** Output frames the cursor releases at a time: the segment, or two with the fused kernel on odd lanes. */
  private readonly unit: number;
  /** Direct form: the taps; overlap-save: the spectrum of the zero-padded taps. */
  private readonly table: GPUBuffer;

  constructor(device: WebGpuDevice, config: FirConfig) {
    super(device, 'fir');
    validateFirConfig(config);
    this.numtaps = config.taps.length;
    this.lanes = firLanes(config);
    this.pairs = Math.ceil(this.lanes / 2);
    this.method = firMethod(config, WEBGPU_FIR_DIRECT_MAX_TAPS);
    const planner = device.fftPlanner;
    this.fusedL = 0;
    this.radix16 = undefined;
    if (this.method === 'overlap-save') {
      const fusedSize = webGpuOverlapSaveSize(this.numtaps, 2 * planner.onePassMax);
      this.fusedL = fusedLength(fusedSize, planner.onePassMax);
      this.size = this.fusedL > 0 ? fusedSize : webGpuOverlapSaveSize(this.numtaps, planner.maxSize);
      this.segment = this.size - this.numtaps + 1;
      const N = this.size;
      if (this.fusedL === N) this.radix16 = planner.convolveRadix16(N);
      if (this.fusedL > 0) {
        // the inverse's 1/N in the spectrum; a split kernel's radix-2 twiddles after it
        this.plan = null;
        this.table = uploadTable(device.ctx, convolveTable(config.taps, N, this.fusedL), 'fir spectrum');
      } else {
        this.plan = planner.plan(N);
        const padded = new Float64Array(2 * N);
        for (let i = 0; i < this.numtaps; i++) padded[2 * i] = config.taps[i];
        const spectrum = new Float64Array(2 * N);
        getFftPlan(N).forward(padded, spectrum);
        this.table = uploadTable(device.ctx, Float32Array.from(spectrum), 'fir spectrum');
      }
    } else {
      this.size = 0;
      this.segment = 0;
      this.plan = null;
      this.table = uploadTable(device.ctx, Float32Array.from(config.taps), 'fir taps');
    }
    // fused with an odd lane count, a row pairs a segment with the next: outputs come two segments at a
    // time from an even absolute segment, so the pairs are the same whatever the block split
    this.unit = this.fusedL > 0 && this.lanes % 2 === 1 ? 2 * this.segment : this.segment;
    this.cursor = new FirCursor(this.numtaps, this.unit);
    this.window = new DeviceWindow(device, 'fir');
    this.window.reset((this.numtaps - 1) * this.lanes);
  }

  /** Overlap-save in one kernel (shaders/fft_pow2.wgsl `convolve`) rather than as passes. */
  get fused(): boolean {
    return this.fusedL > 0;
  }

  /** The kernel that runs the filter: the fused overlap-save one (`convolve16` with 16 points a thread,
   * padded or not; `convolve`, whole or split in two halves), its passes, or the direct form. */
  get kernel(): string {
    if (this.size === 0) return 'direct';
    if (this.fusedL === 0) return 'passes';
    if (this.radix16) return `convolve16${this.radix16.pad ? ', padded' : ''}`;
    return this.fusedL < this.size ? 'convolve, split' : 'convolve';
  }

  get pending(): number {
    return this.cursor.pending;
  }

  process(input: ProcessorInput, into?: Float32Array): Promise<Float32Array> {
    let x: DeviceInput;
    let ready: number;
    try {
      x = this.input(input);
      ready = this.cursor.push(firFrames(x.length, this.lanes));
    } catch (err) {
      return Promise.reject(err);
    }
    this.cursor.produce(ready);
    return this.device.call(() => this.run(x, ready, into));
  }

  flush(): Promise<Float32Array> {
    return this.ending(() => {
      const frames = this.cursor.flush();
      return this.device.call(() => this.run(EMPTY, frames));
    });
  }

  /** Appends x, computes the next `frames` output frames (zero input past the window's end), drops the
   * input they no longer need. The frames go in pieces, two in flight, each appending the input its
   * frames need (window frames below f0 + c + numtaps − 1), so uploads, kernels and reads overlap. */
  private async run(x: DeviceInput, frames: number, into?: Float32Array): Promise<Float32Array> {
    const V = this.lanes;
    const out = outputArray(frames * V, into);
    const piece = this.device.ctx.processorPieceBytes;
    // Output frames per piece: whole segments for overlap-save.
    const chunk =
      this.size === 0
        ? Math.max(1, Math.floor(piece / (4 * V)))
        : this.plan === null
          ? this.unit * Math.max(1, Math.floor(piece / (4 * V * this.unit)))
          : this.segment *
            Math.max(
              1,
              Math.min(
                Math.floor(piece / (4 * V * this.segment)),
                Math.floor(PROCESSOR_CHUNK_BYTES / (8 * this.pairs * (this.size + this.plan.scratchPerRow))),
              ),
            );
    const pieces = Math.max(1, Math.ceil(frames / chunk));
    const dst = this.device.work.get(2, Math.max(16, Math.min(chunk, frames) * V * 4));
    const kept = this.window.kept;
    let appended = 0;
    await inFlight(pieces, (i) => {
      const f0 = i * chunk;
      const c = Math.min(chunk, frames - f0);
      const last = i === pieces - 1;
      const need = last
        ? x.length
        : Math.min(x.length, Math.max(appended, (f0 + c + this.numtaps - 1) * V - kept));
      return this.device.submitRead(
        (r) => {
          if (i === 0 || need > appended) this.window.append(r, x, appended, need);
          appended = need;
          if (c > 0) r.compute((job) => this.encode(job, c, f0 * V, this.window.kept, dst));
          if (last) this.window.keep(r, frames * V);
        },
        dst,
        [{ at: 0, out: out.subarray(f0 * V, (f0 + c) * V) }],
      );
    });
    return out;
  }

  private encode(job: FftJob, frames: number, inBase: number, available: number, dst: GPUBuffer): void {
    const V = this.lanes;
    const src = this.window.buffer;
    const params = (total: number) => [
      frames,
      V,
      this.numtaps,
      total,
      this.size,
      this.segment,
      this.pairs,
      available,
      inBase,
    ];
    if (this.fusedL > 0) {
      this.encodeFused(job, frames, inBase, available, dst);
      return;
    }
    if (this.plan === null) {
      this.device.fftPlanner.elementwiseDispatch(
        job,
        'fir',
        'direct',
        frames * V,
        params(frames * V),
        1,
        [],
        {
          0: src,
          1: this.table,
          2: dst,
        },
        5,
      );
      return;
    }
    const L = this.size;
    const rows = Math.ceil(frames / this.segment) * this.pairs;
    const a = this.device.work.get(0, rows * L * 8);
    const b = this.device.work.get(1, rows * L * 8);
    this.device.fftPlanner.elementwiseDispatch(
      job,
      'fir',
      'gather',
      rows * L,
      params(rows * L),
      1,
      [],
      { 0: src, 3: a },
      5,
    );
    this.plan.encode(job, a, 0, b, 0, rows, false);
    this.device.fftPlanner.elementwiseDispatch(
      job,
      'bluestein',
      'mul',
      rows * L,
      [L, L, rows * L, 0, 0],
      3,
      [1],
      {
        0: b,
        1: a,
        2: this.table,
      },
      3,
    );
    this.plan.encode(job, a, 0, b, 0, rows, true);
    this.device.fftPlanner.elementwiseDispatch(
      job,
      'fir',
      'scatter',
      frames * V,
      params(frames * V),
      1,
      [],
      { 4: b, 2: dst },
      5,
    );
  }

  /** Output frames through the fused kernel, straight from the window to dst. */
  private encodeFused(job: FftJob, frames: number, inBase: number, available: number, dst: GPUBuffer): void {
    const V = this.lanes;
    encodeConvolve(this.device, job, {
      L: this.fusedL,
      N: this.size,
      table: this.table,
      src: this.window.buffer,
      dst,
      seqs: Math.ceil(frames / this.segment) * V,
      lanes: V,
      segment: this.segment,
      keep: this.numtaps - 1,
      frames,
      available,
      inBase,
      outSeg: this.segment * V,
      ...(this.radix16 ? { radix16: this.radix16 } : {}),
    });
  }

  reset(): void {
    this.cursor.reset();
    this.later(() => this.window.reset((this.numtaps - 1) * this.lanes));
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.later(() => {
      this.window.destroy();
      this.table.destroy();
    });
  }
}
