// Validation of the processor configurations every backend accepts (the contract of backend.ts), shared so
// that each backend refuses the same bad arguments with the same message.
import { InvalidArgumentError } from '../errors.js';
import { SPECTRUM_FFT_SIZE_MAX, TRANSFORM_SIZE_MAX, spectrumBins } from '../protocol/shape.js';
import type { CorrelatorConfig, FirConfig, SpectrogramConfig } from './backend.js';

export function checkInteger(what: string, value: unknown, min: number, max: number): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    const range = max >= Number.MAX_SAFE_INTEGER ? `≥ ${min}` : `in ${min} … ${max}`;
    throw new InvalidArgumentError(`${what} must be an integer ${range} (got ${String(value)})`);
  }
}

export function validateSpectrogramConfig(config: SpectrogramConfig): void {
  if (typeof config !== 'object' || config === null)
    throw new InvalidArgumentError('spectrogram: config is required');
  checkInteger('spectrogram: fft', config.fft, 1, SPECTRUM_FFT_SIZE_MAX);
  checkInteger('spectrogram: hop', config.hop, 1, Number.MAX_SAFE_INTEGER);
  if (!(config.window instanceof Float32Array) || config.window.length !== config.fft) {
    throw new InvalidArgumentError(
      `spectrogram: window must be a Float32Array of length fft = ${config.fft} (got ${
        config.window instanceof Float32Array ? `length ${config.window.length}` : typeof config.window
      })`,
    );
  }
  let sum = 0;
  for (const w of config.window) sum += w;
  if (!Number.isFinite(sum) || sum === 0) {
    throw new InvalidArgumentError('spectrogram: the window must have finite values and a non-zero sum');
  }
  const bins = spectrumBins(config.fft, config.complex);
  if (config.columns !== undefined) checkInteger('spectrogram: columns', config.columns, 1, bins);
  if (config.averaging !== undefined) {
    if (!(typeof config.averaging === 'number' && config.averaging > 0 && config.averaging <= 1)) {
      throw new InvalidArgumentError(`spectrogram: averaging must be in (0, 1] (got ${config.averaging})`);
    }
  }
  if (
    config.floorDb !== undefined &&
    !(typeof config.floorDb === 'number' && !Number.isNaN(config.floorDb))
  ) {
    throw new InvalidArgumentError(`spectrogram: floorDb must be a number (got ${config.floorDb})`);
  }
}

export function validateFirConfig(config: FirConfig): void {
  if (typeof config !== 'object' || config === null)
    throw new InvalidArgumentError('fir: config is required');
  if (
    !(config.taps instanceof Float32Array || config.taps instanceof Float64Array) ||
    config.taps.length < 1
  ) {
    throw new InvalidArgumentError(
      'fir: taps must be a non-empty Float32Array or Float64Array (numtaps ≥ 1)',
    );
  }
  for (const t of config.taps) {
    if (!Number.isFinite(t)) throw new InvalidArgumentError('fir: every tap must be a finite number');
  }
  checkInteger('fir: channels', config.channels, 1, 1 << 16);
  if (config.method !== undefined && !['auto', 'direct', 'overlap-save'].includes(config.method)) {
    throw new InvalidArgumentError(
      `fir: method must be 'auto', 'direct' or 'overlap-save' (got ${String(config.method)})`,
    );
  }
}

export function validateCorrelatorConfig(config: CorrelatorConfig): void {
  if (typeof config !== 'object' || config === null)
    throw new InvalidArgumentError('correlate: config is required');
  if (!(config.template instanceof Float32Array) || config.template.length === 0) {
    throw new InvalidArgumentError('correlate: template must be a non-empty Float32Array');
  }
  if (config.complex && config.template.length % 2 !== 0) {
    throw new InvalidArgumentError(
      `correlate: a complex template holds interleaved I/Q pairs (an even number of values, got ${config.template.length})`,
    );
  }
  for (const t of config.template) {
    if (!Number.isFinite(t)) throw new InvalidArgumentError('correlate: every template value must be finite');
  }
  if (config.peaks !== undefined) checkInteger('correlate: peaks', config.peaks, 0, 1 << 20);
  if (config.peakRadius !== undefined)
    checkInteger('correlate: peakRadius', config.peakRadius, 0, Number.MAX_SAFE_INTEGER);
}

export type TransformKind = 'fft' | 'rfft' | 'irfft';

/**
 * Checks a batched transform's size and input length (backend.ts's contract, any backend) and returns the
 * batch and the output's length in float32 values: fft batch × n complex in and out, rfft batch × n reals
 * to batch × bins complex, irfft the reverse.
 */
export function transformShape(
  kind: TransformKind,
  n: number,
  inputLength: number,
): { batch: number; outLength: number } {
  checkInteger(`${kind}: n`, n, 1, TRANSFORM_SIZE_MAX);
  const bins = spectrumBins(n, false);
  const [per, what] =
    kind === 'fft'
      ? [2 * n, `2·n = ${2 * n} (batch × n interleaved complex values)`]
      : kind === 'rfft'
        ? [n, `n = ${n} (batch × n reals)`]
        : [2 * bins, `2·(floor(n/2)+1) = ${2 * bins} (batch × bins interleaved complex values)`];
  if (inputLength % per !== 0) {
    throw new InvalidArgumentError(`${kind}: input length ${inputLength} is not a multiple of ${what}`);
  }
  const batch = inputLength / per;
  const outLength = kind === 'fft' ? inputLength : kind === 'rfft' ? batch * 2 * bins : batch * n;
  return { batch, outLength };
}

/** The caller's `out` array when it has exactly `length` values, else a new one when none was given. */
export function transformOutput(out: Float32Array | undefined, length: number, what: string): Float32Array {
  if (out === undefined) return new Float32Array(length);
  if (!(out instanceof Float32Array) || out.length !== length) {
    throw new InvalidArgumentError(
      `${what}: out must be a Float32Array of exactly ${length} values (got ${
        out instanceof Float32Array ? out.length : typeof out
      })`,
    );
  }
  return out;
}
