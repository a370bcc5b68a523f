// The CPU backend: float32 in and out, large batches spread over a pool of worker threads
// (os.availableParallelism() by default), small jobs on the calling thread. With precision 'single' (the
// default) power-of-two transforms up to SIMD_MAX_SIZE (2^20) — FFT jobs, overlap-save FIR, FFT
// correlation, spectrogram frames — run in float32 on WebAssembly SIMD kernels (kernels32.ts,
// native/wasm/); every other size, direct-form FIR and direct correlation stay in float64. 'double'
// computes everything in float64 (the reference path).
//
//   const cpu = await createCpuBackend();            // { threads?, workerUrl?, precision? }
//   const X = await cpu.fft(x, 1024);                // batch = x.length / (2·1024)
//   const spec = cpu.createSpectrogram({ fft: 4096, hop: 1024, window, complex: false });
//   const rows = await spec.push(samples);
//   await cpu.dispose();                             // terminates the workers
//
// `threads: 0` computes everything on the calling thread (no workers). `workerUrl` overrides the worker
// script (an Electron bundle passes its own); by default the .js sibling of this module is used, or the
// .ts sibling through tsx when running from sources.

import os from 'node:os';
import { InvalidArgumentError } from '../../errors.js';
import { checkInteger, transformOutput, transformShape } from '../validate.js';
import type {
  ArrayInput,
  Backend,
  CorrelatorConfig,
  Correlator,
  DeviceArray,
  FirConfig,
  FirFilter,
  SpectrogramConfig,
  SpectrogramProcessor,
  TransformOptions,
} from '../backend.js';
import { CpuCorrelator } from './correlator.js';
import { CpuDeviceArray, Executor, INLINE_COST_LIMIT, fftCost } from './executor.js';
import { CpuFir } from './fir.js';
import type { Job } from './jobs.js';
import { WorkerPool, defaultWorkerSpec } from './pool.js';
import { CpuSpectrogram } from './spectrogram.js';
import { simdKernels, simdUnavailableReason } from './simd.js';
import { cpuPrecisions, defaultCpuPrecision, type CpuPrecision } from './precision.js';

export interface CpuBackendOptions {
  /** Worker threads for large jobs; default os.availableParallelism(). 0 = compute on the calling thread. */
  threads?: number;
  /** The worker script, e.g. inside an Electron bundle. */
  workerUrl?: URL;
  /** Jobs estimated cheaper than this stay on the calling thread (default INLINE_COST_LIMIT). */
  inlineCostLimit?: number;
  /** 'single' (default): power-of-two transforms in float32 SIMD; 'double': float64 throughout. */
  precision?: CpuPrecision;
}

export { cpuPrecisions, type CpuPrecision } from './precision.js';

class CpuBackend implements Backend {
  readonly name = 'cpu' as const;
  readonly device: string;
  readonly details: Record<string, string | number>;
  private readonly exec: Executor;
  private disposed = false;

  get pool(): WorkerPool | null {
    return this.exec.pool;
  }

  readonly precision: CpuPrecision;

  constructor(threads: number, pool: WorkerPool | null, inlineLimit: number, precision: CpuPrecision) {
    const model = os.cpus()[0]?.model?.trim() ?? 'unknown CPU';
    this.device = `CPU: ${threads} worker thread${threads === 1 ? '' : 's'} (${model})`;
    // Single precision needs the SIMD kernels; where they cannot load, the backend computes in float64.
    const missing = precision === 'single' && simdKernels() === null ? simdUnavailableReason() : '';
    this.precision = missing !== '' ? 'double' : precision;
    this.details = {
      threads,
      cores: os.availableParallelism(),
      model,
      precision:
        this.precision === 'single'
          ? 'float32 WebAssembly SIMD for power-of-two transforms, float64 otherwise; float32 I/O'
          : `float64 inside, float32 I/O${missing !== '' ? ` (float32 SIMD unavailable: ${missing})` : ''}`,
    };
    this.exec = new Executor(this, pool, inlineLimit, this.precision === 'single');
  }

  private alive(): void {
    if (this.disposed) throw new InvalidArgumentError('the cpu backend was disposed and cannot be used');
  }

  async upload(data: Float32Array): Promise<DeviceArray> {
    this.alive();
    if (!(data instanceof Float32Array))
      throw new InvalidArgumentError('upload: data must be a Float32Array');
    // With a pool, keep uploaded data in shared memory: pool jobs then read it without a copy.
    const copy = this.exec.pool !== null ? this.exec.f32(data.length, true) : new Float32Array(data.length);
    copy.set(data);
    return new CpuDeviceArray(this, copy);
  }

  async fft(
    input: ArrayInput,
    n: number,
    options?: TransformOptions & { inverse?: boolean },
  ): Promise<Float32Array> {
    this.alive();
    const x = this.exec.hostArray(input, 'fft input');
    const { batch, outLength } = transformShape('fft', n, x.length);
    n = n | 0; // a double-valued size (2 ** k) would slow the kernels' index arithmetic
    const out = transformOutput(options?.out, outLength, 'fft');
    await this.transform(
      {
        kind: 'fft',
        n,
        inverse: options?.inverse === true,
        single: this.exec.single32(n),
        input: x,
        output: out,
      },
      batch,
      batch * fftCost(n),
      x,
      out,
    );
    return out;
  }

  async rfft(input: ArrayInput, n: number, options?: TransformOptions): Promise<Float32Array> {
    this.alive();
    const x = this.exec.hostArray(input, 'rfft input');
    const { batch, outLength } = transformShape('rfft', n, x.length);
    n = n | 0;
    const out = transformOutput(options?.out, outLength, 'rfft');
    await this.transform(
      { kind: 'rfft', n, single: this.exec.single32(n, 4), input: x, output: out },
      batch,
      batch * fftCost(n) * 0.6,
      x,
      out,
    );
    return out;
  }

  async irfft(input: ArrayInput, n: number, options?: TransformOptions): Promise<Float32Array> {
    this.alive();
    const x = this.exec.hostArray(input, 'irfft input');
    const { batch, outLength } = transformShape('irfft', n, x.length);
    n = n | 0;
    const out = transformOutput(options?.out, outLength, 'irfft');
    await this.transform(
      { kind: 'irfft', n, single: this.exec.single32(n, 4), input: x, output: out },
      batch,
      batch * fftCost(n) * 0.6,
      x,
      out,
    );
    return out;
  }

  /**
   * Runs a batched transform inline on the caller's arrays, or on the pool. The pool reads and writes shared
   * memory: arrays already backed by a SharedArrayBuffer are used as they are, others go through reused
   * shared staging buffers (one copy in, one copy out).
   */
  private async transform(
    job: Job & { input: Float32Array; output: Float32Array },
    batch: number,
    cost: number,
    input: Float32Array,
    out: Float32Array,
  ): Promise<void> {
    if (batch === 0) return;
    const shared = this.exec.shared(cost);
    if (!shared) {
      // rfft/irfft change the length, so an output sharing memory with the input gets a temporary.
      if (job.kind !== 'fft' && out.buffer === input.buffer) {
        const tmp = new Float32Array(out.length);
        job.output = tmp;
        await this.exec.run(job, batch, false);
        out.set(tmp);
        return;
      }
      await this.exec.run(job, batch, false);
      return;
    }
    const inShared = input.buffer instanceof SharedArrayBuffer;
    // A shared output can be written directly unless it overlaps a shared input of a length-changing job.
    const outShared =
      out.buffer instanceof SharedArrayBuffer && (job.kind === 'fft' || out.buffer !== input.buffer);
    job.input = inShared ? input : this.exec.sharedCopy(input);
    job.output = outShared ? out : this.exec.stagingF32(out.length, true);
    try {
      await this.exec.run(job, batch, true);
      if (!outShared) out.set(job.output);
    } finally {
      this.exec.release(inShared ? null : job.input, outShared ? null : job.output);
    }
  }

  createSpectrogram(config: SpectrogramConfig): SpectrogramProcessor {
    this.alive();
    return new CpuSpectrogram(this.exec, config);
  }

  createFir(config: FirConfig): FirFilter {
    this.alive();
    return new CpuFir(this.exec, config);
  }

  createCorrelator(config: CorrelatorConfig): Correlator {
    this.alive();
    return new CpuCorrelator(this.exec, config);
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.exec.pool?.dispose();
  }
}

/**
 * The worker pool of a CPU backend (null for `threads: 0` or another backend), for benchmarks that report
 * the workers' CPU time (pool.measure / pool.collected) or start them ahead of timing (pool.warm).
 */
export function cpuBackendPool(backend: Backend): WorkerPool | null {
  return backend instanceof CpuBackend ? backend.pool : null;
}

/** The precision a CPU backend computes in (null for another backend). */
export function cpuBackendPrecision(backend: Backend): CpuPrecision | null {
  return backend instanceof CpuBackend ? backend.precision : null;
}

/** Creates the CPU backend (always available). */
export async function createCpuBackend(options: CpuBackendOptions = {}): Promise<Backend> {
  const threads = options.threads ?? os.availableParallelism();
  checkInteger('cpu backend: threads', threads, 0, 1024);
  const inlineLimit = options.inlineCostLimit ?? undefined;
  if (inlineLimit !== undefined && !(inlineLimit >= 0)) {
    throw new InvalidArgumentError('cpu backend: inlineCostLimit must be ≥ 0');
  }
  if (options.workerUrl !== undefined && !(options.workerUrl instanceof URL)) {
    throw new InvalidArgumentError('cpu backend: workerUrl must be a URL');
  }
  const precision = options.precision ?? defaultCpuPrecision;
  if (!cpuPrecisions.includes(precision)) {
    throw new InvalidArgumentError(
      `cpu backend: precision must be single or double, got "${String(precision)}"`,
    );
  }
  const spec = options.workerUrl ? { url: options.workerUrl } : defaultWorkerSpec();
  const pool = threads > 0 ? new WorkerPool(threads, spec) : null;
  return new CpuBackend(threads, pool, inlineLimit ?? INLINE_COST_LIMIT, precision);
}
