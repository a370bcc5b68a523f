// The CPU backend's float32 SIMD kernels: native/wasm/phasor-simd.wasm (WebAssembly SIMD128, built from
// native/wasm/simd.c), one instance per thread (the calling thread and each pool worker load their own).
//
//   const k = simdKernels();              // null where the .wasm is missing or SIMD is unsupported
//   k.begin();                            // per job call: scratch allocations start afresh
//   const tw = k.twiddles(n);             // (kept for the thread's life; ask before any alloc())
//   const z = k.alloc(2 * n);             // a float index into k.f32 (refresh views after alloc())
//   k.f32.set(data, z); k.fn.fft_batch(4 * z, 4 * z, 4 * s, tw, n, 1, 0);
//
// Twiddles are computed here in float64 (Math.cos/sin) and rounded to float32 once; float32 sin/cos would
// not keep the transforms within relative L2 3e-7 of float64.

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// The engine's TypeScript library has no WebAssembly declarations (no DOM lib): the little used here.
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: object };
}
const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/** The kernels' exports; every pointer is a byte offset into the module's memory. */
export interface SimdExports {
  memory: WasmMemory;
  __heap_base: { value: number };
  fft_batch(
    inp: number,
    out: number,
    scratch: number,
    tw: number,
    n: number,
    batch: number,
    inv: number,
  ): void;
  rfft_batch(x: number, X: number, scratch: number, twh: number, twn: number, n: number, batch: number): void;
  irfft_batch(
    X: number,
    x: number,
    scratch: number,
    twh: number,
    twn: number,
    n: number,
    batch: number,
  ): void;
  cmul(z: number, h: number, count: number, conj: number): void;
  power(z: number, out: number, count: number): void;
  window(x: number, w: number, values: number): void;
}

export const SIMD_WASM_NAME = 'phasor-simd.wasm';

/** The .wasm file: native/wasm/ in the first folder above this module that has it (sources, dist/, a bundle). */
export function findSimdWasm(): string | undefined {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let up = 0; up < 8; up++) {
    const candidate = path.join(dir, 'native', 'wasm', SIMD_WASM_NAME);
    if (existsSync(candidate)) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return undefined;
}

const PAGE = 65536;

export class SimdKernels {
  readonly fn: SimdExports;
  /** A view on the whole memory; replaced when alloc() grows it. */
  f32: Float32Array;
  /** Byte offsets: end of the kept tables, and the next free byte of the current call's scratch. */
  private keep: number;
  private top: number;
  private readonly tables = new Map<number, number>();

  constructor(module: object) {
    this.fn = new wasm.Instance(module, {}).exports as SimdExports;
    this.keep = align(this.fn.__heap_base.value);
    this.top = this.keep;
    this.f32 = new Float32Array(this.fn.memory.buffer);
  }

  /** Starts a call: frees the previous call's scratch. */
  begin(): void {
    this.top = this.keep;
  }

  /** `floats` float32 values of scratch (16-byte aligned), as an index into f32. */
  alloc(floats: number): number {
    const at = this.top;
    this.top = align(at + 4 * floats);
    this.reserve(this.top);
    return at >> 2;
  }

  /** The n-point twiddle table's byte offset: (c, c, −s, s) for W_n^k = c + i·s, k < 7n/8 (kept). */
  twiddles(n: number): number {
    const known = this.tables.get(n);
    if (known !== undefined) return known;
    if (this.top !== this.keep) throw new Error('simd: twiddles() must come before alloc() in a call');
    const count = Math.max(1, Math.ceil((7 * n) / 8));
    // From 64 points the first radix-8 pass has its own table: for each pair p, p+1 (p < n/8) and r = 1 … 7,
    // (c_rp, c_rp, c_r(p+1), c_r(p+1), −s_rp, s_rp, −s_r(p+1), s_r(p+1)).
    const first = n >= 64 ? (n / 16) * 7 * 8 : 0;
    const at = this.keep;
    this.keep = align(at + 16 * count + 4 * first);
    this.top = this.keep;
    this.reserve(this.keep);
    const t = this.f32;
    const base = at >> 2;
    for (let k = 0; k < count; k++) {
      const a = (-2 * Math.PI * k) / n;
      const c = Math.cos(a);
      const s = Math.sin(a);
      t[base + 4 * k] = c;
      t[base + 4 * k + 1] = c;
      t[base + 4 * k + 2] = -s;
      t[base + 4 * k + 3] = s;
    }
    const base1 = base + 4 * count;
    for (let i = 0; i < first / 8; i++) {
      const p = 2 * Math.floor(i / 7);
      const r = (i % 7) + 1;
      for (let lane = 0; lane < 2; lane++) {
        const a = (-2 * Math.PI * ((r * (p + lane)) % n)) / n;
        const c = Math.cos(a);
        const s = Math.sin(a);
        t[base1 + 8 * i + 2 * lane] = c;
        t[base1 + 8 * i + 2 * lane + 1] = c;
        t[base1 + 8 * i + 4 + 2 * lane] = -s;
        t[base1 + 8 * i + 4 + 2 * lane + 1] = s;
      }
    }
    this.tables.set(n, at);
    return at;
  }

  private reserve(bytes: number): void {
    const have = this.fn.memory.buffer.byteLength;
    if (bytes <= have) return;
    this.fn.memory.grow(Math.ceil((bytes - have) / PAGE));
    this.f32 = new Float32Array(this.fn.memory.buffer);
  }
}

function align(bytes: number): number {
  return (bytes + 15) & ~15;
}

let compiled: object | null | undefined;
let loaded: SimdKernels | null | undefined;
let failure = '';

/**
 * The compiled module, from the .wasm file (once per thread that reads it). The pool hands the calling
 * thread's to each worker (useSimdModule), so a worker never looks for the file itself: a bundled or
 * packaged host may place its worker where the file is not above it.
 */
export function simdModule(): object | null {
  if (compiled !== undefined) return compiled;
  try {
    const file = findSimdWasm();
    if (file === undefined) throw new Error(`native/wasm/${SIMD_WASM_NAME} was not found beside the engine`);
    compiled = new wasm.Module(readFileSync(file));
  } catch (err) {
    failure = err instanceof Error ? err.message : String(err);
    compiled = null;
  }
  return compiled;
}

/** Uses a module compiled elsewhere (a worker receives the calling thread's), unless one is loaded. */
export function useSimdModule(module: object): void {
  if (compiled === undefined || compiled === null) compiled = module;
}

/** This thread's kernels, or null (see simdUnavailableReason()). */
export function simdKernels(): SimdKernels | null {
  if (loaded !== undefined) return loaded;
  const module = simdModule();
  try {
    loaded = module === null ? null : new SimdKernels(module);
  } catch (err) {
    failure = err instanceof Error ? err.message : String(err);
    loaded = null;
  }
  return loaded;
}

/** Why simdKernels() returned null ('' when it did not). */
export function simdUnavailableReason(): string {
  return failure;
}

export function isPowerOfTwo(n: number): boolean {
  return n >= 1 && (n & (n - 1)) === 0 && n <= 1 << 30;
}
