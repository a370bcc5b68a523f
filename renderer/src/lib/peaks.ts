// Labels of the peak markers. The peaks themselves come from the engine (its peaks events: found on
// full-resolution spectra, frequency and level fitted to the window's response), not from the traces,
// whose columns are maxima over several bins.

import { formatFrequency } from './axis.js';

/**
 * "1.000 kHz  −6.02 dB": the frequency to a tenth of a bin (what the engine's fit resolves for a clear
 * tone), in the unit `unitRef` (the largest frequency on the axis) calls for; the level in dBFS to 0.01 dB.
 */
export function peakLabel(frequency: number, level: number, binWidth: number, unitRef: number): string {
  let db = level.toFixed(2);
  if (/^-0\.00$/.test(db)) db = '0.00';
  return `${formatFrequency(frequency, binWidth / 10, unitRef)}  ${db.replace('-', '−')} dB`;
}
