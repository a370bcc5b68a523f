// Benchmarks of the backend operations on identical inputs: medians side by side, in one run.
// Every row also reports its relative error against a float64 computation of (a part of) the same output.

import * as os from 'node:os';
import {
  hasDeviceTimer,
  type Backend,
  type BackendName,
  type DeviceBenchResult,
  type DeviceTimer,
} from '../backends/backend.js';
import { benchInput, median } from '../backends/bench-data.js';
import { getFftPlan } from '../fft/plan.js';
import { getWindow } from '../dsp/index.js';
import { InvalidArgumentError, throwIfAborted } from '../errors.js';
import {
  DEFAULT_OVERLAP,
  DEFAULT_WINDOW,
  frameCount,
  hopFromOverlap,
  spectrumBins,
} from '../protocol/shape.js';
import type { BenchRowInfo, DeviceBenchRowInfo, DeviceTimerInfo } from '../protocol/messages.js';

export const benchOps = ['fft', 'rfft', 'spectrogram', 'fir', 'correlate'] as const;
export type BenchOp = (typeof benchOps)[number];

export const defaultSizes: Record<BenchOp, number[]> = {
  fft: [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 1000, 48000],
  rfft: [64, 256, 1024, 4096, 16384, 65536, 48000],
  spectrogram: [4096],
  fir: [31, 255, 1023, 4095],
  correlate: [4096],
};

export interface BenchRow extends BenchRowInfo {
  op: BenchOp;
  note?: string;
}

export interface BenchOptions {
  ops?: readonly BenchOp[];
  /** Sizes override for every op chosen. */
  sizes?: readonly number[];
  /** Input samples per timed call. Default 2^20. */
  samples?: number;
  /** Timed repetitions (after one warm-up). Default 5. */
  repeats?: number;
  seed?: number;
  onRow?: (row: BenchRow) => void;
  /** Stops the run between rows (CancelledError). */
  signal?: AbortSignal;
}

export interface BenchMachine {
  date: string;
  cpu: string;
  threads: number;
  node: string;
  platform: string;
}

export { benchInput };

export function machineInfo(): BenchMachine {
  const cpus = os.cpus();
  return {
    date: new Date().toISOString(),
    cpu: cpus[0]?.model ?? 'unknown',
    threads: typeof os.availableParallelism === 'function' ? os.availableParallelism() : cpus.length,
    node: process.version,
    platform: `${os.platform()} ${os.arch()}`,
  };
}

async function timeIt(repeats: number, fn: () => Promise<unknown>): Promise<number> {
  await fn(); // warm-up: plans, workers, device buffers
  const times: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return median(times);
}

function relErr(got: ArrayLike<number>, ref: ArrayLike<number>, count = ref.length): number {
  let num = 0;
  let den = 0;
  for (let i = 0; i < count; i++) {
    const d = got[i] - ref[i];
    num += d * d;
    den += ref[i] * ref[i];
  }
  return den === 0 ? (num === 0 ? 0 : Infinity) : Math.sqrt(num / den);
}

/** Float64 transforms of the first rows of a batch (enough rows for ≥ 2^15 values, at least one). */
function referenceRows(n: number, batch: number): number {
  return Math.min(batch, Math.max(1, Math.ceil(32768 / n)));
}

async function benchOne(
  backend: Backend,
  op: BenchOp,
  size: number,
  o: Required<Pick<BenchOptions, 'samples' | 'repeats' | 'seed'>>,
): Promise<BenchRow> {
  const total = o.samples;
  switch (op) {
    case 'fft': {
      const batch = Math.max(1, Math.floor(total / size));
      const x = benchInput(2 * size * batch, o.seed + size);
      const out = new Float32Array(x.length);
      const ms = await timeIt(o.repeats, () => backend.fft(x, size, { out }));
      const rows = referenceRows(size, batch);
      const plan = getFftPlan(size);
      const ref = new Float64Array(2 * size * rows);
      for (let r = 0; r < rows; r++) plan.forward(x, ref, 2 * size * r, 2 * size * r);
      const samples = size * batch;
      return row(
        backend,
        op,
        size,
        batch,
        samples,
        ms,
        5 * size * Math.log2(Math.max(2, size)) * batch,
        relErr(out, ref),
      );
    }
    case 'rfft': {
      const batch = Math.max(1, Math.floor(total / size));
      const x = benchInput(size * batch, o.seed + size);
      const bins = spectrumBins(size, false);
      const out = new Float32Array(2 * bins * batch);
      const ms = await timeIt(o.repeats, () => backend.rfft(x, size, { out }));
      const rows = referenceRows(size, batch);
      const plan = getFftPlan(size);
      const cx = new Float64Array(2 * size);
      const full = new Float64Array(2 * size);
      const ref = new Float64Array(2 * bins * rows);
      for (let r = 0; r < rows; r++) {
        for (let i = 0; i < size; i++) cx[2 * i] = x[r * size + i];
        plan.forward(cx, full);
        ref.set(full.subarray(0, 2 * bins), 2 * bins * r);
      }
      const samples = size * batch;
      return row(
        backend,
        op,
        size,
        batch,
        samples,
        ms,
        2.5 * size * Math.log2(Math.max(2, size)) * batch,
        relErr(out, ref),
      );
    }
    case 'spectrogram': {
      const hop = hopFromOverlap(size, DEFAULT_OVERLAP);
      const x = benchInput(total, o.seed + 1);
      const window = Float32Array.from(getWindow(DEFAULT_WINDOW, size));
      let last: Float32Array = new Float32Array(0);
      const ms = await timeIt(o.repeats, async () => {
        const p = backend.createSpectrogram({ fft: size, hop, window, complex: false });
        const r = await p.push(x);
        p.dispose();
        last = r.rows;
      });
      const frames = frameCount(total, size, hop);
      // float64 reference of the first frames, compared as linear power
      const bins = spectrumBins(size, false);
      const rows = Math.min(frames, 4);
      const plan = getFftPlan(size);
      const cx = new Float64Array(2 * size);
      const X = new Float64Array(2 * size);
      let sum = 0;
      for (let i = 0; i < size; i++) sum += window[i];
      const gotP = new Float64Array(rows * bins);
      const refP = new Float64Array(rows * bins);
      for (let f = 0; f < rows; f++) {
        for (let i = 0; i < size; i++) cx[2 * i] = x[f * hop + i] * window[i];
        plan.forward(cx, X);
        for (let k = 0; k < bins; k++) {
          const oneSided = k === 0 || 2 * k === size ? 1 : 4; // amplitude ×2 off DC/Nyquist
          refP[f * bins + k] = ((X[2 * k] ** 2 + X[2 * k + 1] ** 2) * oneSided) / (sum * sum);
          gotP[f * bins + k] = 10 ** (last[f * bins + k] / 10);
        }
      }
      return row(backend, op, size, frames, total, ms, undefined, relErr(gotP, refP));
    }
    case 'fir': {
      const taps = Float32Array.from(benchInput(size, o.seed + 7), (v) => v / size);
      const x = benchInput(total, o.seed + 2);
      let parts: Float32Array[] = [];
      const ms = await timeIt(o.repeats, async () => {
        const f = backend.createFir({ taps, complex: false, channels: 1 });
        parts = [await f.process(x), await f.flush()];
        f.dispose();
      });
      const out = concat(parts[0], parts[1]);
      const check = Math.min(total, 4096);
      const ref = new Float64Array(check);
      for (let i = 0; i < check; i++) {
        let acc = 0;
        for (let k = 0; k < size && k <= i; k++) acc += taps[k] * x[i - k];
        ref[i] = acc;
      }
      return row(backend, op, size, 1, total, ms, undefined, relErr(out, ref, check));
    }
    case 'correlate': {
      const t = benchInput(size, o.seed + 3);
      const x = benchInput(total, o.seed + 4);
      let parts: Array<Float32Array | undefined> = [];
      const ms = await timeIt(o.repeats, async () => {
        const c = backend.createCorrelator({ template: t, complex: false, scores: true, peaks: 5 });
        parts = [(await c.process(x)).scores, (await c.flush()).scores];
        c.dispose();
      });
      const scores = concat(parts[0], parts[1]);
      const check = Math.min(1024, total - size + 1);
      const ref = new Float64Array(check);
      let tt = 0;
      for (let k = 0; k < size; k++) tt += t[k] * t[k];
      for (let l = 0; l < check; l++) {
        let acc = 0;
        let xx = 0;
        for (let k = 0; k < size; k++) {
          acc += x[l + k] * t[k];
          xx += x[l + k] * x[l + k];
        }
        ref[l] = Math.abs(acc) / Math.sqrt(tt * xx);
      }
      return row(backend, op, size, 1, total, ms, undefined, relErr(scores, ref, check));
    }
  }
}

function concat(a: Float32Array | undefined, b: Float32Array | undefined): Float32Array {
  const out = new Float32Array((a?.length ?? 0) + (b?.length ?? 0));
  if (a) out.set(a, 0);
  if (b) out.set(b, a?.length ?? 0);
  return out;
}

function row(
  backend: Backend,
  op: BenchOp,
  size: number,
  batch: number,
  samples: number,
  ms: number,
  flop: number | undefined,
  relError: number,
): BenchRow {
  const r: BenchRow = {
    backend: backend.name,
    op,
    size,
    batch,
    samples,
    medianMs: ms,
    samplesPerSecond: samples / (ms / 1000),
    relError,
  };
  if (flop !== undefined) r.gflops = flop / (ms / 1000) / 1e9;
  return r;
}

/** The rows runBench will measure for `backendCount` backends (for a progress total). */
export function benchRowCount(
  backendCount: number,
  options: Pick<BenchOptions, 'ops' | 'sizes' | 'samples'>,
): number {
  const samples = options.samples ?? 1 << 20;
  let n = 0;
  for (const op of options.ops ?? benchOps) {
    for (const size of options.sizes ?? defaultSizes[op]) {
      if ((op === 'spectrogram' || op === 'correlate' || op === 'fir') && size > samples) continue;
      n++;
    }
  }
  return n * backendCount;
}

/** Runs every op and size on every backend given (the CPU first when present, for the ratios). */
export async function runBench(
  backends: readonly Backend[],
  options: BenchOptions = {},
): Promise<BenchRow[]> {
  const ops = options.ops ?? benchOps;
  const o = { samples: options.samples ?? 1 << 20, repeats: options.repeats ?? 5, seed: options.seed ?? 1 };
  if (!Number.isInteger(o.samples) || o.samples < 1024)
    throw new InvalidArgumentError('--samples must be a whole number ≥ 1024');
  const rows: BenchRow[] = [];
  for (const op of ops) {
    const sizes = options.sizes ?? defaultSizes[op];
    for (const size of sizes) {
      if (!Number.isInteger(size) || size < 1)
        throw new InvalidArgumentError(`bench sizes must be whole numbers ≥ 1, got ${size}`);
      if ((op === 'spectrogram' || op === 'correlate' || op === 'fir') && size > o.samples) continue;
      let cpu: BenchRow | undefined;
      const these: BenchRow[] = [];
      for (const b of backends) {
        throwIfAborted(options.signal);
        const r = await benchOne(b, op, size, o);
        if (b.name === ('cpu' satisfies BackendName)) cpu = r;
        if (cpu) r.vsCpu = r.samplesPerSecond / cpu.samplesPerSecond;
        these.push(r);
        rows.push(r);
        options.onRow?.(r);
      }
      // each backend's speed over the CPU's and CUDA's, whichever order they ran in
      const ref = (name: BackendName) => these.find((r) => r.backend === name);
      for (const r of these) {
        const c = ref('cpu');
        const g = ref('cuda');
        if (c) r.vsCpu = r.samplesPerSecond / c.samplesPerSecond;
        if (g && r !== g) r.vsCuda = r.samplesPerSecond / g.samplesPerSecond;
      }
    }
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------------
// Device rows: a GPU backend's kernels timed on the device (data already there), end to end from host
// memory (pinned for CUDA), and the reference on the same inputs: CUDA's is cuFFT (or the unfused cuFFT
// pipelines), WebGPU's its own unfused pipelines (the same steps as separate passes; no vendor FFT).

export type DeviceBenchRow = DeviceBenchRowInfo;

/** How each GPU backend times itself (the header of the device rows). */
export const deviceTimerMethods: Partial<Record<BackendName, string>> = {
  cuda: 'CUDA events',
  webgpu: 'timestamp queries',
};

/** How `b` times its device rows, or why it has none (undefined for the CPU, which has no device rows). */
export function deviceTimerInfo(b: Backend): DeviceTimerInfo | undefined {
  if (b.name === 'cpu') return undefined;
  if (hasDeviceTimer(b)) return { backend: b.name, method: deviceTimerMethods[b.name] ?? 'device timer' };
  const missing =
    b.name === 'webgpu'
      ? 'no device-timed rows: the adapter has no timestamp-query feature'
      : 'no device-timed rows: the backend has no device timer';
  return { backend: b.name, missing };
}

/** Sets vsCuda on the other backends' own rows (not their references) that have a CUDA row of the same
 * op, size, timing and variant. */
export function compareWithCuda(rows: DeviceBenchRow[]): void {
  const variant = (r: DeviceBenchRow) =>
    r.note === undefined || r.note.startsWith('no reference') ? '' : r.note.split(';')[0];
  const key = (r: DeviceBenchRow) => `${r.op}|${r.size}|${r.timing}|${variant(r)}`;
  const cuda = new Map<string, DeviceBenchRow>();
  for (const r of rows) if (r.backend === 'cuda') cuda.set(key(r), r);
  for (const r of rows) {
    if (r.backend === 'cuda' || !(r.backend in deviceTimerMethods)) continue;
    const c = cuda.get(key(r));
    if (c && c.samplesPerSecond > 0) r.vsCuda = r.samplesPerSecond / c.samplesPerSecond;
  }
}

/** Native op names per bench op (n = size; batch = samples per call, or transforms for FFTs). */
const deviceOps: Record<BenchOp, string[]> = {
  fft: ['fft'],
  rfft: ['rfft'],
  spectrogram: ['spectrogram-f32', 'spectrogram-i16'],
  fir: ['fir-real', 'fir'],
  correlate: ['corr'],
};

export interface DeviceBenchOptions {
  ops?: readonly BenchOp[];
  sizes?: readonly number[];
  /** Samples per measurement on the device. Default 2^27 for transforms, 2^26 for streams. */
  samples?: number;
  repeats?: number;
  onRow?: (row: DeviceBenchRow) => void;
  signal?: AbortSignal;
}

export const defaultDeviceSizes: Record<BenchOp, number[]> = {
  fft: [64, 256, 1024, 4096, 8192, 16384, 65536, 1 << 20, 1 << 24, 1000, 3000, 48000],
  rfft: [1024, 4096],
  spectrogram: [4096],
  fir: [31, 255, 1023, 4095],
  correlate: [4096],
};

/** The ceilings of the run: device-to-device copy and host-to-device bandwidth (GB/s), measured on
 * 2^27 and 2^25 complex values, or on `values` when that is fewer. */
export async function deviceCeilings(
  b: DeviceTimer,
  values = 1 << 27,
): Promise<{ copy: number; h2d: number }> {
  const copy = await b.benchmark('copy', Math.min(values, 1 << 27), 1, false, { reps: 10, endToEnd: false });
  const h2d = await b.benchmark('h2d', Math.min(values, 1 << 25), 1, false, { reps: 10, endToEnd: false });
  return { copy: copy.bytes / copy.kernelMs / 1e6, h2d: h2d.bytes / h2d.kernelMs / 1e6 };
}

/** The device rows of one backend (none without a device timer: see deviceTimerInfo). */
export async function runDeviceBench(
  backend: Backend,
  options: DeviceBenchOptions = {},
): Promise<DeviceBenchRow[]> {
  if (!hasDeviceTimer(backend)) return [];
  const ceil = await deviceCeilings(backend, options.samples);
  const rows: DeviceBenchRow[] = [];
  const push = (r: DeviceBenchRow) => {
    rows.push(r);
    options.onRow?.(r);
  };
  const reps = options.repeats ?? 10;
  for (const op of options.ops ?? benchOps) {
    for (const size of options.sizes ?? defaultDeviceSizes[op]) {
      for (const native of deviceOps[op]) {
        throwIfAborted(options.signal);
        const transform = op === 'fft' || op === 'rfft';
        const samples = options.samples ?? (transform ? 1 << 27 : 1 << 26);
        const batch = transform ? Math.max(1, Math.floor(samples / size)) : samples;
        const ours = await backend.benchmark(native, size, batch, false, { reps, endToEnd: true });
        const ref = await backend.benchmark(native, size, batch, true, { reps, endToEnd: false });
        const note = native === op ? undefined : native;
        const kernelRow = (r: DeviceBenchResult, name: string): DeviceBenchRow => {
          const gb = r.bytes / r.kernelMs / 1e6;
          const row: DeviceBenchRow = {
            backend: name,
            op,
            size,
            batch: r.batch,
            timing: 'kernel',
            ms: r.kernelMs,
            samplesPerSecond: r.samplesPerSecond,
            gbPerSecond: gb,
            ofCopy: gb / ceil.copy,
            relError: r.relError,
          };
          if (note) row.note = note;
          return row;
        };
        const mine = kernelRow(ours, backend.name);
        if (ref.available) {
          const theirs = kernelRow(ref, ref.impl);
          mine.vsReference = ref.kernelMs / ours.kernelMs;
          push(mine);
          push(theirs);
        } else {
          mine.note = `${note ? note + '; ' : ''}no reference: ${ref.reason ?? 'unavailable'}`;
          push(mine);
        }
        if (Number.isFinite(ours.endToEndMs) && ours.endToEndMs > 0) {
          const count = transform ? size * ours.batch : ours.batch; // input samples
          const inBytes = count * (native.endsWith('i16') ? 2 : op === 'fft' || native === 'fir' ? 8 : 4);
          const e2e: DeviceBenchRow = {
            backend: backend.name,
            op,
            size,
            batch: ours.batch,
            timing: 'end-to-end',
            ms: ours.endToEndMs,
            samplesPerSecond: (ours.samplesPerSecond * ours.kernelMs) / ours.endToEndMs,
            ofHostToDevice: inBytes / ours.endToEndMs / 1e6 / ceil.h2d,
            relError: ours.relError,
          };
          if (note) e2e.note = note;
          push(e2e);
        }
      }
    }
  }
  return rows;
}

/** The device rows of every GPU backend given, in turn, compared with CUDA's where both ran; `timers` says
 * how each GPU backend timed itself or why it has no rows. */
export async function runDeviceBenches(
  backends: readonly Backend[],
  options: DeviceBenchOptions = {},
): Promise<{ rows: DeviceBenchRow[]; timers: DeviceTimerInfo[] }> {
  const rows: DeviceBenchRow[] = [];
  const timers: DeviceTimerInfo[] = [];
  // CUDA first, so the other backends' rows can be compared with it as they arrive
  const order = [...backends].sort((a, b) => (a.name === 'cuda' ? -1 : b.name === 'cuda' ? 1 : 0));
  for (const b of order) {
    const info = deviceTimerInfo(b);
    if (!info) continue;
    timers.push(info);
    if (info.missing) continue;
    rows.push(
      ...(await runDeviceBench(b, {
        ...options,
        onRow: (r) => {
          compareWithCuda([...rows, r]);
          options.onRow?.(r);
        },
      })),
    );
  }
  compareWithCuda(rows);
  return { rows, timers };
}
