// The CPU backend's compute jobs. A job is a plain object of typed arrays plus a task count; runTasks()
// executes tasks [start, end) of it. The same code runs on the calling thread (small jobs, on ordinary
// arrays) and in the worker pool (large jobs, every array backed by a SharedArrayBuffer, each worker taking
// ranges of tasks), so both paths give bit-identical results.
//
// Arithmetic is float64 (inputs and outputs float32), except for jobs marked `single`: power-of-two
// transforms that kernels32.ts computes in float32 with WebAssembly SIMD.

import { getFftPlan, getRealFftPlan } from '../../fft/index.js';
import { spectrumBins } from '../../protocol/shape.js';
import type {
  CorrDirectJob,
  CorrOverlapSaveJob,
  FftJob,
  FirDirectJob,
  FirOverlapSaveJob,
  Job,
  RealFftJob,
  SpectrogramJob,
} from './jobs.js';
import { firTask } from './jobs.js';
import { columnEdges, writeRow } from './levels.js';
import { scratchF64 } from './scratch.js';
import { corrSegment32, runFft32, runFirOverlapSave32, runRealFft32, runSpectrogram32 } from './kernels32.js';

// ------------------------------------------------------------------------------------------------
// Scratch (per thread; jobs never run re-entrantly)

const buf = scratchF64;

/** Values converted per group when staging float32 batches to float64 (amortizes the subarray views). */
const GROUP_VALUES = 1 << 15;

// ------------------------------------------------------------------------------------------------

export function runTasks(job: Job, start: number, end: number): void {
  switch (job.kind) {
    case 'fft':
      return job.single === true ? runFft32(job, start, end) : runFft(job, start, end);
    case 'rfft':
    case 'irfft':
      return job.single === true ? runRealFft32(job, start, end) : runRealFft(job, start, end);
    case 'spectrogram':
      return job.single === true ? runSpectrogram32(job, start, end) : runSpectrogram(job, start, end);
    case 'fir-direct':
      return runFirDirect(job, start, end);
    case 'fir-os':
      return job.single === true ? runFirOverlapSave32(job, start, end) : runFirOverlapSave(job, start, end);
    case 'corr-direct':
      return runCorrDirect(job, start, end);
    case 'corr-os':
      return runCorrOverlapSave(job, start, end);
  }
}

function runFft(job: FftJob, start: number, end: number): void {
  // The plans read float32 and write float32 themselves (converted in their first and last passes), so no
  // staging copies here: TypedArray.prototype.set between float32 and float64 is slow on shared memory.
  const n2 = 2 * job.n;
  getFftPlan(job.n).batch(job.input, job.output, end - start, job.inverse, start * n2, start * n2);
}

function runRealFft(job: RealFftJob, start: number, end: number): void {
  const plan = getRealFftPlan(job.n);
  const inLen = job.kind === 'rfft' ? job.n : 2 * plan.bins;
  const outLen = job.kind === 'rfft' ? 2 * plan.bins : job.n;
  const group = Math.max(1, Math.floor(GROUP_VALUES / Math.max(inLen, outLen)));
  const tin = buf(0, group * inLen);
  const tout = buf(1, group * outLen);
  for (let a = start; a < end; a += group) {
    const b = Math.min(end, a + group);
    tin.set(job.input.subarray(a * inLen, b * inLen));
    for (let i = 0; i < b - a; i++) {
      if (job.kind === 'rfft') plan.forward(tin, tout, i * inLen, i * outLen);
      else plan.inverse(tin, tout, i * inLen, i * outLen);
    }
    job.output.set(tout.subarray(0, (b - a) * outLen), a * outLen);
  }
}

// ------------------------------------------------------------------------------------------------
// Spectrogram

function runSpectrogram(job: SpectrogramJob, start: number, end: number): void {
  const {
    n,
    hop,
    complex,
    window: win,
    samples,
    width,
    columns,
    norm,
    normEdge,
    floorDb,
    rows,
    linear,
  } = job;
  const bins = spectrumBins(n, complex);
  const x = buf(0, complex ? 2 * n : n);
  const spec = buf(1, 2 * bins);
  const power = buf(2, bins);
  const half = n >> 1;
  const plan = complex ? getFftPlan(n) : null;
  const rplan = complex ? null : getRealFftPlan(n);
  const edges = columnEdges(bins, columns);
  for (let f = start; f < end; f++) {
    if (plan !== null) {
      const base = 2 * f * hop;
      for (let i = 0; i < n; i++) {
        const w = win[i];
        x[2 * i] = samples[base + 2 * i] * w;
        x[2 * i + 1] = samples[base + 2 * i + 1] * w;
      }
      plan.forward(x, spec);
      // fftshift: row position j holds bin (j − ⌊n/2⌋) mod n, ascending frequency from −fs/2.
      for (let j = 0; j < n; j++) {
        let k = j - half;
        if (k < 0) k += n;
        const re = spec[2 * k],
          im = spec[2 * k + 1];
        power[j] = (re * re + im * im) * norm;
      }
    } else {
      const base = f * hop;
      for (let i = 0; i < n; i++) x[i] = samples[base + i] * win[i];
      rplan!.forward(x, spec);
      for (let k = 0; k < bins; k++) {
        const re = spec[2 * k],
          im = spec[2 * k + 1];
        // One-sided spectrum: every bin but DC (and Nyquist for even n) carries its negative twin too.
        const edge = k === 0 || (k === half && n % 2 === 0);
        power[k] = (re * re + im * im) * (edge ? normEdge : norm);
      }
    }
    writeRow(power, edges, width, f * width, rows, linear, floorDb);
  }
}

// ------------------------------------------------------------------------------------------------
// FIR

function runFirDirect(job: FirDirectJob, start: number, end: number): void {
  const { taps, lanes, frames, chunk, input, output } = job;
  const m = taps.length;
  for (let t = start; t < end; t++) {
    const f0 = t * chunk;
    const f1 = Math.min(frames, f0 + chunk);
    for (let v = 0; v < lanes; v++) {
      for (let f = f0; f < f1; f++) {
        // y[f] = Σ h[k]·x[f − k]; x[f] sits at input frame f + M − 1.
        let acc = 0;
        let idx = (f + m - 1) * lanes + v;
        for (let k = 0; k < m; k++, idx -= lanes) acc += taps[k] * input[idx];
        output[f * lanes + v] = acc;
      }
    }
  }
}

function runFirOverlapSave(job: FirOverlapSaveJob, start: number, end: number): void {
  const { size: L, numtaps: M, lanes, spectrum: H, input, output } = job;
  const pairs = lanes >> 1;
  const plan = getFftPlan(L);
  const z = buf(0, 2 * L);
  for (let t = start; t < end; t++) {
    const { g, f0, count } = firTask(job, t);
    if (g < pairs) {
      // Two real lanes as one complex signal: real taps keep them apart (re → lane v, im → lane v+1).
      const v = 2 * g;
      for (let i = 0; i < L; i++) {
        const idx = (f0 + i) * lanes + v;
        z[2 * i] = input[idx];
        z[2 * i + 1] = input[idx + 1];
      }
      plan.forward(z, z);
      multiply(z, H, L);
      plan.inverse(z, z);
      for (let i = 0; i < count; i++) {
        const o = (f0 + i) * lanes + v;
        output[o] = z[2 * (M - 1 + i)];
        output[o + 1] = z[2 * (M - 1 + i) + 1];
      }
    } else {
      const v = lanes - 1;
      const rplan = getRealFftPlan(L);
      const r = buf(1, L);
      const spec = buf(2, L + 2);
      for (let i = 0; i < L; i++) r[i] = input[(f0 + i) * lanes + v];
      rplan.forward(r, spec);
      multiply(spec, H, rplan.bins);
      rplan.inverse(spec, r);
      for (let i = 0; i < count; i++) output[(f0 + i) * lanes + v] = r[M - 1 + i];
    }
  }
}

/** a[k] ← a[k]·h[k] for k < count (interleaved complex). */
function multiply(a: Float64Array, h: Float64Array, count: number): void {
  for (let i = 0; i < 2 * count; i += 2) {
    const ar = a[i],
      ai = a[i + 1];
    const hr = h[i],
      hi = h[i + 1];
    a[i] = ar * hr - ai * hi;
    a[i + 1] = ar * hi + ai * hr;
  }
}

// ------------------------------------------------------------------------------------------------
// Correlation

/** |re + i·im|. Not Math.hypot, which V8 runs 10× slower (44 against 4 ms for 2^19 values here): the
 * operands come from float32 samples, so their squares neither overflow nor underflow in float64. */
function magnitude(re: number, im: number): number {
  return Math.sqrt(re * re + im * im);
}

function score(num: number, tnorm: number, energy: number): number {
  if (!(energy > 0) || !(tnorm > 0)) return 0;
  const s = num / (tnorm * Math.sqrt(energy));
  return s > 1 ? 1 : s;
}

function runCorrDirect(job: CorrDirectJob, start: number, end: number): void {
  const { complex, template: t, templateNorm, lags, chunk, input: x, scores } = job;
  if (complex) {
    const m = t.length >> 1;
    for (let c = start; c < end; c++) {
      const l1 = Math.min(lags, (c + 1) * chunk);
      for (let l = c * chunk; l < l1; l++) {
        let sr = 0,
          si = 0,
          e = 0;
        for (let k = 0; k < m; k++) {
          const xr = x[2 * (l + k)],
            xi = x[2 * (l + k) + 1];
          const tr = t[2 * k],
            ti = t[2 * k + 1];
          // x·conj(t)
          sr += xr * tr + xi * ti;
          si += xi * tr - xr * ti;
          e += xr * xr + xi * xi;
        }
        scores[l] = score(magnitude(sr, si), templateNorm, e);
      }
    }
  } else {
    const m = t.length;
    for (let c = start; c < end; c++) {
      const l1 = Math.min(lags, (c + 1) * chunk);
      for (let l = c * chunk; l < l1; l++) {
        let s = 0,
          e = 0;
        for (let k = 0; k < m; k++) {
          const xv = x[l + k];
          s += xv * t[k];
          e += xv * xv;
        }
        scores[l] = score(Math.abs(s), templateNorm, e);
      }
    }
  }
}

function runCorrOverlapSave(job: CorrOverlapSaveJob, start: number, end: number): void {
  const { complex, size: L, templateLength: M, templateNorm, spectrum: T, lags, input: x, scores } = job;
  const S = L - M + 1;
  let state32: Parameters<typeof corrSegment32>[2] = null;
  for (let seg = start; seg < end; seg++) {
    const l0 = seg * S;
    const count = Math.min(S, lags - l0);
    // The segment's correlation: c[co + i] (real) or c[co + 2i], c[co + 2i + 1] (complex).
    let c: Float64Array | Float32Array;
    let co = 0;
    if (job.single === true) {
      const r = corrSegment32(job, seg, state32);
      state32 = r.state;
      c = r.c;
      co = r.offset;
    } else if (complex) {
      const z = buf(0, 2 * L);
      for (let i = 0; i < 2 * L; i++) z[i] = x[2 * l0 + i];
      const plan = getFftPlan(L);
      plan.forward(z, z);
      multiply(z, T, L);
      plan.inverse(z, z);
      c = z;
    } else {
      const r = buf(1, L);
      const spec = buf(2, L + 2);
      for (let i = 0; i < L; i++) r[i] = x[l0 + i];
      const rplan = getRealFftPlan(L);
      rplan.forward(r, spec);
      multiply(spec, T, rplan.bins);
      rplan.inverse(spec, r);
      c = r;
    }
    // Window energy: summed afresh at the segment start, then slid with Neumaier compensation so a loud
    // stretch leaving the window leaves no residue; a count of non-zero samples gives exact silence.
    let e = 0,
      comp = 0,
      nonzero = 0;
    for (let k = 0; k < M; k++) {
      const p = complex ? x[2 * (l0 + k)] ** 2 + x[2 * (l0 + k) + 1] ** 2 : x[l0 + k] ** 2;
      const s = e + p;
      comp += Math.abs(e) >= p ? e - s + p : p - s + e;
      e = s;
      if (p !== 0) nonzero++;
    }
    for (let i = 0; i < count; i++) {
      const num = complex ? magnitude(c[co + 2 * i], c[co + 2 * i + 1]) : Math.abs(c[co + i]);
      const energy = e + comp;
      scores[l0 + i] = nonzero > 0 ? score(num, templateNorm, energy) : 0;
      if (i + 1 < count) {
        const a = l0 + i + M; // entering
        const b = l0 + i; // leaving
        const pin = complex ? x[2 * a] ** 2 + x[2 * a + 1] ** 2 : x[a] ** 2;
        const pout = complex ? x[2 * b] ** 2 + x[2 * b + 1] ** 2 : x[b] ** 2;
        if (pin !== 0) nonzero++;
        if (pout !== 0) nonzero--;
        let s = e + pin;
        comp += Math.abs(e) >= pin ? e - s + pin : pin - s + e;
        e = s;
        s = e - pout;
        comp += Math.abs(e) >= pout ? e - s - pout : -pout - s + e;
        e = s;
      }
    }
  }
}
