// The CPU backend's compute jobs: plain objects of typed arrays plus a task count, run by kernels.ts
// runTasks() on the calling thread or in the pool's workers (every array then in shared memory).

/** Batched complex FFT: task t transforms input[2n·t …] into output[2n·t …]. */
export interface FftJob {
  kind: 'fft';
  n: number;
  inverse: boolean;
  /** float32 SIMD (kernels32.ts); only for powers of two. */
  single?: boolean;
  input: Float32Array;
  output: Float32Array;
}

/** Batched real FFT (n reals → floor(n/2)+1 bins) or its inverse. */
export interface RealFftJob {
  kind: 'rfft' | 'irfft';
  n: number;
  /** float32 SIMD (kernels32.ts); only for powers of two ≥ 4. */
  single?: boolean;
  input: Float32Array;
  output: Float32Array;
}

/** Spectrogram frames: task f windows samples from f·hop (in samples), transforms, writes row f. */
export interface SpectrogramJob {
  kind: 'spectrogram';
  n: number;
  /** float32 SIMD transforms (kernels32.ts); only for powers of two ≥ 4. */
  single?: boolean;
  hop: number;
  complex: boolean;
  window: Float64Array;
  /** Samples from the first frame's start (interleaved I/Q when complex). */
  samples: Float32Array;
  /** Output bins per row after reduction (bins when columns = 0). */
  width: number;
  /** Reduce to this many columns (max of each column's bins); 0 = no reduction. */
  columns: number;
  /** |X|² × norm is the power relative to full scale (1 / Σw²… see spectrogram.ts); DC/Nyquist use normEdge. */
  norm: number;
  normEdge: number;
  floorDb: number;
  /** frames × width levels (dB). */
  rows: Float32Array;
  /** frames × width linear power, when averaging needs it. */
  linear: Float64Array | null;
}

/** Direct-form FIR over `frames` frames of `lanes` interleaved real streams. `input` starts M−1 frames early
 * (the history). Task t computes frames [t·chunk, (t+1)·chunk). */
export interface FirDirectJob {
  kind: 'fir-direct';
  taps: Float64Array;
  lanes: number;
  frames: number;
  chunk: number;
  input: Float32Array;
  output: Float32Array;
}

/** Overlap-save FIR. Segment j yields output frames [j·S, (j+1)·S) from input frames [j·S, j·S+L) of `input`
 * (which starts M−1 frames before the first output). Task t = segment ⌊t/groups⌋, stream group t mod groups
 * (pairs of lanes as one complex FFT, an odd last lane through the real FFT). */
export interface FirOverlapSaveJob {
  kind: 'fir-os';
  size: number;
  /** float32 SIMD transforms (kernels32.ts); the size is a power of two. */
  single?: boolean;
  numtaps: number;
  lanes: number;
  /** Output frames wanted (the last segment may be cut short). */
  frames: number;
  /** Spectrum of the taps zero-padded to `size` (interleaved complex, size values). */
  spectrum: Float64Array;
  input: Float32Array;
  output: Float32Array;
}

/** Direct normalized correlation: lag i of the job uses samples [i, i+M) of `input`. Task t = lags
 * [t·chunk, (t+1)·chunk). */
export interface CorrDirectJob {
  kind: 'corr-direct';
  complex: boolean;
  /** The template (interleaved when complex), float64. */
  template: Float64Array;
  templateNorm: number;
  lags: number;
  chunk: number;
  input: Float32Array;
  scores: Float32Array;
}

/** FFT correlation: segment j (a task) gives lags [j·S, j·S+S) from samples [j·S, j·S+L). */
export interface CorrOverlapSaveJob {
  kind: 'corr-os';
  complex: boolean;
  /** float32 SIMD transforms (kernels32.ts); the size is a power of two. */
  single?: boolean;
  size: number;
  templateLength: number;
  templateNorm: number;
  /** Conjugate spectrum of the template zero-padded to `size` (interleaved complex). */
  spectrum: Float64Array;
  lags: number;
  input: Float32Array;
  scores: Float32Array;
}

export type Job =
  | FftJob
  | RealFftJob
  | SpectrogramJob
  | FirDirectJob
  | FirOverlapSaveJob
  | CorrDirectJob
  | CorrOverlapSaveJob;

/** Task t of an overlap-save FIR job: segment ⌊t/groups⌋ (output frames f0 … f0+count), stream group g
 * (g < lanes/2: lanes 2g and 2g+1 as one complex signal; else the odd last lane). */
export function firTask(job: FirOverlapSaveJob, t: number): { g: number; f0: number; count: number } {
  const groups = (job.lanes >> 1) + (job.lanes & 1);
  const seg = Math.floor(t / groups);
  const S = job.size - job.numtaps + 1;
  const f0 = seg * S;
  return { g: t - seg * groups, f0, count: Math.min(S, job.frames - f0) };
}
