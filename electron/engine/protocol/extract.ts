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
