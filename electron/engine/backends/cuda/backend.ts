// The CUDA backend: our own kernels (cuda/) through the addon (native/). Every call queues work on the
// backend's native worker thread, in call order, and returns when its results are in host memory; the
// JavaScript thread never waits on the GPU.
//
//   const a = await probeCuda();        // { available: true, device, details } | { available: false, reason }
//   const cuda = await createCudaBackend();          // throws BackendUnavailableError with the reason
//   const X = await cuda.fft(x, 4096);
//   await cuda.dispose();
//
// Reasons it may be unavailable, in words: the addon was not built (no CUDA toolkit when Phasor was
// installed), no NVIDIA driver, no CUDA device, a driver too old for the CUDA 13 runtime built in.
//
// A CUDA failure becomes BackendFailedError; a sticky one (illegal address, device lost) also marks the
// backend failed, so every later call throws at once and the engine moves the work to the next backend.

import { checkInteger, transformOutput, transformShape } from '../validate.js';
import {
  BackendFailedError,
  BackendUnavailableError,
  InvalidArgumentError,
  PhasorError,
} from '../../errors.js';
import { isRawSamples } from '../../types.js';
import type {
  ArrayInput,
  Backend,
  Correlator,
  CorrelatorConfig,
  DeviceArray,
  FirConfig,
  FirFilter,
  HostBlocks,
  ProcessorInput,
  SpectrogramConfig,
  SpectrogramProcessor,
  TransformOptions,
} from '../backend.js';
import { inputLength } from '../stream.js';
import {
  loadAddon,
  type NativeAddon,
  type NativeBenchResult,
  type NativeContext,
  type NativeDeviceBuffer,
  type NativeInput,
} from './addon.js';
import { CudaCorrelator } from './correlator.js';
import type { CudaDevice, NativeProcessorInput } from './device.js';
import { CudaFir } from './fir.js';
import { CudaSpectrogram } from './spectrogram.js';

/** Data in device memory, owned by one CUDA backend. */
export class CudaDeviceArray implements DeviceArray {
  constructor(
    readonly owner: CudaBackend,
    private buf: NativeDeviceBuffer | null,
    readonly length: number,
  ) {}

  /** The native buffer (throws once freed). */
  get native(): NativeDeviceBuffer {
    if (this.buf === null) throw new InvalidArgumentError('the DeviceArray was freed and cannot be used');
    return this.buf;
  }

  async download(out?: Float32Array): Promise<Float32Array> {
    const buf = this.native;
    if (out !== undefined && (!(out instanceof Float32Array) || out.length !== this.length)) {
      throw new InvalidArgumentError(`download: out must be a Float32Array of length ${this.length}`);
    }
    const dst = out ?? new Float32Array(this.length);
    await this.owner.call(() => this.owner.ctx.download(buf, dst));
    return dst;
  }

  free(): void {
    if (this.buf === null) return;
    const b = this.buf;
    this.buf = null;
    this.owner.ctx.free(b).catch(() => undefined);
  }
}

export class CudaBackend implements Backend, CudaDevice {
  readonly name = 'cuda' as const;
  private disposed = false;
  private failure: BackendFailedError | null = null;

  constructor(
    readonly addon: NativeAddon,
    readonly ctx: NativeContext,
    readonly device: string,
    readonly details: Record<string, string | number>,
  ) {}

  /** Throws when the backend can no longer be used. */
  alive(): void {
    if (this.failure) throw this.failure;
    if (this.disposed) throw new InvalidArgumentError('the cuda backend was disposed and cannot be used');
  }

  /** Runs a native call and awaits it, turning its failure (thrown or rejected) into the engine's typed errors. */
  async call<T>(f: () => Promise<T>): Promise<T> {
    try {
      return await f();
    } catch (err) {
      throw this.translate(err);
    }
  }

  translate(err: unknown): Error {
    if (err instanceof PhasorError) return err;
    const e = err as { code?: string; message?: string };
    const message = e?.message ?? String(err);
    switch (e?.code) {
      case 'invalid-argument':
        return new InvalidArgumentError(message);
      case 'disposed':
        return new InvalidArgumentError('the cuda backend was disposed and cannot be used');
      case 'sticky': {
        this.failure ??= new BackendFailedError('cuda', message, { sticky: true, cause: err });
        return this.failure;
      }
      default:
        return new BackendFailedError('cuda', message, { cause: err });
    }
  }

  /** The native form of an input (validating device arrays). */
  nativeInput(input: ProcessorInput, what: string): NativeProcessorInput {
    if (input instanceof Float32Array) return { data: input, offset: 0, scale: 1 };
    if (input instanceof CudaDeviceArray) {
      if (input.owner !== this)
        throw new InvalidArgumentError(`${what}: the DeviceArray belongs to another backend`);
      return { data: input.native, offset: 0, scale: 1 };
    }
    if (isRawSamples(input)) {
      const d = input.data;
      if (!(d instanceof Uint8Array || d instanceof Int8Array || d instanceof Int16Array)) {
        throw new InvalidArgumentError(`${what}: raw samples must be a Uint8Array, Int8Array or Int16Array`);
      }
      if (!Number.isFinite(input.offset) || !Number.isFinite(input.scale)) {
        throw new InvalidArgumentError(`${what}: raw samples need a finite offset and scale`);
      }
      return { data: d, offset: input.offset, scale: input.scale };
    }
    if (input && typeof input === 'object' && 'owner' in input) {
      throw new InvalidArgumentError(`${what}: the DeviceArray belongs to another backend`);
    }
    throw new InvalidArgumentError(`${what}: expected a Float32Array, a DeviceArray or raw samples`);
  }

  private arrayInput(input: ArrayInput, what: string): NativeInput {
    const n = this.nativeInput(input, what);
    if (!(input instanceof Float32Array) && !(input instanceof CudaDeviceArray)) {
      throw new InvalidArgumentError(`${what}: expected a Float32Array or a DeviceArray`);
    }
    return n.data;
  }

  /** Buffers registered with the driver (cudaHostRegister): the processors' copies up and down run by
   * DMA straight from and into them, without the staging copies on the backend's thread. */
  async hostBlocks(count: number, bytes: number): Promise<HostBlocks> {
    this.alive();
    checkInteger('hostBlocks: count', count, 0, 64);
    checkInteger('hostBlocks: bytes', bytes, 1, 2 ** 31);
    const buffers = Array.from({ length: count }, () => new ArrayBuffer(bytes));
    // queued together: the addon registers them in order on its thread
    const results = await Promise.allSettled(buffers.map((b) => this.call(() => this.ctx.pin(b))));
    let released = false;
    const release = async (): Promise<void> => {
      if (released) return;
      released = true;
      // after every call queued before it (the addon runs them in order); a no-op once disposed
      await Promise.all(buffers.map((b) => this.ctx.unpin(b).catch(() => undefined)));
    };
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) {
      await release();
      throw failed.reason;
    }
    return { buffers, release };
  }

  async upload(data: Float32Array): Promise<DeviceArray> {
    this.alive();
    if (!(data instanceof Float32Array))
      throw new InvalidArgumentError('upload: data must be a Float32Array');
    const buf = await this.call(() => this.ctx.upload(data));
    return new CudaDeviceArray(this, buf, data.length);
  }

  /** Runs a transform; an output sharing memory with a host input gets a temporary (the copies overlap). */
  private async transform(
    op: number,
    input: ArrayInput,
    n: number,
    out: Float32Array,
    what: string,
  ): Promise<void> {
    const x = this.arrayInput(input, `${what} input`);
    if (out.length === 0) return;
    if (input instanceof Float32Array && input.buffer === out.buffer) {
      const tmp = new Float32Array(out.length);
      await this.call(() => this.ctx.transform(op, x, n, tmp));
      out.set(tmp);
      return;
    }
    await this.call(() => this.ctx.transform(op, x, n, out));
  }

  async fft(
    input: ArrayInput,
    n: number,
    options?: TransformOptions & { inverse?: boolean },
  ): Promise<Float32Array> {
    this.alive();
    const { outLength } = transformShape('fft', n, inputLength(input));
    const out = transformOutput(options?.out, outLength, 'fft');
    await this.transform(options?.inverse === true ? 1 : 0, input, n, out, 'fft');
    return out;
  }

  async rfft(input: ArrayInput, n: number, options?: TransformOptions): Promise<Float32Array> {
    this.alive();
    const { outLength } = transformShape('rfft', n, inputLength(input));
    const out = transformOutput(options?.out, outLength, 'rfft');
    await this.transform(2, input, n, out, 'rfft');
    return out;
  }

  async irfft(input: ArrayInput, n: number, options?: TransformOptions): Promise<Float32Array> {
    this.alive();
    const { outLength } = transformShape('irfft', n, inputLength(input));
    const out = transformOutput(options?.out, outLength, 'irfft');
    await this.transform(3, input, n, out, 'irfft');
    return out;
  }

  /** 2D FFT of `rows × cols` complex arrays (a batch of them), for the benchmark. */
  async fft2(
    input: ArrayInput,
    rows: number,
    cols: number,
    options?: TransformOptions & { inverse?: boolean },
  ): Promise<Float32Array> {
    this.alive();
    checkInteger('fft2: rows', rows, 1, 16384);
    checkInteger('fft2: cols', cols, 1, 16384);
    const len = inputLength(input);
    if (len % (2 * rows * cols) !== 0) {
      throw new InvalidArgumentError(
        `fft2: input length ${len} is not a multiple of 2·rows·cols = ${2 * rows * cols}`,
      );
    }
    const out = transformOutput(options?.out, len, 'fft2');
    const x = this.arrayInput(input, 'fft2 input');
    await this.call(() => this.ctx.fft2(x, rows, cols, options?.inverse === true, out));
    return out;
  }

  /**
   * One benchmark measurement on the device, timed natively with CUDA events (cuda/devtimer.cu):
   * kernel-only milliseconds (data already on the device, median of `reps` after two warm-ups) and
   * end-to-end milliseconds (from pinned host memory and back), samples/s, bytes moved and the error
   * against float64. `cufft: true` measures the reference instead: raw cuFFT for transforms, the unfused
   * cuFFT pipelines for the processors; when libcufft is absent the result says so (available: false).
   *
   * op / n / batch: 'fft' | 'ifft' | 'rfft' (size n, batch transforms), 'fft2' (n × n, batch),
   * 'spectrogram-f32' | 'spectrogram-i16' (fft n, hop n/4, batch = samples), 'fir' (n taps, batch complex
   * samples), 'fir-real' | 'fir-direct' | 'fir-os' (real), 'corr' | 'corr-complex' (template n, batch
   * samples), 'copy' | 'h2d' | 'd2h' (n·batch complex values: the bandwidth ceilings). 'ifft', 'fft2',
   * 'fir-direct', 'fir-os', 'corr-complex' and 'd2h' are measurement-only: the shipping addon answers them
   * with available: false, the bench build (node native/build.mjs --bench) measures them.
   */
  async benchmark(
    op: string,
    n: number,
    batch: number,
    cufft = false,
    options: { reps?: number; endToEnd?: boolean } = {},
  ): Promise<NativeBenchResult> {
    this.alive();
    checkInteger('benchmark: n', n, 1, Number.MAX_SAFE_INTEGER);
    checkInteger('benchmark: batch', batch, 1, Number.MAX_SAFE_INTEGER);
    return this.call(() =>
      this.ctx.benchmark(op, n, batch, cufft, options.reps ?? 10, options.endToEnd ?? true),
    );
  }

  /** For tests of the failover path: makes the device fail with a sticky error (an illegal address). */
  async injectFault(): Promise<void> {
    this.alive();
    await this.call(() => this.ctx.injectFault());
  }

  createSpectrogram(config: SpectrogramConfig): SpectrogramProcessor {
    this.alive();
    return new CudaSpectrogram(this, config);
  }

  createFir(config: FirConfig): FirFilter {
    this.alive();
    return new CudaFir(this, config);
  }

  createCorrelator(config: CorrelatorConfig): Correlator {
    this.alive();
    return new CudaCorrelator(this, config);
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.ctx.dispose().catch(() => undefined);
  }
}

export type CudaAvailability =
  | { available: true; device: string; details: Record<string, string | number> }
  | { available: false; reason: string };

export interface CudaBackendOptions {
  /** CUDA device number (default 0). */
  device?: number;
}

/** Whether the CUDA backend can run here, and why not. Never throws. */
export async function probeCuda(options: CudaBackendOptions = {}): Promise<CudaAvailability> {
  const load = loadAddon();
  if (!load.addon) return { available: false, reason: load.reason };
  try {
    const a = load.addon;
    const device = options.device ?? 0;
    // off the JavaScript thread: the driver's first start takes 100–250 ms
    const p = a.probeAsync ? await a.probeAsync(device) : a.probe(device);
    if (!p.available) return { available: false, reason: p.reason ?? 'unknown reason' };
    return {
      available: true,
      device: p.device ?? 'CUDA device',
      details: { ...(p.details ?? {}), addon: load.path },
    };
  } catch (err) {
    return {
      available: false,
      reason: `the CUDA probe failed: ${err instanceof Error ? err.message : String(err)}`,
    };
  }
}

/** Creates the CUDA backend (name 'cuda'); throws BackendUnavailableError with the reason when it cannot. */
export async function createCudaBackend(options: CudaBackendOptions = {}): Promise<Backend & CudaBackend> {
  const probe = await probeCuda(options);
  if (!probe.available) throw new BackendUnavailableError('cuda', probe.reason);
  const addon = loadAddon().addon!;
  const ctx = new addon.Context();
  try {
    const info = await ctx.init(options.device ?? 0);
    return new CudaBackend(addon, ctx, info.device, { ...info.details, addon: String(probe.details.addon) });
  } catch (err) {
    await ctx.dispose().catch(() => undefined);
    const message = err instanceof Error ? err.message : String(err);
    throw new BackendUnavailableError('cuda', `the CUDA device could not be opened: ${message}`);
  }
}
