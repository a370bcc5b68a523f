// Extraction of a selection (pipeline/extract.ts): its defaults and the decimation a band suggests,
// declared once for the engine, the CLI and the renderer. Browser-safe.

/** Taps of the extraction's low-pass when none are asked for (the `phasor filter` default). */
export const EXTRACT_NUMTAPS = 255;

/** Output rate kept per Hz of low-pass cutoff by the suggested decimation: the band B fills 2·B of a
 * complex (or real) output's rate, and the 0.5·B beyond it leaves room for the filter's transition band,
 * so what aliases back lies in its stop band. */
export const EXTRACT_RATE_PER_CUTOFF = 2.5;

/** The largest decimation K keeping fs/K ≥ EXTRACT_RATE_PER_CUTOFF · cutoff (1 when none fits). */
export function suggestedDecimation(sampleRate: number, cutoff: number): number {
  if (!(cutoff > 0) || !(sampleRate > 0)) return 1;
  return Math.max(1, Math.floor(sampleRate / (EXTRACT_RATE_PER_CUTOFF * cutoff)));
}

/** What an extraction wrote (`phasor extract --json`, the `extract` request's reply). */
export interface ExtractResult {
  /** The file to open (a SigMF output: its .sigmf-meta). */
  output: string;
  /** Frames written. */
  frames: number;
  /** The output's rate: the input's / decimate. */
  sampleRate: number;
  /** The output's centre frequency, when known (I/Q input with a centre, or a shifted real input). */
  centerFrequency?: number;
  complex: boolean;
  encoding: string;
  /** The selection, in input frames. */
  start: number;
  end: number;
  /** The output's length in seconds. */
  duration: number;
  shift: number;
  lowpass?: number;
  numtaps?: number;
  decimate: number;
  /** core:datetime of the output's first sample, when the input's captures give one. */
  datetime?: string;
  backend: string;
}
