// How the measurement panels (File view: MeasurePanel, Live view: LiveMeasurePanel) write the engine's
// band measurements (MeasureResult), and the tooltips that say how each value is defined
// (engine/dsp/measure.ts).

import { formatFrequency } from './axis.js';

/** Writes frequencies of a spectrum with bins `binWidth` Hz apart to a tenth of a bin. */
export function measureHz(binWidth: number | undefined): (f: number) => string {
  const res = binWidth !== undefined ? Math.max(binWidth / 10, 1e-3) : 1;
  return (f) => formatFrequency(f, res);
}

export function measureDb(v: number, unit = 'dB'): string {
  return `${v.toFixed(2)} ${unit}`;
}

export function measurePercent(v: number): string {
  return `${v < 0.01 ? v.toExponential(2) : v.toPrecision(3)} %`;
}

/** A resolution bandwidth to a thousandth of itself. */
export function measureRbw(rbw: number): string {
  return formatFrequency(rbw, rbw / 1000);
}

export const MEASURE_TIPS = {
  band: 'The band measured: the selected band, or the whole spectrum when the selection has none.',
  bandPower:
    'Power in the band (dBFS: a full-scale sine reads 0), the Welch spectrum summed over the band and divided by the window’s ENBW, so tones and noise both read right.',
  obw: 'Occupied bandwidth: the width holding 99 % of the band power, between its 0.5 % and 99.5 % points.',
  tone: 'The strongest tone in the band (DC left out), frequency to a fraction of a bin.',
  snr: 'SNR: the tone’s power over the noise in the band. Noise is the mean level of the bins outside the main lobes of DC, the tone and its harmonics (and their skirts, where side lobes stand above the noise), over the whole band; harmonics count in THD+N, not here.',
  thd: 'THD: √(Σ harmonic power / fundamental power), harmonics 2 to 10 up to the band’s upper edge, each fitted over its main lobe.',
  thdn: 'THD+N: √((Σ harmonic + noise power in the band) / fundamental power).',
  rbw: 'Resolution bandwidth: the window’s equivalent noise bandwidth (ENBW, in bins) × sample rate / FFT size.',
} as const;
