// Device timing of the WebGPU backend for `phasor bench` (the DeviceTimer of ../backend.ts), from GPU
// timestamp queries (the adapter's `timestamp-query` feature; without it the backend has no timer).
//
//   const t = new WebGpuDeviceTimer(backend);
//   const r = await t.benchmark('fft', 1024, 4096, false, { reps: 10, endToEnd: true });
//   // r.kernelMs: median of the compute passes' time with the data on the device; r.endToEndMs: the
//   // backend's whole call from host memory and back; r.batch: what was timed (it may be less than asked)
//
// Ops (as cuda/devtimer.cu names them): 'fft' | 'ifft' | 'rfft' (n points, batch transforms); 'spectrogram-f32' |
// 'spectrogram-i16' (fft n, hop n/4, Hann window, batch samples); 'fir-real' | 'fir' (n taps, batch real
// or complex frames); 'corr' (real template of n, batch samples); 'copy' (a WGSL copy of n·batch complex
// values: the bandwidth ceiling) and 'h2d' (n·batch complex values from host memory through the
// backend's staging uploads, HostUploads).
// The processors are timed as they run in the product (every compute pass of their submits, timestamps at
// each pass's start and end, summed), pushed blocks already on the device. `reference: true` times the
// unfused pipeline instead: the same steps as separate passes with a buffer between each (the planner's
// FFTs and shaders/unfused.wgsl), the WebGPU counterpart of CUDA's unfused cuFFT pipelines; there is no
// vendor FFT to compare the transforms with.

import { getFftPlan } from '../../fft/index.js';
import { benchInput, median } from '../bench-data.js';
import type { Backend, CorrelationChunk, DeviceBenchResult, ProcessorInput } from '../backend.js';
import type { RawSamples } from '../../types.js';
import { WebGpuCorrelator } from './correlator.js';
import type { FftJob } from './fft.js';
import { WebGpuFir } from './fir.js';
import { grid, MAP_READ, STORAGE_USAGE, USAGE } from './gpu.js';
import type { WebGpuContext } from './device.js';
import type { DeviceRead, Recorder, WebGpuDevice } from './processor.js';
import { shaderSource, variant } from './shaders.js';
import { WebGpuSpectrogram } from './spectrogram.js';

/** What the timer needs of its backend: the processors' device interface and the whole calls. */
export type TimedBackend = Backend & WebGpuDevice;

/** Bytes of a transform chunk's input (and of its output): larger batches run as several passes. */
const CHUNK_BYTES = 64 * 1024 * 1024;
/** Values pushed into a processor at a time (its stream in blocks, as a file job feeds it). */
const BLOCK_VALUES = 1 << 22;
/** A processor's piece while its kernel is timed: more than a push's output, so a push is one dispatch. */
const KERNEL_PIECE_BYTES = 1 << 30;
/** A software adapter (SwiftShader) times at most this many samples: it only shows that the path works. */
const SOFTWARE_SAMPLES = 1 << 18;
/** Largest copy measured for the ceiling (each of its two buffers). */
const COPY_BYTES = 256 * 1024 * 1024;
/** Compute passes one submit may time. */
const PASSES = 64;
const THREADS = 256;

function relL2(got: ArrayLike<number>, ref: ArrayLike<number>, count: number): number {
  let num = 0;
  let den = 0;
  for (let i = 0; i < count; i++) {
    num += (got[i] - ref[i]) ** 2;
    den += ref[i] ** 2;
  }
  return den === 0 ? (num === 0 ? 0 : Infinity) : Math.sqrt(num / den);
}

/** The periodic Hann window (as cuda/devtimer.cu's spectrogram). */
function hann(n: number): Float32Array {
  return Float32Array.from({ length: n }, (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / n));
}

/** A windowed-sinc low-pass at a quarter of the band (as cuda/devtimer.cu's FIR). */
function lowpass(n: number): Float64Array {
  const taps = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    const m = k - (n - 1) / 2;
    const sinc = m === 0 ? 0.5 : Math.sin(Math.PI * 0.5 * m) / (Math.PI * m);
    taps[k] = sinc * (0.54 - 0.46 * Math.cos((2 * Math.PI * k) / Math.max(1, n - 1)));
  }
  return taps;
}

/**
 * Timestamps around compute passes: `writes()` gives the next pass its pair, `resolve` records the copy of
 * the submit's timestamps, `read` (after the submit) returns the milliseconds of its passes, summed.
 */
class PassTimer {
  private readonly set: GPUQuerySet;
  private readonly resolved: GPUBuffer;
  private readonly readback: GPUBuffer;
  private used = 0;

  constructor(private readonly device: GPUDevice) {
    this.set = device.createQuerySet({
      label: 'phasor bench timestamps',
      type: 'timestamp',
      count: 2 * PASSES,
    });
    this.resolved = device.createBuffer({
      label: 'phasor bench timestamps',
      size: 16 * PASSES,
      usage: USAGE.QUERY_RESOLVE | USAGE.COPY_SRC,
    });
    this.readback = device.createBuffer({
      label: 'phasor bench timestamps',
      size: 16 * PASSES,
      usage: MAP_READ | USAGE.COPY_DST,
    });
  }

  get full(): boolean {
    return this.used >= PASSES;
  }

  writes(): GPUComputePassTimestampWrites {
    if (this.full) throw new Error('too many timed passes in one submit');
    const i = this.used++;
    return { querySet: this.set, beginningOfPassWriteIndex: 2 * i, endOfPassWriteIndex: 2 * i + 1 };
  }

  resolve(encoder: GPUCommandEncoder): void {
    if (this.used === 0) return;
    encoder.resolveQuerySet(this.set, 0, 2 * this.used, this.resolved, 0);
    encoder.copyBufferToBuffer(this.resolved, 0, this.readback, 0, 16 * this.used);
  }

  async read(): Promise<number> {
    const count = this.used;
    this.used = 0;
    if (count === 0) return 0;
    await this.readback.mapAsync(MAP_READ, 0, 16 * count);
    let ns = 0n;
    try {
      const t = new BigUint64Array(this.readback.getMappedRange(0, 16 * count));
      for (let i = 0; i < count; i++) if (t[2 * i + 1] > t[2 * i]) ns += t[2 * i + 1] - t[2 * i];
    } finally {
      this.readback.unmap();
    }
    return Number(ns) / 1e6;
  }

  destroy(): void {
    this.set.destroy();
    this.resolved.destroy();
    this.readback.destroy();
  }
}

/** A processor as the timer drives it: `begin` before a run, `push` each block, `end` after the last. */
interface Stream<T> {
  begin?(): void;
  push(input: ProcessorInput): Promise<T>;
  end?(): Promise<T>;
  dispose(): void;
  /** Overlap-save: FFT points and outputs per segment. */
  size?: number;
  segment?: number;
}

/** Words of shaders/unfused.wgsl's Params after total and groupsX, by name. */
interface UnfusedParams {
  n?: number;
  hop?: number;
  len?: number;
  seg?: number;
  lanes?: number;
  period?: number;
  f?: number[];
}

export class WebGpuDeviceTimer {
  private timer: PassTimer | undefined;
  private module: GPUShaderModule | undefined;
  private readonly pipelines = new Map<string, GPUComputePipeline>();
  private readonly buffers: GPUBuffer[] = [];

  constructor(private readonly b: TimedBackend) {}

  private get device(): GPUDevice {
    return this.b.ctx.device;
  }

  /** A software adapter times small inputs only. */
  private cap(values: number): number {
    return this.b.ctx.adapter.info.isFallbackAdapter ? Math.min(values, SOFTWARE_SAMPLES) : values;
  }

  async benchmark(
    op: string,
    n: number,
    batch: number,
    reference = false,
    options: { reps?: number; endToEnd?: boolean } = {},
  ): Promise<DeviceBenchResult> {
    const reps = Math.max(1, options.reps ?? 10);
    const e2e = options.endToEnd ?? true;
    const base: DeviceBenchResult = {
      op,
      impl: reference ? 'webgpu-unfused' : 'webgpu',
      n,
      batch,
      available: true,
      kernelMs: NaN,
      endToEndMs: NaN,
      samplesPerSecond: NaN,
      bytes: 0,
      relError: NaN,
    };
    const none = (reason: string): DeviceBenchResult => ({ ...base, available: false, reason });
    try {
      switch (op) {
        case 'copy':
          return await this.copy(base, n * batch, reps);
        case 'h2d':
          return await this.hostToDevice(base, n * batch, reps);
        case 'fft':
        case 'ifft':
        case 'rfft':
          if (reference) return none('no vendor FFT for WebGPU (cuFFT is CUDA’s)');
          return await this.transform(base, op, n, batch, reps, e2e);
        case 'spectrogram-f32':
        case 'spectrogram-i16':
          return await this.spectrogram(base, op === 'spectrogram-i16', n, batch, reps, e2e, reference);
        case 'fir-real':
        case 'fir':
          return await this.fir(base, op === 'fir', n, batch, reps, e2e, reference);
        case 'corr':
          return await this.correlate(base, n, batch, reps, e2e, reference);
        default:
          return none(`the WebGPU backend does not time ${op}`);
      }
    } finally {
      for (const buf of this.buffers) buf.destroy();
      this.buffers.length = 0;
    }
  }

  dispose(): void {
    this.timer?.destroy();
    this.timer = undefined;
    for (const buf of this.buffers) buf.destroy();
    this.buffers.length = 0;
    this.pipelines.clear();
    this.module = undefined;
  }

  private passes(): PassTimer {
    return (this.timer ??= new PassTimer(this.device));
  }

  /** A storage buffer freed after this measurement, holding `data` when given. */
  private buffer(bytes: number, data?: ArrayBufferView): GPUBuffer {
    const buf = this.device.createBuffer({
      label: 'phasor bench',
      size: Math.max(16, Math.ceil(bytes / 16) * 16),
      usage: STORAGE_USAGE,
    });
    this.buffers.push(buf);
    if (data) this.device.queue.writeBuffer(buf, 0, data.buffer, data.byteOffset, data.byteLength);
    return buf;
  }

  private async readBuffer(buf: GPUBuffer, out: Float32Array): Promise<Float32Array> {
    const bytes = Math.ceil(out.byteLength / 4) * 4;
    const rb = this.device.createBuffer({ size: Math.max(16, bytes), usage: MAP_READ | USAGE.COPY_DST });
    const enc = this.device.createCommandEncoder();
    enc.copyBufferToBuffer(buf, 0, rb, 0, bytes);
    this.device.queue.submit([enc.finish()]);
    await rb.mapAsync(MAP_READ, 0, bytes);
    out.set(new Float32Array(rb.getMappedRange(0, bytes), 0, out.length));
    rb.unmap();
    rb.destroy();
    return out;
  }

  /** Records timed compute passes (each `pass(fn)` one), submits them, returns their milliseconds. */
  private async timed(record: (pass: (fn: (job: FftJob) => void) => void) => void): Promise<number> {
    return this.b.call(async () => {
      const timer = this.passes();
      const arena = this.b.fftPlanner.arena;
      const encoder = this.device.createCommandEncoder();
      record((fn) => {
        const p = encoder.beginComputePass({ timestampWrites: timer.writes() });
        fn({ pass: p, arena });
        p.end();
      });
      timer.resolve(encoder);
      arena.flush(this.device.queue);
      this.device.queue.submit([encoder.finish()]);
      return timer.read();
    });
  }

  /** A device of the processors whose compute passes are timed into `acc.ms`: its submits run one at a
   * time (each timed before the next is recorded), in the order they are asked for. Its processors take
   * each push as one piece, so their kernels are timed over a push at once, as CUDA's device rows time
   * theirs: in pieces (two in flight, to overlap the host's copies) a push of BLOCK_VALUES ran as a full
   * piece and a sliver, a dispatch more each (the 255-tap FIR on 2^24 real samples, lent H100: 0.182 →
   * 0.229 ms). The backend's own context, which other processors use meanwhile, is left as it is. */
  private timingDevice(acc: { ms: number }): WebGpuDevice {
    const b = this.b;
    const timer = this.passes();
    const timed = async (
      record: (r: Recorder) => void,
      result?: GPUBuffer,
      reads?: readonly DeviceRead[],
    ) => {
      await b.submitRead(
        (r) => {
          const timedRecorder: Recorder = {
            encoder: r.encoder,
            compute: (fn) => {
              const pass = r.encoder.beginComputePass({ timestampWrites: timer.writes() });
              fn({ pass, arena: b.fftPlanner.arena });
              pass.end();
            },
          };
          record(timedRecorder);
          timer.resolve(r.encoder);
        },
        result,
        reads,
      );
      acc.ms += await timer.read();
    };
    let chain: Promise<unknown> = Promise.resolve();
    const submitRead = (record: (r: Recorder) => void, result?: GPUBuffer, reads?: readonly DeviceRead[]) => {
      const next = chain.then(() => timed(record, result, reads));
      chain = next.catch(() => undefined);
      return next;
    };
    const ctx: WebGpuContext = Object.create(b.ctx, { processorPieceBytes: { value: KERNEL_PIECE_BYTES } });
    return {
      ctx,
      fftPlanner: b.fftPlanner,
      work: b.work,
      windows: b.windows,
      uploads: b.uploads,
      alive: () => b.alive(),
      call: (work) => b.call(work),
      deviceInput: (input, what) => b.deviceInput(input, what),
      submitRead,
      submit: (record, result, out) => submitRead(record, result, out === undefined ? [] : [{ at: 0, out }]),
    };
  }

  private pipeline(entry: string): GPUComputePipeline {
    let p = this.pipelines.get(entry);
    if (!p) {
      if (!this.module) {
        const code = variant(shaderSource('unfused'), { WG: THREADS });
        this.module = this.device.createShaderModule({ label: 'unfused', code });
      }
      p = this.device.createComputePipeline({
        label: `unfused.${entry}`,
        layout: 'auto',
        compute: { module: this.module, entryPoint: entry },
      });
      this.pipelines.set(entry, p);
    }
    return p;
  }

  /** One dispatch of a shaders/unfused.wgsl entry over `total` invocations; bindings: index → buffer. */
  private kernel(
    job: FftJob,
    entry: string,
    total: number,
    buffers: Record<number, GPUBuffer>,
    q: UnfusedParams = {},
  ): void {
    const pipeline = this.pipeline(entry);
    const g = grid(Math.ceil(total / THREADS), this.b.ctx.limits.workgroupsPerDimension);
    const words = [total, g.x, q.n ?? 0, q.hop ?? 0, q.len ?? 0, q.seg ?? 0, q.lanes ?? 1, q.period ?? 1];
    const f = q.f ?? [];
    const entries: GPUBindGroupEntry[] = Object.entries(buffers).map(([binding, buffer]) => ({
      binding: Number(binding),
      resource: { buffer },
    }));
    entries.push({
      binding: 7,
      resource: job.arena.slot(words, [f[0] ?? 0, f[1] ?? 0, f[2] ?? 0, f[3] ?? 0]),
    });
    job.pass.setPipeline(pipeline);
    job.pass.setBindGroup(
      0,
      this.device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries }),
    );
    job.pass.dispatchWorkgroups(g.x, g.y);
  }

  /** Median of `reps` timed runs after one warm-up. */
  private async kernelMedian(reps: number, run: () => Promise<number>): Promise<number> {
    await run();
    const times: number[] = [];
    for (let i = 0; i < reps; i++) times.push(await run());
    return median(times);
  }

  private async wallMedian(reps: number, run: () => Promise<unknown>): Promise<number> {
    await run();
    const times: number[] = [];
    for (let i = 0; i < reps; i++) {
      const t0 = performance.now();
      await run();
      times.push(performance.now() - t0);
    }
    return median(times);
  }

  /**
   * A processor's stream, timed: `count` pushes of `input` (a Float32Array goes up as a DeviceArray
   * first; raw integers stay on the host, so their decode pass is timed) and the end, every compute pass
   * summed; then the same from host memory, wall clock. `open` makes the processor on the device given;
   * `kept` collects the first outputs of a timed run until `enough` says so.
   */
  private async timeStream<T>(
    open: (device: WebGpuDevice) => Stream<T>,
    input: Float32Array | RawSamples,
    count: number,
    reps: number,
    e2e: boolean,
    enough: (kept: T[]) => boolean,
  ): Promise<{ kernelMs: number; endToEndMs: number; kept: T[] }> {
    const acc = { ms: 0 };
    const proc = open(this.timingDevice(acc));
    const uploaded = input instanceof Float32Array ? await this.b.upload(input) : null;
    let kept: T[] = [];
    let kernelMs: number;
    const run = async (s: Stream<T>, x: ProcessorInput, keep: boolean) => {
      if (keep) kept = [];
      const take = (out: T | undefined) => {
        if (keep && out !== undefined && !enough(kept)) kept.push(out);
      };
      s.begin?.();
      for (let i = 0; i < count; i++) take(await s.push(x));
      take(await s.end?.());
    };
    try {
      kernelMs = await this.kernelMedian(reps, async () => {
        acc.ms = 0;
        await run(proc, uploaded ?? input, true);
        return acc.ms;
      });
    } finally {
      proc.dispose();
      uploaded?.free();
    }
    let endToEndMs = NaN;
    if (e2e) {
      const host = open(this.b);
      try {
        endToEndMs = await this.wallMedian(Math.max(3, reps >> 1), () => run(host, input, false));
      } finally {
        host.dispose();
      }
    }
    return { kernelMs, endToEndMs, kept };
  }

  /** The segment of the product's overlap-save processor (the unfused pipeline uses the same). */
  private segments(open: (device: WebGpuDevice) => Stream<unknown>): { L: number; S: number } {
    const p = open(this.b);
    p.dispose();
    return { L: p.size!, S: p.segment! };
  }

  /** `count` blocks of an unfused pipeline, one timed pass a block (`encode` records one), summed. */
  private async timeBlocks(count: number, slots: number, encode: (job: FftJob) => void): Promise<number> {
    const perSubmit = Math.max(1, Math.min(PASSES, Math.floor(this.b.fftPlanner.arena.slots / slots)));
    let ms = 0;
    for (let b0 = 0; b0 < count; b0 += perSubmit) {
      ms += await this.timed((pass) => {
        for (let b = b0; b < Math.min(count, b0 + perSubmit); b++) pass(encode);
      });
    }
    return ms;
  }

  // -------------------------------------------------------------------------------------------------
  // Ceilings

  private async copy(r: DeviceBenchResult, values: number, reps: number): Promise<DeviceBenchResult> {
    const bytes = Math.max(16, Math.floor(Math.min(this.cap(values) * 8, COPY_BYTES) / 16) * 16);
    const a = this.buffer(bytes, benchInput(bytes / 4, 3));
    const c = this.buffer(bytes);
    const ms = await this.kernelMedian(reps, () =>
      this.timed((pass) => pass((job) => this.kernel(job, 'copy4', bytes / 16, { 8: a, 9: c }))),
    );
    const check = await this.readBuffer(c, new Float32Array(Math.min(bytes / 4, 4096)));
    const want = benchInput(bytes / 4, 3);
    return {
      ...r,
      n: bytes / 8,
      batch: 1,
      kernelMs: ms,
      bytes: 2 * bytes,
      samplesPerSecond: bytes / 8 / (ms / 1000),
      relError: relL2(check, want, check.length),
    };
  }

  private async hostToDevice(r: DeviceBenchResult, values: number, reps: number): Promise<DeviceBenchResult> {
    const bytes = Math.max(16, Math.floor(Math.min(this.cap(values) * 8, COPY_BYTES) / 16) * 16);
    const host = benchInput(bytes / 4, 4);
    const dst = this.buffer(bytes);
    const queue = this.device.queue;
    const ms = await this.wallMedian(reps, () =>
      this.b.call(async () => {
        const encoder = this.device.createCommandEncoder();
        this.b.uploads.write(encoder, dst, 0, host);
        queue.submit([encoder.finish()]);
        this.b.uploads.submitted();
        await queue.onSubmittedWorkDone();
      }),
    );
    const check = await this.readBuffer(dst, new Float32Array(Math.min(bytes / 4, 4096)));
    return {
      ...r,
      n: bytes / 8,
      batch: 1,
      kernelMs: ms,
      bytes,
      samplesPerSecond: bytes / 8 / (ms / 1000),
      relError: relL2(check, host, check.length),
    };
  }

  // -------------------------------------------------------------------------------------------------
  // Transforms

  private async transform(
    r: DeviceBenchResult,
    op: 'fft' | 'ifft' | 'rfft',
    n: number,
    asked: number,
    reps: number,
    e2e: boolean,
  ): Promise<DeviceBenchResult> {
    const real = op === 'rfft';
    const inverse = op === 'ifft';
    const planner = this.b.fftPlanner;
    const batch = Math.max(1, Math.floor(this.cap(n * asked) / n));
    const inPerRow = real ? n : 2 * n;
    const bins = real ? Math.floor(n / 2) + 1 : n;
    const outPerRow = 2 * bins;
    const rowsPerChunk = Math.max(
      1,
      Math.min(batch, Math.floor(CHUNK_BYTES / (4 * Math.max(inPerRow, outPerRow)))),
    );
    const x = benchInput(rowsPerChunk * inPerRow, n + 7);
    const src = this.buffer(x.byteLength, x);
    const dst = this.buffer(rowsPerChunk * outPerRow * 4);
    const complexPlan = real ? null : planner.plan(n);
    const realPlan = real ? planner.realPlan(n) : null;
    const slots = complexPlan?.dispatches ?? realPlan!.dispatches;
    const perSubmit = Math.max(1, Math.min(PASSES, Math.floor(planner.arena.slots / slots)));
    const chunks = Math.ceil(batch / rowsPerChunk);
    const run = async () => {
      let ms = 0;
      for (let c0 = 0; c0 < chunks; c0 += perSubmit) {
        ms += await this.timed((pass) => {
          for (let c = c0; c < Math.min(chunks, c0 + perSubmit); c++) {
            const rows = Math.min(rowsPerChunk, batch - c * rowsPerChunk);
            pass((job) => {
              if (complexPlan) complexPlan.encode(job, src, 0, dst, 0, rows, inverse);
              else realPlan!.forward(job, src, 0, dst, 0, rows);
            });
          }
        });
      }
      return ms;
    };
    const kernelMs = await this.kernelMedian(reps, run);
    // float64 reference of the first rows
    const rows = Math.min(rowsPerChunk, Math.max(1, Math.ceil(32768 / n)));
    const got = await this.readBuffer(dst, new Float32Array(rows * outPerRow));
    const ref = new Float64Array(rows * outPerRow);
    const plan = getFftPlan(n);
    const cx = new Float64Array(2 * n);
    const full = new Float64Array(2 * n);
    for (let row = 0; row < rows; row++) {
      for (let i = 0; i < n; i++) {
        cx[2 * i] = real ? x[row * n + i] : x[row * 2 * n + 2 * i];
        cx[2 * i + 1] = real ? 0 : x[row * 2 * n + 2 * i + 1];
      }
      if (inverse) plan.inverse(cx, full);
      else plan.forward(cx, full);
      ref.set(full.subarray(0, outPerRow), row * outPerRow);
    }
    let endToEndMs = NaN;
    if (e2e) {
      const host = new Float32Array(batch * inPerRow);
      for (let at = 0; at < host.length; at += x.length)
        host.set(x.subarray(0, Math.min(x.length, host.length - at)), at);
      const out = new Float32Array(batch * outPerRow);
      endToEndMs = await this.wallMedian(Math.max(3, reps >> 1), () =>
        real ? this.b.rfft(host, n, { out }) : this.b.fft(host, n, { out }),
      );
    }
    return {
      ...r,
      batch,
      kernelMs,
      endToEndMs,
      bytes: batch * (inPerRow + outPerRow) * 4,
      samplesPerSecond: (n * batch) / (kernelMs / 1000),
      relError: relL2(got, ref, ref.length),
    };
  }

  // -------------------------------------------------------------------------------------------------
  // Processors: the fused ones through a timing device, the unfused pipelines below.

  /** Blocks of the stream: `count` pushes of `block` values (a multiple of `unit`), about `values` in all. */
  private blocks(values: number, unit: number): { block: number; count: number } {
    const v = this.cap(values);
    const block = Math.max(unit, Math.floor(Math.min(v, BLOCK_VALUES) / unit) * unit);
    return { block, count: Math.max(1, Math.round(v / block)) };
  }

  private async spectrogram(
    r: DeviceBenchResult,
    i16: boolean,
    n: number,
    asked: number,
    reps: number,
    e2e: boolean,
    unfused: boolean,
  ): Promise<DeviceBenchResult> {
    const hop = Math.max(1, n >> 2);
    const { block, count } = this.blocks(Math.max(asked, n), Math.max(2, hop));
    const samples = block * count;
    const floats = benchInput(block, 5);
    const ints = Int16Array.from(floats, (v) => Math.round(v * 32767));
    const values = i16 ? Float32Array.from(ints, (v) => v / 32768) : floats;
    const window = hann(n);
    const bins = Math.floor(n / 2) + 1;
    let sum = 0;
    for (const w of window) sum += w;
    const norm = 4 / (sum * sum);
    const normEdge = 1 / (sum * sum);
    const check = Math.min(4, Math.floor((block - n) / hop) + 1);
    let rows: Float32Array;
    let kernelMs: number;
    let endToEndMs = NaN;
    const raw = { data: ints, offset: 0, scale: 1 / 32768 };
    if (!unfused) {
      const config = { fft: n, hop, window, complex: false };
      const t = await this.timeStream<Float32Array>(
        (device) => {
          const p = new WebGpuSpectrogram(device, config);
          return {
            begin: () => p.reset(),
            push: async (x) => (await p.push(x)).rows,
            dispose: () => p.dispose(),
          };
        },
        i16 ? raw : floats,
        count,
        reps,
        e2e,
        (kept) => kept.length > 0,
      );
      ({ kernelMs, endToEndMs } = t);
      rows = t.kept[0];
    } else {
      const frames = Math.floor((block - n) / hop) + 1;
      const rawBuf = i16 ? this.buffer(ints.byteLength, ints) : null;
      const x = i16 ? this.buffer(block * 4) : this.buffer(block * 4, floats);
      const win = this.buffer(n * 4, window);
      const framed = this.buffer(frames * n * 4);
      const spec = this.buffer(frames * bins * 8);
      const power = this.buffer(frames * bins * 4);
      const db = this.buffer(frames * bins * 4);
      const plan = this.b.fftPlanner.realPlan(n);
      kernelMs = await this.kernelMedian(reps, () =>
        this.timeBlocks(count, plan.dispatches + 4, (job) => {
          if (rawBuf) this.kernel(job, 'decodeI16', block, { 6: rawBuf, 1: x }, { f: [1 / 32768] });
          this.kernel(job, 'frameWindow', frames * n, { 0: x, 4: win, 1: framed }, { n, hop });
          plan.forward(job, framed, 0, spec, 0, frames);
          const q = { n, period: bins, f: [norm, normEdge] };
          this.kernel(job, 'power', frames * bins, { 2: spec, 1: power }, q);
          this.kernel(job, 'toDb', frames * bins, { 0: power, 1: db }, { f: [0, 0, -300] });
        }),
      );
      rows = await this.readBuffer(db, new Float32Array(check * bins));
    }
    // the first frames in dB against float64: the worst difference
    const plan = getFftPlan(n);
    const cx = new Float64Array(2 * n);
    const X = new Float64Array(2 * n);
    let worst = 0;
    for (let f = 0; f < check; f++) {
      cx.fill(0);
      for (let i = 0; i < n; i++) cx[2 * i] = values[f * hop + i] * window[i];
      plan.forward(cx, X);
      for (let k = 0; k < bins; k++) {
        const edge = k === 0 || 2 * k === n;
        const p = ((X[2 * k] ** 2 + X[2 * k + 1] ** 2) * (edge ? 1 : 4)) / (sum * sum);
        worst = Math.max(worst, Math.abs(Math.max(10 * Math.log10(p), -300) - rows[f * bins + k]));
      }
    }
    return {
      ...r,
      batch: samples,
      kernelMs,
      endToEndMs,
      bytes: samples * (i16 ? 2 : 4) + (Math.floor((samples - n) / hop) + 1) * bins * 4,
      samplesPerSecond: samples / (kernelMs / 1000),
      relError: worst,
    };
  }

  private async fir(
    r: DeviceBenchResult,
    complex: boolean,
    n: number,
    asked: number,
    reps: number,
    e2e: boolean,
    unfused: boolean,
  ): Promise<DeviceBenchResult> {
    const V = complex ? 2 : 1;
    const taps = lowpass(n);
    const { block, count } = this.blocks(Math.max(asked, 2 * n) * V, V);
    const frames = (block / V) * count;
    const x = benchInput(block, 9);
    let check = Math.min(block / V, 16384);
    const config = { taps, complex, channels: 1, method: 'overlap-save' as const };
    const open = (device: WebGpuDevice): Stream<Float32Array> => {
      const f = new WebGpuFir(device, config);
      return {
        push: (v) => f.process(v),
        end: () => f.flush(),
        dispose: () => f.dispose(),
        size: f.size,
        segment: f.segment,
      };
    };
    let out: Float32Array;
    let kernelMs: number;
    let endToEndMs = NaN;
    if (!unfused) {
      const t = await this.timeStream(open, x, count, reps, e2e, (kept) => kept.length > 0);
      ({ kernelMs, endToEndMs } = t);
      out = t.kept[0];
    } else {
      // gather → FFT → product with the taps' spectrum → inverse FFT → scatter, per block from zero state
      const { L, S } = this.segments(open);
      const F = block / V;
      const segments = Math.ceil(F / S);
      const padded = new Float64Array(2 * L);
      for (let i = 0; i < n; i++) padded[2 * i] = taps[i];
      const spectrum = new Float64Array(2 * L);
      getFftPlan(L).forward(padded, spectrum);
      const spec = this.buffer(L * 8, Float32Array.from(spectrum));
      const xin = this.buffer(block * 4, x);
      const a = this.buffer(segments * L * 8);
      const bb = this.buffer(segments * L * 8);
      const y = this.buffer(block * 4);
      const plan = this.b.fftPlanner.plan(L);
      const q = { n, hop: F, len: L, seg: S, lanes: V, period: L };
      kernelMs = await this.kernelMedian(reps, () =>
        this.timeBlocks(count, 2 * plan.dispatches + 3, (job) => {
          this.kernel(job, 'gatherOs', segments * L, { 0: xin, 3: a }, q);
          plan.encode(job, a, 0, bb, 0, segments, false);
          this.kernel(job, 'cmul', segments * L, { 2: bb, 5: spec, 3: a }, q);
          plan.encode(job, a, 0, bb, 0, segments, true);
          this.kernel(job, 'scatterOs', F * V, { 2: bb, 1: y }, q);
        }),
      );
      out = await this.readBuffer(y, new Float32Array(check * V));
    }
    // relative L2 of the first outputs against lfilter in float64 (zero initial state)
    check = Math.min(check, Math.floor(out.length / V));
    const ref = new Float64Array(check * V);
    for (let f = 0; f < check; f++)
      for (let v = 0; v < V; v++) {
        let s = 0;
        for (let k = 0; k < n && k <= f; k++) s += taps[k] * x[(f - k) * V + v];
        ref[f * V + v] = s;
      }
    return {
      ...r,
      batch: frames,
      kernelMs,
      endToEndMs,
      bytes: 2 * frames * V * 4,
      samplesPerSecond: frames / (kernelMs / 1000),
      relError: relL2(out, ref, ref.length),
    };
  }

  private async correlate(
    r: DeviceBenchResult,
    n: number,
    asked: number,
    reps: number,
    e2e: boolean,
    unfused: boolean,
  ): Promise<DeviceBenchResult> {
    const t = benchInput(n, 12);
    const { block, count } = this.blocks(Math.max(asked, 2 * n), 1);
    const samples = block * count;
    const x = benchInput(block, 11);
    const lagsPerBlock = block - n + 1;
    const check = Math.min(lagsPerBlock, 2048);
    const config = { template: t, complex: false, scores: true };
    const open = (device: WebGpuDevice): Stream<Float32Array> => {
      const c = new WebGpuCorrelator(device, config);
      const scores = async (chunk: Promise<CorrelationChunk>) => (await chunk).scores!;
      return {
        push: (v) => scores(c.process(v)),
        end: () => scores(c.flush()),
        dispose: () => c.dispose(),
        size: c.size,
        segment: c.segment,
      };
    };
    let tt = 0;
    for (const v of t) tt += v * v;
    let scores: Float32Array;
    let kernelMs: number;
    let endToEndMs = NaN;
    if (!unfused) {
      const total = (kept: Float32Array[]) => kept.reduce((sum, p) => sum + p.length, 0);
      const timed = await this.timeStream(open, x, count, reps, e2e, (kept) => total(kept) >= check);
      ({ kernelMs, endToEndMs } = timed);
      scores = new Float32Array(total(timed.kept));
      let at = 0;
      for (const p of timed.kept) {
        scores.set(p, at);
        at += p.length;
      }
    } else {
      // gather → rfft → product with conj(T) → irfft; squares → chunk sums → window energies; scores
      const { L, S } = this.segments(open);
      const bins = L / 2 + 1;
      const segments = Math.ceil(lagsPerBlock / S);
      const padded = new Float64Array(2 * L);
      for (let k = 0; k < n; k++) padded[2 * k] = t[k];
      const full = new Float64Array(2 * L);
      getFftPlan(L).forward(padded, full);
      const conj = new Float32Array(2 * bins);
      for (let k = 0; k < bins; k++) {
        conj[2 * k] = full[2 * k];
        conj[2 * k + 1] = -full[2 * k + 1];
      }
      const spec = this.buffer(bins * 8, conj);
      const xin = this.buffer(block * 4, x);
      const rowsIn = this.buffer(segments * L * 4);
      const X = this.buffer(segments * bins * 8);
      const Y = this.buffer(segments * bins * 8);
      const corr = this.buffer(segments * L * 4);
      const sq = this.buffer(block * 4);
      const chunks = Math.ceil(block / 64);
      const sums = this.buffer(chunks * 4);
      const energy = this.buffer(lagsPerBlock * 4);
      const out = this.buffer(lagsPerBlock * 4);
      const plan = this.b.fftPlanner.realPlan(L);
      const q = { n, hop: block, len: L, seg: S, period: bins, f: [Math.sqrt(tt)] };
      kernelMs = await this.kernelMedian(reps, () =>
        this.timeBlocks(count, 2 * plan.dispatches + 6, (job) => {
          this.kernel(job, 'gatherReal', segments * L, { 0: xin, 1: rowsIn }, q);
          plan.forward(job, rowsIn, 0, X, 0, segments);
          this.kernel(job, 'cmul', segments * bins, { 2: X, 5: spec, 3: Y }, q);
          plan.inverse(job, Y, 0, corr, 0, segments);
          this.kernel(job, 'square', block, { 0: xin, 1: sq }, q);
          this.kernel(job, 'chunkSums', chunks, { 0: sq, 1: sums }, { ...q, len: block });
          this.kernel(job, 'energy', lagsPerBlock, { 0: sq, 4: sums, 1: energy }, q);
          this.kernel(job, 'score', lagsPerBlock, { 0: corr, 4: energy, 1: out }, q);
        }),
      );
      scores = await this.readBuffer(out, new Float32Array(check));
    }
    // the first lags' scores against float64: the worst difference
    let worst = 0;
    const tn = Math.sqrt(tt);
    for (let l = 0; l < check; l++) {
      let c = 0;
      let e = 0;
      for (let k = 0; k < n; k++) {
        c += x[l + k] * t[k];
        e += x[l + k] * x[l + k];
      }
      const ref = e > 0 ? Math.min(1, Math.abs(c) / (tn * Math.sqrt(e))) : 0;
      worst = Math.max(worst, Math.abs(ref - scores[l]));
    }
    return {
      ...r,
      batch: samples,
      kernelMs,
      endToEndMs,
      bytes: samples * 4 + (samples - n + 1) * 4,
      samplesPerSecond: samples / (kernelMs / 1000),
      relError: worst,
    };
  }
}
