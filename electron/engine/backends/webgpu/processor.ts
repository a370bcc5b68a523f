// What a WebGPU processor needs of its backend, as a narrow interface (backend.ts implements it and creates
// the processors with itself), and the parts the processors share: the stream's kept values on the device
// (DeviceWindow), the input of a push in the form the device takes it, and the processor life cycle.
//
// A push appends its input to the window (host floats staged through HostUploads, a buffer copy for a
// DeviceArray, the decode kernel of shaders/samples.wgsl for raw integers), runs the kernels on the window,
// and keeps the values the stream layer's cursor says by copying them to the front of a second buffer.
// It runs in pieces of output (WebGpuContext.processorPieceBytes), two in flight: piece i + 1 is staged and
// submitted while piece i computes and is read back, each appending only the input its frames need.

import { InvalidArgumentError } from '../../errors.js';
import type { WebGpuContext } from './device.js';
import type { FftJob, WebGpuFft } from './fft.js';
import type { BufferPool, HostUploads, ScratchBuffers } from './gpu.js';

/** A processor input as the device takes it (validated by the backend). */
export type DeviceInput =
  | { kind: 'host'; data: Float32Array; length: number }
  | { kind: 'device'; buffer: GPUBuffer; length: number }
  | { kind: 'raw'; data: Uint8Array | Int8Array | Int16Array; offset: number; scale: number; length: number };

/** Records the commands of one submit: encoder copies, and compute passes through `compute`. */
export interface Recorder {
  encoder: GPUCommandEncoder;
  /** Runs `fn` inside a compute pass of this encoder. */
  compute(fn: (job: FftJob) => void): void;
}

export interface WebGpuDevice {
  readonly ctx: WebGpuContext;
  readonly fftPlanner: WebGpuFft;
  /** Transient buffers of the processors' calls (calls run one at a time). */
  readonly work: ScratchBuffers;
  /** The processors' stream windows, taken and given back (reused across processors). */
  readonly windows: BufferPool;
  /** Host data into device buffers, recorded in a submit's encoder. */
  readonly uploads: HostUploads;
  /** Throws when the backend can no longer be used (failed or disposed). */
  alive(): void;
  /** Runs `work` in order after every earlier call; GPU errors become a sticky BackendFailedError. */
  call<T>(work: () => Promise<T>): Promise<T>;
  /** The input of a processor in device form; throws InvalidArgumentError for what no backend accepts. */
  deviceInput(input: unknown, what: string): DeviceInput;
  /** Records with `record`, submits, and copies out.length floats from the start of `result` back. */
  submit(record: (r: Recorder) => void, result?: GPUBuffer, out?: Float32Array): Promise<void>;
  /**
   * Records with `record` and submits at once; the promise settles when each read's floats (from float
   * `at` of `result` on) are in its `out`. The readback buffers take turns: a call keeps at most two
   * reads unsettled (the next piece runs on the GPU while the last one is copied out), and settles them
   * before it ends.
   */
  submitRead(record: (r: Recorder) => void, result?: GPUBuffer, reads?: readonly DeviceRead[]): Promise<void>;
}

/** Floats of a submit's result buffer to host memory: out.length of them from float `at`. */
export interface DeviceRead {
  at: number;
  out: Float32Array;
}

/**
 * Runs a processor call's pieces with two in flight: `piece(i)` submits piece i (through submitRead) and
 * returns its read, which is awaited once piece i + 1 is submitted; every read is settled before this
 * returns or throws, so no readback buffer stays mapped.
 */
export async function inFlight(pieces: number, piece: (i: number) => Promise<void>): Promise<void> {
  let pending: Promise<void> | null = null;
  try {
    for (let i = 0; i < pieces; i++) {
      const read = piece(i);
      read.catch(() => undefined); // observed below, or settled in finally
      if (pending !== null) await pending;
      pending = read;
    }
    const last = pending;
    pending = null;
    await last;
  } finally {
    if (pending !== null) await pending.catch(() => undefined);
  }
}

const RAW_KIND = { u8: 0, i8: 1, i16: 2 } as const;

/**
 * The values a stream keeps on the device, at the front of `buffer`: `kept` values, then whatever a push
 * appends. Two buffers of the same size take turns, so keeping a tail is one copy to the other's front.
 */
export class DeviceWindow {
  private cur: GPUBuffer | null = null;
  private other: GPUBuffer | null = null;
  /** Values at the front of the buffer. */
  kept = 0;
  private clearFirst = 0;
  /** Buffers replaced by larger ones: given back once the submit that copies out of them is made. */
  private retired: GPUBuffer[] = [];

  constructor(
    private readonly device: WebGpuDevice,
    private readonly label: string,
  ) {}

  get buffer(): GPUBuffer {
    return this.cur!;
  }

  /** Forgets every value; the window then starts with `zeros` zero values (a FIR's initial state). */
  reset(zeros = 0): void {
    this.kept = zeros;
    this.clearFirst = zeros;
  }

  /** Makes room for `values` values in all (kept ones first), zeroing the initial state after a reset. */
  private ensure(enc: GPUCommandEncoder, values: number): void {
    const bytes = Math.max(256, values * 4);
    if (this.cur === null || this.cur.size < bytes) {
      const pool = this.device.windows;
      const next = pool.take(bytes, `${this.label} window`);
      const other = pool.take(bytes, `${this.label} window`);
      if (this.cur !== null && this.kept > 0 && this.clearFirst === 0)
        enc.copyBufferToBuffer(this.cur, 0, next, 0, this.kept * 4);
      if (this.cur !== null) this.retired.push(this.cur, this.other!);
      this.cur = next;
      this.other = other;
    }
    if (this.clearFirst > 0) {
      enc.clearBuffer(this.cur, 0, this.clearFirst * 4);
      this.clearFirst = 0;
    }
  }

  /**
   * Appends input values [from, to) after the kept ones; returns the values now in the window.
   * Host floats and device arrays are copied in the encoder, raw samples decoded by a kernel in the
   * recorder's first pass.
   */
  append(r: Recorder, input: DeviceInput, from: number, to = input.length): number {
    for (const b of this.retired) this.device.windows.give(b);
    this.retired = [];
    const count = Math.max(0, to - from);
    // room for the rest of the input, so appending it in pieces grows the buffers once
    this.ensure(r.encoder, this.kept + Math.max(0, input.length - from));
    const at = this.kept;
    const buffer = this.cur!;
    if (count > 0) {
      if (input.kind === 'host') {
        this.device.uploads.write(r.encoder, buffer, at * 4, input.data.subarray(from, to));
      } else if (input.kind === 'device') {
        r.encoder.copyBufferToBuffer(input.buffer, from * 4, buffer, at * 4, count * 4);
      } else {
        const d = input.data.subarray(from, to);
        const staging = this.device.work.get(7, Math.max(4, Math.ceil(d.byteLength / 4) * 4));
        this.device.uploads.write(r.encoder, staging, 0, d);
        const kind =
          d instanceof Uint8Array ? RAW_KIND.u8 : d instanceof Int8Array ? RAW_KIND.i8 : RAW_KIND.i16;
        r.compute((job) =>
          this.device.fftPlanner.elementwiseDispatch(
            job,
            'samples',
            'decode',
            count,
            [count, kind, 0, at],
            1,
            [input.offset, input.scale],
            { 0: staging, 1: buffer },
            2,
          ),
        );
      }
    }
    this.kept = at + count;
    return this.kept;
  }

  /** Drops `drop` values from the front: the rest moves to the front of the other buffer. */
  keep(r: Recorder, drop: number): void {
    const rest = this.kept - drop;
    if (rest > 0 && drop > 0) {
      r.encoder.copyBufferToBuffer(this.cur!, drop * 4, this.other!, 0, rest * 4);
      const t = this.cur;
      this.cur = this.other;
      this.other = t;
    }
    this.kept = Math.max(0, rest);
  }

  /** Gives the buffers back to the pool. */
  destroy(): void {
    const pool = this.device.windows;
    for (const b of this.retired) pool.give(b);
    this.retired = [];
    if (this.cur) pool.give(this.cur);
    if (this.other) pool.give(this.other);
    this.cur = this.other = null;
  }
}

const ignore = (): undefined => undefined;

/** The base of the WebGPU processors: their checks before each call and their life cycle. */
export abstract class WebGpuProcessor {
  protected disposed = false;

  constructor(
    protected readonly device: WebGpuDevice,
    /** How errors name the processor: 'spectrogram', 'fir' or 'correlate'. */
    protected readonly what: string,
  ) {}

  /** Throws unless this processor and its device can be used. */
  protected usable(): void {
    if (this.disposed) throw new InvalidArgumentError(`${this.what}: used after dispose()`);
    this.device.alive();
  }

  /** After usable(): the input in device form. */
  protected input(input: unknown): DeviceInput {
    this.usable();
    return this.device.deviceInput(input, `${this.what} input`);
  }

  /** Ends the stream: runs `last` (the remaining output), then resets. */
  protected ending<T>(last: () => Promise<T>): Promise<T> {
    try {
      this.usable();
    } catch (err) {
      return Promise.reject(err);
    }
    const out = last();
    this.reset();
    return out;
  }

  abstract reset(): void;

  /** Runs device-side state changes (reset, dispose) in order with the calls already queued. */
  protected later(f: () => void): void {
    this.device.call(async () => f()).catch(ignore);
  }
}

/** Bytes of the largest piece of a processor's work in one submit (frames, segments, spectra each). */
export const PROCESSOR_CHUNK_BYTES = 32 * 1024 * 1024;
