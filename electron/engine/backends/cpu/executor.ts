// Where a CPU job runs: small jobs on the calling thread (no copies, no messages), large ones on the
// worker pool. The split is a cost estimate (≈ floating-point operations) against INLINE_COST_LIMIT.

import { InvalidArgumentError } from '../../errors.js';
import type { ArrayInput, Backend, DeviceArray, ProcessorInput } from '../backend.js';
import { isRawSamples, toFloat32 } from '../../types.js';
import type { Job } from './jobs.js';
import { runTasks } from './kernels.js';
import type { WorkerPool } from './pool.js';
import { isPowerOfTwo } from './simd.js';

/**
 * Jobs cheaper than this (in flop-like units, see fftCost) run on the calling thread. Measured with
 * `npx tsx bench/fft/cpu-backend.ts threshold` on the 2-core development machine: a round trip through the
 * pool (copy into shared memory, wake the workers, copy back) costs 0.1–0.3 ms, and 10^6 units take
 * ≈ 0.17 ms inline (0.25 ms before the generated power-of-two kernels). With the work split over 2 workers
 * the pool wins once the inline time exceeds about twice its overhead, ≈ 2.5·10^6 units (≈ 0.45 ms); the
 * same limit bounds how long a job blocks the event loop. That machine is shared and loaded, so its wall
 * times only bracket the break-even: re-measure on an idle one before tuning.
 */
export const INLINE_COST_LIMIT = 2.5e6;

/**
 * The largest transform the float32 SIMD kernels take; larger ones stay in float64. Each thread keeps a size's
 * twiddle tables (28 bytes a point) and its scratch (16 bytes a point) in its WebAssembly memory, which never
 * shrinks: 2^20 points cost ≈ 44 MiB a thread.
 */
export const SIMD_MAX_SIZE = 1 << 20;

/** Approximate cost of one complex FFT of size n, in the units of INLINE_COST_LIMIT. */
export function fftCost(n: number): number {
  const lg = Math.log2(Math.max(2, n));
  // Sizes with a large prime factor go through Bluestein: three transforms of ≥ 2n.
  return 5 * n * lg * (isSmooth(n) ? 1 : 8);
}

function isSmooth(n: number): boolean {
  let m = n;
  for (const p of [2, 3, 5, 7]) while (m % p === 0) m /= p;
  return m < 128;
}

/**
 * Shared buffers kept for reuse between jobs, at most this many bytes in all. A fresh buffer costs a page
 * fault per 4 KiB on first touch (≈ 6 ms of CPU for 8 MiB, more than the copy itself): allocating the
 * staging buffers of every job anew made a batch on the pool cost twice the CPU time of the same batch on
 * the calling thread.
 */
const STAGING_KEEP_BYTES = 256 * 1024 * 1024;

/** Staging buffers are handed out in power-of-two sizes from this up, so that nearby sizes share them. */
const STAGING_MIN_BYTES = 64 * 1024;

export class Executor {
  /** Free shared buffers by size class (log2 of the byte length). */
  private readonly free = new Map<number, SharedArrayBuffer[]>();
  private freeBytes = 0;

  constructor(
    readonly backend: Backend,
    readonly pool: WorkerPool | null,
    readonly inlineLimit = INLINE_COST_LIMIT,
    /** Power-of-two transforms in float32 SIMD (kernels32.ts) rather than float64. */
    readonly single = false,
  ) {}

  /** True when a transform of size n (≥ min) runs in float32 SIMD: single precision and a power of two up
   * to SIMD_MAX_SIZE. */
  single32(n: number, min = 1): boolean {
    return this.single && n >= min && n <= SIMD_MAX_SIZE && isPowerOfTwo(n);
  }

  /** True when a job of this cost should run on the workers. */
  shared(cost: number): boolean {
    return this.pool !== null && cost >= this.inlineLimit;
  }

  /** A long-lived array (tables, taps): in shared memory when a pool may read it. */
  f32(length: number, shared: boolean): Float32Array {
    return shared ? new Float32Array(new SharedArrayBuffer(4 * length)) : new Float32Array(length);
  }

  f64(length: number, shared: boolean): Float64Array {
    return shared ? new Float64Array(new SharedArrayBuffer(8 * length)) : new Float64Array(length);
  }

  /**
   * A per-job array (contents undefined): for a pool job a view on a reused shared buffer, to be handed
   * back with release() once the job's results have been read; for an inline job a plain new array.
   */
  stagingF32(length: number, shared: boolean): Float32Array {
    return shared ? new Float32Array(this.lease(4 * length), 0, length) : new Float32Array(length);
  }

  stagingF64(length: number, shared: boolean): Float64Array {
    return shared ? new Float64Array(this.lease(8 * length), 0, length) : new Float64Array(length);
  }

  /** A copy of `src` in a shared staging array (the pool's "one copy in"); release() it after the job. */
  sharedCopy(src: Float32Array): Float32Array {
    const dst = this.stagingF32(src.length, true);
    dst.set(src);
    return dst;
  }

  /** Returns staging arrays to the free list (arrays not from stagingF32/F64 are ignored). */
  release(...arrays: Array<Float32Array | Float64Array | null | undefined>): void {
    for (const a of arrays) {
      const buf = a?.buffer;
      if (!(buf instanceof SharedArrayBuffer) || !this.leased.delete(buf)) continue;
      if (this.freeBytes + buf.byteLength > STAGING_KEEP_BYTES) continue;
      const cls = Math.log2(buf.byteLength);
      let list = this.free.get(cls);
      if (list === undefined) this.free.set(cls, (list = []));
      list.push(buf);
      this.freeBytes += buf.byteLength;
    }
  }

  /** Buffers handed out and not yet released, so that release() ignores any other array (weak: a job that
   * failed before releasing its buffers just lets them be collected). */
  private readonly leased = new WeakSet<SharedArrayBuffer>();

  private lease(bytes: number): SharedArrayBuffer {
    let size = STAGING_MIN_BYTES;
    while (size < bytes) size *= 2;
    const list = this.free.get(Math.log2(size));
    let buf = list?.pop();
    if (buf !== undefined) this.freeBytes -= size;
    else buf = new SharedArrayBuffer(size);
    this.leased.add(buf);
    return buf;
  }

  /** Runs the job: inline when `shared` is false (synchronously, before this returns), else on the pool. */
  async run(job: Job, tasks: number, shared: boolean): Promise<void> {
    if (!shared || this.pool === null) {
      runTasks(job, 0, tasks);
      return;
    }
    await this.pool.run(job, tasks);
  }

  /** The host array behind an ArrayInput (a Float32Array, or a DeviceArray of this backend). */
  hostArray(input: ArrayInput, what: string): Float32Array {
    if (input instanceof Float32Array) return input;
    if (input instanceof CpuDeviceArray) {
      if (input.owner !== this.backend) {
        throw new InvalidArgumentError(`${what}: the DeviceArray belongs to another backend instance`);
      }
      return input.data;
    }
    if (typeof input === 'object' && input !== null && 'owner' in input) {
      const owner = (input as DeviceArray).owner;
      throw new InvalidArgumentError(
        `${what}: the DeviceArray belongs to the ${owner?.name ?? 'another'} backend, not this cpu backend; download() it first`,
      );
    }
    throw new InvalidArgumentError(`${what} must be a Float32Array or a DeviceArray from upload()`);
  }

  /** Decodes a processor input to float32: floats as they are, DeviceArrays, raw integers via (x − offset)·scale. */
  samples(input: ProcessorInput, what: string): Float32Array {
    if (isRawSamples(input)) {
      if (!Number.isFinite(input.offset) || !Number.isFinite(input.scale)) {
        throw new InvalidArgumentError(`${what}: raw samples need a finite offset and scale`);
      }
      return toFloat32(input);
    }
    return this.hostArray(input, what);
  }
}

/** Host-resident data of the CPU backend (upload() copies, so later changes to the source do not leak in). */
export class CpuDeviceArray implements DeviceArray {
  private values: Float32Array | null;

  constructor(
    readonly owner: Backend,
    values: Float32Array,
  ) {
    this.values = values;
  }

  get length(): number {
    return this.values?.length ?? 0;
  }

  get data(): Float32Array {
    if (this.values === null) throw new InvalidArgumentError('the DeviceArray was freed and cannot be used');
    return this.values;
  }

  async download(out?: Float32Array): Promise<Float32Array> {
    const data = this.data;
    if (out === undefined) return data.slice();
    if (!(out instanceof Float32Array) || out.length !== data.length) {
      throw new InvalidArgumentError(`download: out must be a Float32Array of length ${data.length}`);
    }
    out.set(data);
    return out;
  }

  free(): void {
    this.values = null;
  }
}
