// Small WebGPU utilities the kernels share: buffer usage flags, a uniform arena (one slot a dispatch,
// written once before the submit), dispatch over a 2D grid, growable scratch buffers, host data staged
// through mapped buffers, and tables uploaded once.

import type { WebGpuContext } from './device.js';

// The WebGPU usage flags (GPUBufferUsage / GPUMapMode values of the spec; Node has no globals for them).
export const USAGE = {
  MAP_READ: 0x1,
  MAP_WRITE: 0x2,
  COPY_SRC: 0x4,
  COPY_DST: 0x8,
  UNIFORM: 0x40,
  STORAGE: 0x80,
  QUERY_RESOLVE: 0x200,
} as const;
export const MAP_READ = 0x1;
export const MAP_WRITE = 0x2;

/** A storage buffer the kernels read and write, which can also be copied in and out. */
export const STORAGE_USAGE = USAGE.STORAGE | USAGE.COPY_SRC | USAGE.COPY_DST;

const SLOT_BYTES = 256; // minUniformBufferOffsetAlignment is at most 256
const SLOT_WORDS = SLOT_BYTES / 4;

/** Uniform parameters of the dispatches of one submit, each in its own 256-byte slot. */
export class UniformArena {
  private buffer: GPUBuffer;
  private readonly staging: ArrayBuffer;
  private readonly u32: Uint32Array;
  private readonly f32: Float32Array;
  private used = 0;
  readonly slots: number;

  constructor(
    private readonly device: GPUDevice,
    slots = 256,
  ) {
    this.slots = slots;
    this.buffer = device.createBuffer({
      label: 'phasor uniforms',
      size: slots * SLOT_BYTES,
      usage: USAGE.UNIFORM | USAGE.COPY_DST,
    });
    this.staging = new ArrayBuffer(slots * SLOT_BYTES);
    this.u32 = new Uint32Array(this.staging);
    this.f32 = new Float32Array(this.staging);
  }

  get remaining(): number {
    return this.slots - this.used;
  }

  /** Stores u32 words then f32 words; returns the binding of the slot. */
  slot(words: readonly number[], floats: readonly number[] = []): GPUBufferBinding {
    if (this.used >= this.slots) throw new Error('uniform arena full: submit before encoding more');
    const at = this.used++ * SLOT_WORDS;
    for (let i = 0; i < words.length; i++) this.u32[at + i] = words[i];
    for (let i = 0; i < floats.length; i++) this.f32[at + words.length + i] = floats[i];
    return { buffer: this.buffer, offset: at * 4, size: SLOT_BYTES };
  }

  /** Writes the slots used since the last flush to the device (before the submit that reads them). */
  flush(queue: GPUQueue): void {
    if (this.used === 0) return;
    queue.writeBuffer(this.buffer, 0, this.staging, 0, this.used * SLOT_BYTES);
    this.used = 0;
  }

  destroy(): void {
    this.buffer.destroy();
  }
}

/** The bindings of a transform pass (fft_pow2.wgsl's and fft_mixed.wgsl's `main`): source, destination,
 * twiddles, four-step twiddles, Params. */
export function transformLayout(
  device: GPUDevice,
  label: string,
): { layout: GPUBindGroupLayout; pipelineLayout: GPUPipelineLayout } {
  const types: GPUBufferBindingType[] = [
    'read-only-storage',
    'storage',
    'read-only-storage',
    'read-only-storage',
    'uniform',
  ];
  const layout = device.createBindGroupLayout({
    label,
    entries: types.map((type, binding) => ({ binding, visibility: 4 /* COMPUTE */, buffer: { type } })),
  });
  return { layout, pipelineLayout: device.createPipelineLayout({ bindGroupLayouts: [layout] }) };
}

/** Encodes a transform pass over the grid `g`: [source, destination, twiddles, four-step twiddles] and
 * its Params slot bound as transformLayout() lays them out. */
export function encodeTransformPass(
  pass: GPUComputePassEncoder,
  device: GPUDevice,
  layout: GPUBindGroupLayout,
  pipeline: GPUComputePipeline,
  buffers: readonly [GPUBuffer, GPUBuffer, GPUBuffer, GPUBuffer],
  uniforms: GPUBufferBinding,
  g: { x: number; y: number },
): void {
  const entries: GPUBindGroupEntry[] = buffers.map((buffer, binding) => ({ binding, resource: { buffer } }));
  entries.push({ binding: buffers.length, resource: uniforms });
  pass.setPipeline(pipeline);
  pass.setBindGroup(0, device.createBindGroup({ layout, entries }));
  pass.dispatchWorkgroups(g.x, g.y);
}

/** A grid of `groups` workgroups within the per-dimension limit: x · y ≥ groups. */
export function grid(groups: number, perDimension: number): { x: number; y: number } {
  const g = Math.max(1, groups);
  if (g <= perDimension) return { x: g, y: 1 };
  const y = Math.ceil(g / perDimension);
  return { x: Math.ceil(g / y), y };
}

/** Buffers that grow on demand and are reused across calls (scratch space of the transforms). */
export class ScratchBuffers {
  private readonly buffers: (GPUBuffer | undefined)[] = [];

  constructor(private readonly device: GPUDevice) {}

  /** Slot `slot` with at least `bytes` bytes (rounded up to a power of two, so it rarely regrows). */
  get(slot: number, bytes: number): GPUBuffer {
    const b = this.buffers[slot];
    if (b && b.size >= bytes) return b;
    b?.destroy();
    let size = 256;
    while (size < bytes) size *= 2;
    const nb = this.device.createBuffer({ label: `phasor scratch ${slot}`, size, usage: STORAGE_USAGE });
    this.buffers[slot] = nb;
    return nb;
  }

  destroy(): void {
    for (const b of this.buffers) b?.destroy();
    this.buffers.length = 0;
  }
}

/**
 * Storage buffers the processors take for their stream windows and give back when done with them: a new
 * buffer costs its allocation and Dawn's clear on first use (1.5 ms for 32 MiB on the lent H200), a reused
 * one nothing, and `phasor bench`'s whole calls create a processor each. Sizes are powers of two; at most
 * `keepBytes` wait free. A buffer given back while the GPU still runs commands that use it is safe to hand
 * out again: the next user's commands come after those in the queue. A taken buffer holds whatever its
 * last user left (the kernels read only the values a window holds); `poison` (tests) fills it with NaN.
 */
export class BufferPool {
  private free: GPUBuffer[] = [];
  private freeBytes = 0;
  private destroyed = false;
  /** Tests: every buffer taken is filled with NaN first, so a kernel that reads stale values shows it. */
  poison = false;

  constructor(
    private readonly device: GPUDevice,
    private readonly keepBytes = 256 << 20,
  ) {}

  /** A storage buffer of at least `bytes` bytes (the next power of two, at least 256). */
  take(bytes: number, label: string): GPUBuffer {
    let size = 256;
    while (size < bytes) size *= 2;
    const i = this.free.findIndex((b) => b.size === size);
    let b: GPUBuffer;
    if (i >= 0) {
      b = this.free.splice(i, 1)[0];
      this.freeBytes -= size;
    } else {
      b = this.device.createBuffer({ label, size, usage: STORAGE_USAGE });
    }
    if (this.poison) this.device.queue.writeBuffer(b, 0, new Float32Array(size / 4).fill(NaN));
    return b;
  }

  /** Gives a buffer back (destroyed when the pool keeps enough, or is destroyed). */
  give(b: GPUBuffer): void {
    if (this.destroyed || b.size > this.keepBytes) {
      b.destroy();
      return;
    }
    this.free.push(b);
    this.freeBytes += b.size;
    while (this.freeBytes > this.keepBytes) {
      const old = this.free.shift()!;
      this.freeBytes -= old.size;
      old.destroy();
    }
  }

  destroy(): void {
    this.destroyed = true;
    for (const b of this.free) b.destroy();
    this.free = [];
    this.freeBytes = 0;
  }
}

/** The smallest staging buffer (so that small writes share a few buffers instead of making many). */
const MIN_STAGING_BYTES = 1 << 20;

/**
 * Host data to device buffers through MAP_WRITE staging buffers kept mapped between uses: the CPU copies
 * into mapped memory once and the encoder copies on to the destination, in order with the commands
 * recorded around it. (Dawn's queue.writeBuffer moved 1.3 GB/s on the lent H100, this path the host's
 * memcpy speed, 7.8 GB/s.) After the submit that holds the copies, `submitted()` maps the staging buffers
 * again; a write that finds none mapped creates one mapped at creation, and at most `keep` wait mapped.
 */
export class HostUploads {
  private ready: GPUBuffer[] = [];
  private used: GPUBuffer[] = [];
  private destroyed = false;

  constructor(
    private readonly device: GPUDevice,
    private readonly keep = 3,
  ) {}

  /** Records the copy of `data` to `dst` at byte `offset` (a multiple of 4) in `encoder`; the bytes
   * are padded with zeros to a multiple of 4. */
  write(encoder: GPUCommandEncoder, dst: GPUBuffer, offset: number, data: ArrayBufferView): void {
    const bytes = data.byteLength;
    if (bytes === 0) return;
    const padded = Math.ceil(bytes / 4) * 4;
    let at = -1;
    for (let i = 0; i < this.ready.length; i++) {
      if (this.ready[i].size >= padded && (at < 0 || this.ready[i].size < this.ready[at].size)) at = i;
    }
    let staging: GPUBuffer;
    if (at >= 0) {
      staging = this.ready.splice(at, 1)[0];
    } else {
      let size = MIN_STAGING_BYTES;
      while (size < padded) size *= 2;
      staging = this.device.createBuffer({
        label: 'phasor upload',
        size,
        usage: USAGE.MAP_WRITE | USAGE.COPY_SRC,
        mappedAtCreation: true,
      });
    }
    const mapped = new Uint8Array(staging.getMappedRange(0, padded));
    mapped.set(new Uint8Array(data.buffer, data.byteOffset, bytes));
    if (padded > bytes) mapped.fill(0, bytes);
    staging.unmap();
    encoder.copyBufferToBuffer(staging, 0, dst, offset, padded);
    this.used.push(staging);
  }

  /** Call after the submit that holds the recorded copies: their staging buffers map again. */
  submitted(): void {
    const used = this.used;
    this.used = [];
    for (const b of used) {
      b.mapAsync(MAP_WRITE).then(
        () => {
          if (this.destroyed) return b.destroy();
          this.ready.push(b);
          if (this.ready.length > this.keep) {
            this.ready.sort((x, y) => y.size - x.size);
            for (const extra of this.ready.splice(this.keep)) extra.destroy();
          }
        },
        () => b.destroy(),
      );
    }
  }

  destroy(): void {
    this.destroyed = true;
    for (const b of [...this.ready, ...this.used]) b.destroy();
    this.ready = [];
    this.used = [];
  }
}

/** A read-only storage buffer holding `data` (tables: twiddles, chirps, filter spectra). */
export function uploadTable(ctx: WebGpuContext, data: Float32Array, label: string): GPUBuffer {
  const size = Math.max(16, Math.ceil(data.byteLength / 4) * 4);
  const buffer = ctx.device.createBuffer({ label, size, usage: USAGE.STORAGE | USAGE.COPY_DST });
  ctx.device.queue.writeBuffer(buffer, 0, data.buffer, data.byteOffset, data.byteLength);
  return buffer;
}

/** (cos, sin)(2π·m/n) for m < count, computed in float64 (WGSL's f32 sin/cos are too coarse). */
export function unitCircle(n: number, count: number, stride = 1): Float32Array {
  const t = new Float32Array(2 * count);
  for (let m = 0; m < count; m++) {
    // m·stride mod n keeps the angle small, so the float64 result is exact to rounding
    const a = (2 * Math.PI * ((m * stride) % n)) / n;
    t[2 * m] = Math.cos(a);
    t[2 * m + 1] = Math.sin(a);
  }
  return t;
}
