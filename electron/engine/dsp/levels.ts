// Levels in dBFS, AES17 convention: a full-scale real sine (amplitude 1) reads 0 dBFS, and so does a unit
// complex exponential, whatever the window.
//
// A windowed DFT bin of a tone centred on it has |X| = A·Σw/2 (real sine of amplitude A, positive-frequency
// half) or A·Σw (complex exponential). Normalized power P = |X|²·scale then reads A², i.e. 2·(mean square)
// of what the bin holds: scale = 4/(Σw)² for real bins, 1/(Σw)² for complex bins. The DC and Nyquist bins
// of a real spectrum hold their whole component (no mirror image), so they take 2/(Σw)²: a constant 1
// reads +3.01 dBFS, its RMS against the RMS of a full-scale sine, as AES17 defines it.

import { InvalidArgumentError } from '../errors.js';

/** Lowest level reported, so that silence gives a finite number (same default as the spectrogram). */
export const DEFAULT_FLOOR_DB = -300;

function checkWindowSum(windowSum: number): void {
  if (!Number.isFinite(windowSum) || windowSum === 0) {
    throw new InvalidArgumentError(`window sum must be a finite non-zero number, got ${windowSum}`);
  }
}

/**
 * The factor from |X_k|² of a windowed DFT to normalized power (1.0 for a full-scale tone centred on bin k).
 * For a real spectrum pass the bin index and the transform size so DC and Nyquist get their factor.
 */
export function binPowerScale(
  windowSum: number,
  complex: boolean,
  bin?: { index: number; n: number },
): number {
  checkWindowSum(windowSum);
  const s2 = windowSum * windowSum;
  if (complex) return 1 / s2;
  if (bin !== undefined && (bin.index === 0 || (bin.n % 2 === 0 && bin.index === bin.n / 2))) return 2 / s2;
  return 4 / s2;
}

/** 10·log10(power), floored at floorDb (default −300) so that zero power gives a finite level. */
export function powerToDb(power: number, floorDb = DEFAULT_FLOOR_DB): number {
  if (!(power > 0)) return floorDb;
  const db = 10 * Math.log10(power);
  return db > floorDb ? db : floorDb;
}

/** 10^(dB/10). */
export function dbToPower(db: number): number {
  return Math.pow(10, db / 10);
}

/** 20·log10|amplitude| (floored): the dBFS of a sine of this peak amplitude, or of a complex exponential. */
export function amplitudeToDbfs(amplitude: number, floorDb = DEFAULT_FLOOR_DB): number {
  return powerToDb(amplitude * amplitude, floorDb);
}

/**
 * dBFS of a windowed DFT bin given |X_k|² (unscaled, as numpy.fft computes it), the window sum Σw and
 * whether the input was complex. `bin` marks DC/Nyquist of a real spectrum (see binPowerScale).
 */
export function binPowerToDbfs(
  magnitudeSquared: number,
  windowSum: number,
  complex: boolean,
  options: { bin?: { index: number; n: number }; floorDb?: number } = {},
): number {
  return powerToDb(magnitudeSquared * binPowerScale(windowSum, complex, options.bin), options.floorDb);
}

/**
 * Converts |X|² values in place to dBFS (the same scale for every value: interior bins of a real spectrum,
 * or complex bins). Returns the array. For hot paths: one multiply and one log per value.
 */
export function powerArrayToDbfs(
  values: Float32Array | Float64Array,
  windowSum: number,
  complex: boolean,
  floorDb = DEFAULT_FLOOR_DB,
): Float32Array | Float64Array {
  const scale = binPowerScale(windowSum, complex);
  for (let i = 0; i < values.length; i++) {
    const p = values[i] * scale;
    const db = p > 0 ? 10 * Math.log10(p) : floorDb;
    values[i] = db > floorDb ? db : floorDb;
  }
  return values;
}
