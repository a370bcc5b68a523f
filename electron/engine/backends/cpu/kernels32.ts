// The single-precision ('single') versions of the CPU backend's transform jobs: the same tasks as
// kernels.ts, computed in float32 by the WebAssembly SIMD kernels of simd.ts. Only power-of-two transform
// sizes come here (the processors set `single` on a job only then); other sizes keep the float64 path.
// Each task copies its input from the job's arrays into the module's memory and its result back, and does
// the same computation on the same data wherever it runs, so results stay bit-identical across block
// sizes and between the calling thread and the workers.

import { spectrumBins } from '../../protocol/shape.js';
import type { CorrOverlapSaveJob, FftJob, FirOverlapSaveJob, RealFftJob, SpectrogramJob } from './jobs.js';
import { firTask } from './jobs.js';
import { columnEdges, writeRow } from './levels.js';
import { scratchF64 } from './scratch.js';

/** kernels.ts's float64 jobs use scratch slots 0…2. */
const SPECTROGRAM_POWER_SLOT = 3;
import { simdKernels, simdUnavailableReason, type SimdKernels } from './simd.js';

/** Values staged per call of a batched transform (a few hundred KiB: stays in the core's cache). */
const GROUP_VALUES = 1 << 16;

function kernels(): SimdKernels {
  const k = simdKernels();
  if (k === null) throw new Error(`the float32 SIMD kernels could not be loaded: ${simdUnavailableReason()}`);
  return k;
}

export function runFft32(job: FftJob, start: number, end: number): void {
  const k = kernels();
  const n = job.n;
  k.begin();
  const tw = k.twiddles(n);
  const group = Math.max(1, Math.floor(GROUP_VALUES / (2 * n)));
  const z = k.alloc(2 * n * Math.min(group, end - start));
  const s = k.alloc(2 * n);
  const f32 = k.f32;
  for (let a = start; a < end; a += group) {
    const b = Math.min(end, a + group);
    f32.set(job.input.subarray(2 * n * a, 2 * n * b), z);
    k.fn.fft_batch(4 * z, 4 * z, 4 * s, tw, n, b - a, job.inverse ? 1 : 0);
    job.output.set(f32.subarray(z, z + 2 * n * (b - a)), 2 * n * a);
  }
}

export function runRealFft32(job: RealFftJob, start: number, end: number): void {
  const k = kernels();
  const n = job.n;
  k.begin();
  const twh = k.twiddles(n >> 1);
  const twn = k.twiddles(n);
  const group = Math.max(1, Math.floor(GROUP_VALUES / (n + 2)));
  const cnt = Math.min(group, end - start);
  const x = k.alloc(n * cnt);
  const X = k.alloc((n + 2) * cnt);
  const s = k.alloc(n);
  const f32 = k.f32;
  const fwd = job.kind === 'rfft';
  const inLen = fwd ? n : n + 2;
  const outLen = fwd ? n + 2 : n;
  for (let a = start; a < end; a += group) {
    const b = Math.min(end, a + group);
    f32.set(job.input.subarray(inLen * a, inLen * b), fwd ? x : X);
    if (fwd) k.fn.rfft_batch(4 * x, 4 * X, 4 * s, twh, twn, n, b - a);
    else k.fn.irfft_batch(4 * X, 4 * x, 4 * s, twh, twn, n, b - a);
    const o = fwd ? X : x;
    job.output.set(f32.subarray(o, o + outLen * (b - a)), outLen * a);
  }
}

/** The job's float64 spectrum as float32 in the module's memory (`count` complex values). */
function stageSpectrum(k: SimdKernels, spectrum: Float64Array, count: number): number {
  const h = k.alloc(2 * count);
  const f32 = k.f32;
  for (let i = 0; i < 2 * count; i++) f32[h + i] = spectrum[i];
  return h;
}

export function runFirOverlapSave32(job: FirOverlapSaveJob, start: number, end: number): void {
  const { size: L, numtaps: M, lanes, input, output } = job;
  const k = kernels();
  k.begin();
  const tw = k.twiddles(L);
  const twh = k.twiddles(L >> 1);
  const pairs = lanes >> 1;
  const h = stageSpectrum(k, job.spectrum, L);
  const z = k.alloc(2 * L + 4);
  const s = k.alloc(2 * L);
  const f32 = k.f32;
  const fn = k.fn;
  for (let t = start; t < end; t++) {
    const { g, f0, count } = firTask(job, t);
    if (g < pairs) {
      // Two real lanes as one complex signal: real taps keep them apart (re → lane v, im → lane v+1).
      const v = 2 * g;
      if (lanes === 2) f32.set(input.subarray(2 * f0, 2 * (f0 + L)), z);
      else {
        for (let i = 0; i < L; i++) {
          const idx = (f0 + i) * lanes + v;
          f32[z + 2 * i] = input[idx];
          f32[z + 2 * i + 1] = input[idx + 1];
        }
      }
      fn.fft_batch(4 * z, 4 * z, 4 * s, tw, L, 1, 0);
      fn.cmul(4 * z, 4 * h, L, 0);
      fn.fft_batch(4 * z, 4 * z, 4 * s, tw, L, 1, 1);
      const from = z + 2 * (M - 1);
      if (lanes === 2) output.set(f32.subarray(from, from + 2 * count), 2 * f0);
      else {
        for (let i = 0; i < count; i++) {
          const o = (f0 + i) * lanes + v;
          output[o] = f32[from + 2 * i];
          output[o + 1] = f32[from + 2 * i + 1];
        }
      }
    } else {
      // An odd last lane through the real transform (L reals → L/2 + 1 bins).
      const v = lanes - 1;
      if (lanes === 1) f32.set(input.subarray(f0, f0 + L), z);
      else for (let i = 0; i < L; i++) f32[z + i] = input[(f0 + i) * lanes + v];
      fn.rfft_batch(4 * z, 4 * z, 4 * s, twh, tw, L, 1);
      fn.cmul(4 * z, 4 * h, (L >> 1) + 1, 0);
      fn.irfft_batch(4 * z, 4 * s, 4 * (s + L), twh, tw, L, 1);
      const from = s + M - 1;
      if (lanes === 1) output.set(f32.subarray(from, from + count), f0);
      else for (let i = 0; i < count; i++) output[(f0 + i) * lanes + v] = f32[from + i];
    }
  }
}

/**
 * FFT correlation in float32: the segment's correlation c = IFFT(FFT(x)·conj T) comes from the kernels;
 * the window energies and scores stay in float64 (kernels.ts corrScores), as in the double path.
 */
export function corrSegment32(
  job: CorrOverlapSaveJob,
  seg: number,
  state: { k: SimdKernels; tw: number; twh: number; h: number; z: number; s: number } | null,
): { c: Float32Array; offset: number; state: NonNullable<typeof state> } {
  const { complex, size: L, templateLength: M, input: x } = job;
  if (state === null) {
    const k = kernels();
    k.begin();
    const tw = k.twiddles(L);
    const twh = k.twiddles(L >> 1);
    const h = stageSpectrum(k, job.spectrum, complex ? L : (L >> 1) + 1);
    const z = k.alloc(2 * L + 4);
    const s = k.alloc(3 * L);
    state = { k, tw, twh, h, z, s };
  }
  const { k, tw, twh, h, z, s } = state;
  const S = L - M + 1;
  const l0 = seg * S;
  const f32 = k.f32;
  if (complex) {
    f32.set(x.subarray(2 * l0, 2 * l0 + 2 * L), z);
    k.fn.fft_batch(4 * z, 4 * z, 4 * s, tw, L, 1, 0);
    k.fn.cmul(4 * z, 4 * h, L, 0);
    k.fn.fft_batch(4 * z, 4 * z, 4 * s, tw, L, 1, 1);
    return { c: f32, offset: z, state };
  }
  f32.set(x.subarray(l0, l0 + L), z);
  k.fn.rfft_batch(4 * z, 4 * z, 4 * s, twh, tw, L, 1);
  k.fn.cmul(4 * z, 4 * h, (L >> 1) + 1, 0);
  k.fn.irfft_batch(4 * z, 4 * s, 4 * (s + L), twh, tw, L, 1);
  return { c: f32, offset: s, state };
}

/** Spectrogram frames in float32: window, transform and power in the kernels, levels in float64 (writeRow). */
export function runSpectrogram32(job: SpectrogramJob, start: number, end: number): void {
  const { n, hop, complex, samples, width, columns, norm, normEdge } = job;
  const win = job.window;
  const k = kernels();
  k.begin();
  const tw = k.twiddles(n);
  const twh = complex ? 0 : k.twiddles(n >> 1);
  const bins = spectrumBins(n, complex);
  const vps = complex ? 2 : 1;
  const w = k.alloc(vps * n);
  const x = k.alloc(2 * n + 4);
  const s = k.alloc(2 * n);
  const p = k.alloc(n + 4);
  const f32 = k.f32;
  const fn = k.fn;
  for (let i = 0; i < n; i++) {
    if (complex) f32[w + 2 * i] = f32[w + 2 * i + 1] = win[i];
    else f32[w + i] = win[i];
  }
  const power = scratchF64(SPECTROGRAM_POWER_SLOT, bins);
  const half = n >> 1;
  const edges = columnEdges(bins, columns);
  for (let f = start; f < end; f++) {
    const base = vps * f * hop;
    f32.set(samples.subarray(base, base + vps * n), x);
    fn.window(4 * x, 4 * w, vps * n);
    if (complex) {
      fn.fft_batch(4 * x, 4 * x, 4 * s, tw, n, 1, 0);
      fn.power(4 * x, 4 * p, n);
      // fftshift: row position j holds bin (j − ⌊n/2⌋) mod n, ascending frequency from −fs/2.
      for (let j = 0; j < n; j++) {
        let b = j - half;
        if (b < 0) b += n;
        power[j] = f32[p + b] * norm;
      }
    } else {
      fn.rfft_batch(4 * x, 4 * x, 4 * s, twh, tw, n, 1);
      fn.power(4 * x, 4 * p, bins);
      for (let b = 0; b < bins; b++) power[b] = f32[p + b] * (b === 0 || b === half ? normEdge : norm);
    }
    writeRow(power, edges, width, f * width, job.rows, job.linear, job.floorDb);
  }
}
