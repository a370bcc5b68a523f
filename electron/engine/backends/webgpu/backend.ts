// The WebGPU backend: the Backend interface over Dawn (Node), its FFTs in shaders/*.wgsl.
//
//   const gpu = await createWebGpuBackend();        // throws BackendUnavailableError with the reason
//   const X = await gpu.fft(x, 1024);               // batch × 1024 interleaved complex, float32
//   const d = await gpu.upload(x); await gpu.fft(d, 1024); d.free();
//   await gpu.dispose();
//
// Calls run one at a time (in order). Host arrays go up through mapped staging buffers (HostUploads) and
// come back through MAP_READ buffers; batches run in pieces of whole transforms (the context's pieceBytes,
// two in flight), so buffers stay far below the adapter's limits. A lost device or a GPU error marks the
// backend failed (BackendFailedError, sticky): the failover moves the work to the next backend.

import { InvalidArgumentError, PhasorError } from '../../errors.js';
import type {
  ArrayInput,
  Backend,
  Correlator,
  CorrelatorConfig,
  DeviceArray,
  FirConfig,
  FirFilter,
  SpectrogramConfig,
  SpectrogramProcessor,
  TransformOptions,
} from '../backend.js';
import { transformOutput, transformShape } from '../validate.js';
import { isRawSamples } from '../../types.js';
import type { WebGpuContext } from './device.js';
import { WebGpuFft, type FftJob } from './fft.js';
import { BufferPool, HostUploads, MAP_READ, ScratchBuffers, STORAGE_USAGE, USAGE } from './gpu.js';
import {
  inFlight,
  type DeviceInput,
  type DeviceRead,
  type Recorder,
  type WebGpuDevice,
} from './processor.js';
import { WebGpuSpectrogram } from './spectrogram.js';
import { WebGpuFir } from './fir.js';
import { WebGpuCorrelator } from './correlator.js';
import { WebGpuDeviceTimer } from './devtimer.js';

/** Bytes of the largest chunk of a batch sent in one submit (input, output and scratch each). */
export const CHUNK_BYTES = 64 * 1024 * 1024;

export class WebGpuDeviceArray implements DeviceArray {
  private buf: GPUBuffer | null;

  constructor(
    readonly owner: WebGpuBackend,
    buffer: GPUBuffer,
    readonly length: number,
  ) {
    this.buf = buffer;
  }

  /** The device buffer (throws once freed). */
  get buffer(): GPUBuffer {
    if (this.buf === null) throw new InvalidArgumentError('the DeviceArray was freed and cannot be used');
    return this.buf;
  }

  async download(out?: Float32Array): Promise<Float32Array> {
    if (out !== undefined && (!(out instanceof Float32Array) || out.length !== this.length)) {
      throw new InvalidArgumentError(`download: out must be a Float32Array of length ${this.length}`);
    }
    const dst = out ?? new Float32Array(this.length);
    await this.owner.download(this.buffer, dst);
    return dst;
  }

  free(): void {
    this.buf?.destroy();
    this.buf = null;
  }
}

/** Where a transform's input lives: a device buffer and an offset in floats, for one chunk of rows. */
type Source = { buffer: GPUBuffer; base: number };

export class WebGpuBackend implements Backend, WebGpuDevice {
  readonly name = 'webgpu' as const;
  readonly device: string;
  readonly details: Record<string, string | number>;
  readonly ctx: WebGpuContext;
  readonly fftPlanner: WebGpuFft;
  private readonly io: ScratchBuffers;
  readonly work: ScratchBuffers;
  readonly windows: BufferPool;
  readonly uploads: HostUploads;
  private readonly readbacks: (GPUBuffer | undefined)[] = [];
  /** submitRead: the next readback slot, and which slots hold a read not yet settled. */
  private readTurn = 0;
  private readonly reading = [false, false];
  private queue: Promise<unknown> = Promise.resolve();
  private disposed = false;
  /** Device-timed measurements for `phasor bench` (devtimer.ts): only where the adapter has timestamps. */
  readonly benchmark?: WebGpuDeviceTimer['benchmark'];
  private readonly timer?: WebGpuDeviceTimer;

  constructor(ctx: WebGpuContext) {
    this.ctx = ctx;
    this.device = ctx.name;
    this.fftPlanner = new WebGpuFft(ctx);
    this.io = new ScratchBuffers(ctx.device);
    this.work = new ScratchBuffers(ctx.device);
    this.windows = new BufferPool(ctx.device);
    this.uploads = new HostUploads(ctx.device);
    this.details = {
      ...ctx.details,
      onePassFft: this.fftPlanner.onePassMax,
      maxFft: this.fftPlanner.maxSize,
    };
    if (ctx.timestamps) {
      const timer = (this.timer = new WebGpuDeviceTimer(this));
      this.benchmark = (...args) => timer.benchmark(...args);
    }
  }

  /** The largest transform size on this adapter. */
  get maxFft(): number {
    return this.fftPlanner.maxSize;
  }

  alive(): void {
    this.ctx.check();
    if (this.disposed) throw new InvalidArgumentError('the webgpu backend was disposed and cannot be used');
  }

  /** Runs `work` after every earlier call; GPU errors (lost device, validation, out of memory) become a
   * sticky BackendFailedError. */
  call<T>(work: () => Promise<T>): Promise<T> {
    return this.serial(work);
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(async () => {
      this.alive();
      const device = this.ctx.device;
      device.pushErrorScope('internal');
      device.pushErrorScope('out-of-memory');
      device.pushErrorScope('validation');
      let result: T | undefined;
      let thrown: { err: unknown } | undefined;
      try {
        result = await work();
      } catch (err) {
        thrown = { err };
      }
      // The device's own report (validation, out of memory, internal) names the cause best: a failed
      // mapping or copy after it often throws a DOMException with no message.
      const errors = await Promise.all([
        device.popErrorScope(),
        device.popErrorScope(),
        device.popErrorScope(),
      ]);
      const scoped = errors.find((x) => x !== null);
      if (scoped) this.ctx.fail(`${scoped.constructor.name}: ${scoped.message}`, thrown?.err);
      if (thrown && thrown.err instanceof PhasorError) throw thrown.err;
      if (thrown) {
        this.ctx.check();
        throw this.ctx.fail(describeError(thrown.err), thrown.err);
      }
      this.ctx.check();
      return result as T;
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  private checkInput(input: ArrayInput, what: string): void {
    if (input instanceof Float32Array) return;
    if (input instanceof WebGpuDeviceArray) {
      if (input.owner !== this)
        throw new InvalidArgumentError(`${what}: the DeviceArray belongs to another backend`);
      return;
    }
    if (typeof input === 'object' && input !== null && 'owner' in input) {
      throw new InvalidArgumentError(`${what}: the DeviceArray belongs to another backend`);
    }
    throw new InvalidArgumentError(`${what}: expected a Float32Array or a DeviceArray`);
  }

  /** Sizes above this adapter's largest transform are refused with the limit named. */
  private checkSize(what: string, n: number): void {
    if (n > this.maxFft) {
      throw new InvalidArgumentError(
        `${what}: n = ${n} is above the largest WebGPU transform on this adapter (${this.maxFft})`,
      );
    }
  }

  async upload(data: Float32Array): Promise<DeviceArray> {
    this.alive();
    if (!(data instanceof Float32Array))
      throw new InvalidArgumentError('upload: data must be a Float32Array');
    if (data.byteLength > this.ctx.limits.storageBinding) {
      throw new InvalidArgumentError(
        `upload: ${data.byteLength} bytes is above the largest WebGPU buffer here (${this.ctx.limits.storageBinding})`,
      );
    }
    return this.serial(async () => {
      const buffer = this.ctx.device.createBuffer({
        label: 'phasor array',
        size: Math.max(8, Math.ceil(data.byteLength / 8) * 8),
        usage: STORAGE_USAGE,
      });
      const encoder = this.ctx.device.createCommandEncoder();
      this.uploads.write(encoder, buffer, 0, data);
      this.ctx.device.queue.submit([encoder.finish()]);
      this.uploads.submitted();
      return new WebGpuDeviceArray(this, buffer, data.length);
    });
  }

  /** Copies `out.length` floats from the start of `buffer` to host memory, in pieces two in flight. */
  download(buffer: GPUBuffer, out: Float32Array): Promise<void> {
    return this.serial(() => {
      const per = CHUNK_BYTES / 4;
      return inFlight(Math.ceil(out.length / per), (i) =>
        this.submitRead(() => undefined, buffer, [
          { at: i * per, out: out.subarray(i * per, Math.min(out.length, (i + 1) * per)) },
        ]),
      );
    });
  }

  /**
   * Runs a batch in pieces of whole rows, two in flight: each piece's input (inPerRow floats a row) is
   * bound from the DeviceArray or staged into an input buffer, `encode` records the kernels, and the
   * outPerRow floats a row come back into `out`. While the GPU runs piece k, the host stages piece k+1's
   * input; while it runs k+1, the host copies piece k's output out (both copies are the host's memcpy,
   * the GPU's part hides behind them).
   */
  private async batched(
    input: ArrayInput,
    rows: number,
    inPerRow: number,
    outPerRow: number,
    scratchPerRow: number,
    dispatches: number,
    out: Float32Array,
    encode: (job: FftJob, src: Source, dst: GPUBuffer, rows: number) => void,
  ): Promise<void> {
    if (rows === 0) return;
    const perRow = 4 * Math.max(inPerRow, outPerRow, 2 * scratchPerRow, 1);
    const chunk = Math.max(1, Math.floor(this.ctx.pieceBytes / perRow));
    if (perRow > this.ctx.limits.storageBinding) {
      throw new InvalidArgumentError(
        `one transform needs ${perRow} bytes, above the largest WebGPU buffer here`,
      );
    }
    const planner = this.fftPlanner;
    await inFlight(Math.ceil(rows / chunk), (piece) => {
      const r0 = piece * chunk;
      const count = Math.min(chunk, rows - r0);
      const slot = piece % 2;
      const dst = this.io.get(2 * slot + 1, Math.max(8, count * outPerRow * 4));
      if (planner.arena.remaining < dispatches) throw new Error('too many dispatches for one submit');
      return this.submitRead(
        (r) => {
          let src: Source;
          if (input instanceof Float32Array) {
            const buffer = this.io.get(2 * slot, Math.max(8, count * inPerRow * 4));
            this.uploads.write(r.encoder, buffer, 0, input.subarray(r0 * inPerRow, (r0 + count) * inPerRow));
            src = { buffer, base: 0 };
          } else {
            src = { buffer: (input as WebGpuDeviceArray).buffer, base: r0 * inPerRow };
          }
          r.compute((job) => encode(job, src, dst, count));
        },
        dst,
        [{ at: 0, out: out.subarray(r0 * outPerRow, (r0 + count) * outPerRow) }],
      );
    });
  }

  /** The readback buffer of submitRead's slot (0 or 1), at least `bytes` long. */
  private pieceReadback(slot: number, bytes: number): GPUBuffer {
    const have = this.readbacks[slot];
    if (have && have.size >= bytes) return have;
    have?.destroy();
    let size = 256;
    while (size < bytes) size *= 2;
    const b = this.ctx.device.createBuffer({
      label: `phasor readback ${slot}`,
      size,
      usage: MAP_READ | USAGE.COPY_DST,
    });
    this.readbacks[slot] = b;
    return b;
  }

  async fft(
    input: ArrayInput,
    n: number,
    options?: TransformOptions & { inverse?: boolean },
  ): Promise<Float32Array> {
    this.alive();
    this.checkInput(input, 'fft input');
    const { batch, outLength } = transformShape('fft', n, input.length);
    this.checkSize('fft', n);
    const out = transformOutput(options?.out, outLength, 'fft');
    const inverse = options?.inverse === true;
    const plan = this.fftPlanner.plan(n);
    await this.serial(() =>
      this.batched(
        input,
        batch,
        2 * n,
        2 * n,
        plan.scratchPerRow,
        plan.dispatches,
        out,
        (job, src, dst, rows) => plan.encode(job, src.buffer, src.base / 2, dst, 0, rows, inverse),
      ),
    );
    return out;
  }

  async rfft(input: ArrayInput, n: number, options?: TransformOptions): Promise<Float32Array> {
    this.alive();
    this.checkInput(input, 'rfft input');
    const { batch, outLength } = transformShape('rfft', n, input.length);
    this.checkSize('rfft', n);
    const out = transformOutput(options?.out, outLength, 'rfft');
    const plan = this.fftPlanner.realPlan(n);
    await this.serial(() =>
      this.batched(
        input,
        batch,
        n,
        2 * plan.bins,
        plan.scratchPerRow,
        plan.dispatches,
        out,
        (job, src, dst, rows) => plan.forward(job, src.buffer, src.base, dst, 0, rows),
      ),
    );
    return out;
  }

  async irfft(input: ArrayInput, n: number, options?: TransformOptions): Promise<Float32Array> {
    this.alive();
    this.checkInput(input, 'irfft input');
    const { batch: rows, outLength } = transformShape('irfft', n, input.length);
    this.checkSize('irfft', n);
    const out = transformOutput(options?.out, outLength, 'irfft');
    const plan = this.fftPlanner.realPlan(n);
    const bins = plan.bins;
    await this.serial(() =>
      this.batched(input, rows, 2 * bins, n, plan.scratchPerRow, plan.dispatches, out, (job, src, dst, r) =>
        plan.inverse(job, src.buffer, src.base / 2, dst, 0, r),
      ),
    );
    return out;
  }

  deviceInput(input: unknown, what: string): DeviceInput {
    if (input instanceof Float32Array) return { kind: 'host', data: input, length: input.length };
    if (input instanceof WebGpuDeviceArray) {
      if (input.owner !== this)
        throw new InvalidArgumentError(`${what}: the DeviceArray belongs to another backend`);
      return { kind: 'device', buffer: input.buffer, length: input.length };
    }
    if (isRawSamples(input)) {
      const d = input.data;
      if (!(d instanceof Uint8Array || d instanceof Int8Array || d instanceof Int16Array)) {
        throw new InvalidArgumentError(`${what}: raw samples must be a Uint8Array, Int8Array or Int16Array`);
      }
      if (!Number.isFinite(input.offset) || !Number.isFinite(input.scale)) {
        throw new InvalidArgumentError(`${what}: raw samples need a finite offset and scale`);
      }
      return { kind: 'raw', data: d, offset: input.offset, scale: input.scale, length: d.length };
    }
    if (input && typeof input === 'object' && 'owner' in input) {
      throw new InvalidArgumentError(`${what}: the DeviceArray belongs to another backend`);
    }
    throw new InvalidArgumentError(`${what}: expected a Float32Array, a DeviceArray or raw samples`);
  }

  submit(record: (r: Recorder) => void, result?: GPUBuffer, out?: Float32Array): Promise<void> {
    return this.submitRead(record, result, out === undefined ? [] : [{ at: 0, out }]);
  }

  submitRead(
    record: (r: Recorder) => void,
    result?: GPUBuffer,
    reads: readonly DeviceRead[] = [],
  ): Promise<void> {
    const device = this.ctx.device;
    const arena = this.fftPlanner.arena;
    const encoder = device.createCommandEncoder();
    record({
      encoder,
      compute: (fn) => {
        const pass = encoder.beginComputePass();
        fn({ pass, arena });
        pass.end();
      },
    });
    let bytes = 0;
    for (const r of reads) bytes += r.out.length * 4;
    let slot = -1;
    if (result !== undefined && bytes > 0) {
      slot = this.readTurn++ % 2;
      if (this.reading[slot]) throw new Error('internal: more than two processor reads in flight');
      const rb = this.pieceReadback(slot, bytes);
      let o = 0;
      for (const r of reads) {
        const n = r.out.length * 4;
        if (n > 0) encoder.copyBufferToBuffer(result, r.at * 4, rb, o, n);
        o += n;
      }
    }
    arena.flush(device.queue);
    device.queue.submit([encoder.finish()]);
    this.uploads.submitted();
    if (slot < 0) return Promise.resolve();
    const rb = this.readbacks[slot]!;
    this.reading[slot] = true;
    return (async () => {
      try {
        await rb.mapAsync(MAP_READ, 0, bytes);
        try {
          const all = new Float32Array(rb.getMappedRange(0, bytes));
          let o = 0;
          for (const r of reads) {
            r.out.set(all.subarray(o, o + r.out.length));
            o += r.out.length;
          }
        } finally {
          rb.unmap();
        }
      } finally {
        this.reading[slot] = false;
      }
    })();
  }

  createSpectrogram(config: SpectrogramConfig): SpectrogramProcessor {
    this.alive();
    return new WebGpuSpectrogram(this, config);
  }

  createFir(config: FirConfig): FirFilter {
    this.alive();
    return new WebGpuFir(this, config);
  }

  createCorrelator(config: CorrelatorConfig): Correlator {
    this.alive();
    return new WebGpuCorrelator(this, config);
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    await this.queue;
    this.disposed = true;
    this.timer?.dispose();
    this.fftPlanner.dispose();
    this.io.destroy();
    this.work.destroy();
    this.windows.destroy();
    this.uploads.destroy();
    for (const b of this.readbacks) b?.destroy();
    this.ctx.destroy();
  }
}

/** An error thrown by the WebGPU API as one line: its name and message (DOMExceptions from a failed
 * mapping carry a name and often no message). */
function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const name = err.name && err.name !== 'Error' ? err.name : '';
  if (name && err.message) return `${name}: ${err.message}`;
  return err.message || name || 'an error without a message';
}
