// Loading the CUDA addon (native/build/cuda/phasor_cuda.node) and its shape as seen from TypeScript.
// Loading never throws: a missing or unloadable addon is a reason the backend is unavailable.

import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CudaTuning } from './tuning.js';

/** Values the native side fills or reads in place (JavaScript owns every array). */
export type NativeInput = Float32Array | Uint8Array | Int8Array | Int16Array | NativeDeviceBuffer;

export interface NativeDeviceBuffer {
  readonly length: number;
}

export interface NativeProbe {
  available: boolean;
  reason?: string;
  device?: string;
  details?: Record<string, string | number>;
}

export interface NativeOsPlan {
  direct: boolean;
  fused: boolean;
  size: number;
  segment: number;
}

export interface NativeBenchResult {
  op: string;
  impl: string;
  n: number;
  batch: number;
  available: boolean;
  reason?: string;
  kernelMs: number;
  endToEndMs: number;
  /** 32-bit words of the end-to-end output unlike the kernel-only output (−1: not compared). */
  endToEndDiffers: number;
  samplesPerSecond: number;
  bytes: number;
  relError: number;
  errorKind: string;
  plan: string;
}

export interface NativeContext {
  init(device: number): Promise<{ device: string; details: Record<string, string | number> }>;
  upload(data: Float32Array): Promise<NativeDeviceBuffer>;
  download(buf: NativeDeviceBuffer, out: Float32Array): Promise<void>;
  free(buf: NativeDeviceBuffer): Promise<void>;
  /** op: 0 fft, 1 inverse fft, 2 rfft, 3 irfft. */
  transform(op: number, input: NativeInput, n: number, out: Float32Array): Promise<void>;
  fft2(input: NativeInput, rows: number, cols: number, inverse: boolean, out: Float32Array): Promise<void>;
  osPlan(taps: number, real: boolean, correlation: boolean): NativeOsPlan;
  dispose(): Promise<void>;
  injectFault(): Promise<void>;
  benchmark(
    op: string,
    n: number,
    batch: number,
    cufft: boolean,
    reps: number,
    endToEnd: boolean,
  ): Promise<NativeBenchResult>;
  /** Plan and kernel choices (cuda/tuning.def): tests and benchmark variants; each omitted knob takes its default. */
  setTuning(t: CudaTuning): Promise<void>;
  /** How a transform of size n runs, e.g. "2 passes (1024 x 1024)". */
  planInfo(n: number): Promise<string>;
  /** Registers the buffer's memory with the driver (page-locked) until unpin() or dispose(). */
  pin(buffer: ArrayBuffer): Promise<void>;
  /** Unregisters it after the calls queued before; resolves at once for a buffer not pinned. */
  unpin(buffer: ArrayBuffer): Promise<void>;
}

export interface NativeSpectrogram {
  push(
    input: NativeInput,
    offset: number,
    scale: number,
    skip: number,
    count: number,
    keepFrom: number,
    rows: Float32Array,
    average: Float32Array | null,
    peak: Float32Array | null,
  ): Promise<void>;
  reset(): Promise<void>;
  dispose(): Promise<void>;
}

export interface NativeFir {
  process(
    input: NativeInput,
    offset: number,
    scale: number,
    frames: number,
    out: Float32Array,
  ): Promise<void>;
  reset(): Promise<void>;
  dispose(): Promise<void>;
}

export interface NativeCorrelator {
  process(
    input: NativeInput,
    offset: number,
    scale: number,
    lags: number,
    scores: Float32Array | null,
    peaks: number,
    radius: number,
  ): Promise<{ lags: Float64Array; scores: Float32Array }>;
  reset(): Promise<void>;
  dispose(): Promise<void>;
}

/** One knob of cuda/tuning.def as the addon lists it (tuningKnobs()). */
export interface NativeTuningKnob {
  name: keyof CudaTuning;
  type: 'boolean' | 'number' | 'number[]';
  default: boolean | number | number[];
  meaning: string;
}

export interface NativeAddon {
  probe(device?: number): NativeProbe;
  /** probe() on a thread of libuv's pool: the JavaScript thread is not blocked while the driver starts.
   * Builds before it lack it. */
  probeAsync?(device?: number): Promise<NativeProbe>;
  /** Starts the driver and the device's context on a thread of its own; resolves when done (never rejects:
   * a failure shows in the probe). Builds before it lack it. */
  warm?(device?: number): Promise<void>;
  /** The tuning knobs with their defaults and meanings, in cuda/tuning.def's order. */
  tuningKnobs(): NativeTuningKnob[];
  /** bench: phasor_cuda_bench.node (node native/build.mjs --bench), whose benchmark() takes bench/cuda's operations too. */
  build: { archs: string; emulation: boolean; cudaRuntime: number; bench: boolean };
  Context: new () => NativeContext;
  Spectrogram: new (
    ctx: NativeContext,
    config: {
      n: number;
      hop: number;
      complex: boolean;
      window: Float32Array;
      columns: number;
      averaging: number;
      peakHold: boolean;
      floorDb: number;
      norm: number;
      normEdge: number;
    },
  ) => NativeSpectrogram;
  Fir: new (
    ctx: NativeContext,
    config: { taps: Float64Array; lanes: number; complex: boolean; overlapSave: boolean; size: number },
  ) => NativeFir;
  Correlator: new (
    ctx: NativeContext,
    config: { template: Float32Array; complex: boolean; size: number },
  ) => NativeCorrelator;
}

export type AddonLoad =
  { addon: NativeAddon; path: string } | { addon: null; path: string | null; reason: string };

/** Where the addon is looked for: $PHASOR_CUDA_ADDON, else native/build/cuda/ above this module. */
export function addonCandidates(): string[] {
  const out: string[] = [];
  if (process.env.PHASOR_CUDA_ADDON) out.push(path.resolve(process.env.PHASOR_CUDA_ADDON));
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 8; i++) {
    out.push(path.join(dir, 'native', 'build', 'cuda', 'phasor_cuda.node'));
    const up = path.dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return out;
}

let cached: AddonLoad | undefined;

export function loadAddon(): AddonLoad {
  if (cached) return cached;
  const found = addonCandidates().find((p) => existsSync(p));
  if (!found) {
    cached = {
      addon: null,
      path: null,
      reason:
        'the CUDA addon is not built (no CUDA toolkit when Phasor was installed; install CUDA 13 and run npm run build:native)',
    };
    return cached;
  }
  try {
    const require = createRequire(import.meta.url);
    cached = { addon: require(found) as NativeAddon, path: found };
  } catch (err) {
    cached = {
      addon: null,
      path: found,
      reason: `the CUDA addon could not be loaded: ${err instanceof Error ? err.message : String(err)}`,
    };
  }
  return cached;
}

/**
 * Starts the CUDA driver and the device's primary context in the background (what the first CUDA call of a
 * process pays: 0.3–0.5 s on the lent H100, docs/PERFORMANCE.md), so that a backend opened a little later finds
 * them ready. For hosts that know early that a job may run on CUDA. Never throws; false without the addon.
 */
export function warmCuda(device = 0): boolean {
  const { addon } = loadAddon();
  if (!addon?.warm) return false;
  try {
    addon.warm(device).catch(() => undefined);
    return true;
  } catch {
    return false;
  }
}
