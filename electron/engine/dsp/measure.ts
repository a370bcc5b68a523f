// Band measurements on a Welch spectrum, as a spectrum analyzer reports them: band power, occupied
// bandwidth, SNR, THD and THD+N, in the AES17 levels of levels.ts (a full-scale sine reads 0 dBFS).
//
// welch.ts's P[k] reads A² for a tone of amplitude A centred on bin k. A tone spreads its power over its
// main lobe with Σ_k P[k] = A²·ENBW, and white noise of power p per bin reads p·ENBW in every bin, so the
// power in a band is Σ w_k·P[k] / ENBW for tones and noise alike, whatever the window; w_k is the share of
// bin k's interval (its frequency ± half a bin, clipped to 0…fs/2 for real input) inside the band.
//
// Definitions (the renderer's tooltips and the README say the same):
// - band power: Σ w_k·P[k] / ENBW, in dBFS.
// - occupied bandwidth: the width between the frequencies below which 0.5 % and 99.5 % of the band power
//   lie, the power of a bin spread evenly over its interval (fractional bins).
// - tone: the strongest peak in the band outside DC's main lobe (findPeaks: sub-bin frequency), counted
//   as a tone only when it stands TONE_ABOVE_NOISE_DB above the band's median bin.
// - tone and harmonic power: a² of a component spreading a²·G(k − p) into bin k (G: the window's power
//   response, response.ts), fitted over its main lobe's bins after taking off the noise and the others.
// - noise: the mean power per bin of the band's bins outside the main lobes of DC, the tone and its
//   harmonics and outside their skirts (where their side lobes stand above the noise), less their
//   modelled side lobes, times the band's width (so the share of the bins left out is counted too).
// - SNR = tone / noise; harmonics are distortion, not noise (THD+N counts both).
// - THD = √(Σ harmonic / tone), harmonics 2…MEASURE_HARMONICS_MAX at or below the band's upper edge;
//   THD+N = √((Σ harmonic + noise) / tone).

import type { Backend } from '../backends/backend.js';
import { InvalidArgumentError } from '../errors.js';
import type { MeasureHarmonic, MeasureResult, MeasureThd } from '../protocol/messages.js';
import {
  DEFAULT_WINDOW,
  WELCH_FFT_SIZE_MIN,
  binShift,
  frequencyBin,
  resolutionBandwidth,
} from '../protocol/shape.js';
import type { SampleBlock, StreamFormat } from '../types.js';
import { powerToDb } from './levels.js';
import { findPeaks } from './peaks.js';
import { windowResponse } from './response.js';
import { welch, type WelchResult } from './welch.js';
import { windowProperties, type WindowSpec } from './windows.js';

/** Highest harmonic order counted in THD. */
export const MEASURE_HARMONICS_MAX = 10;
/** A peak is a tone when its level stands this far (dB) above the band's median bin. */
export const TONE_ABOVE_NOISE_DB = 15;
/** Share of the band power inside the occupied bandwidth. */
export const OCCUPIED_FRACTION = 0.99;
/** Segments the default FFT size leaves at least (50 % overlap), when the selection is long enough. */
export const MEASURE_SEGMENTS_MIN = 8;
/** Largest default FFT size of a measurement. */
export const MEASURE_FFT_MAX = 1 << 16;
/** Bins a narrow band gets at least from the default FFT size, when the selection is long enough. */
export const MEASURE_BAND_BINS_MIN = 64;
/** Bins either side of a component over which its leakage is taken off the noise. */
const LEAK_REACH = 1024;
/** Alternate fits of the components' powers and of the noise (the skirts need a noise estimate first). */
const FIT_PASSES = 4;

/** The result types are the protocol's (declared once): the measurements without the frame range. */
export type Harmonic = MeasureHarmonic;
export type ThdMeasurement = MeasureThd;
export type BandMeasurement = Omit<MeasureResult, 'start' | 'end' | 'window'>;

export interface MeasureBandOptions {
  /** Band edges (Hz, absolute for I/Q with a known centre); default the whole spectrum. */
  fLow?: number;
  fHigh?: number;
}

export interface MeasureOptions extends MeasureBandOptions {
  /** Default 'hann'. */
  window?: WindowSpec | string;
  /** Welch segment length; default measureFftSize. */
  fft?: number;
  /** One channel (0-based), default 0. */
  channel?: number;
  signal?: AbortSignal;
  onProgress?: (frames: number) => void;
}

/** Default FFT size for `frames` frames: the largest power of two leaving MEASURE_SEGMENTS_MIN segments
 * (at most MEASURE_FFT_MAX), doubled while a band of `bandwidth` Hz holds fewer than MEASURE_BAND_BINS_MIN
 * bins and the selection still holds two segments' worth. */
export function measureFftSize(frames: number, sampleRate: number, bandwidth?: number): number {
  let n = MEASURE_FFT_MAX;
  while (n > WELCH_FFT_SIZE_MIN && ((MEASURE_SEGMENTS_MIN + 1) * n) / 2 > frames) n /= 2;
  if (bandwidth !== undefined && bandwidth > 0) {
    while (n < MEASURE_FFT_MAX && (bandwidth * n) / sampleRate < MEASURE_BAND_BINS_MIN && 4 * n <= frames) {
      n *= 2;
    }
  }
  return n;
}

/** Bins k with |k − p| ≤ half (a main lobe around fractional bin p), clipped to 0…bins−1. */
function lobe(p: number, half: number, bins: number): [number, number] {
  return [Math.max(0, Math.ceil(p - half)), Math.min(bins - 1, Math.floor(p + half))];
}

function median(values: number[]): number {
  if (values.length === 0) return 0;
  const s = Float64Array.from(values).sort();
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function fmtHz(f: number): string {
  return `${Number(f.toPrecision(6))} Hz`;
}

/** The measurements of a band of a Welch spectrum (see the definitions above). */
export function measureSpectrum(spectrum: WelchResult, options: MeasureBandOptions = {}): BandMeasurement {
  const { power, complex, nperseg: n, sampleRate: fs, binWidth: df } = spectrum;
  const bins = power.length;
  const centre = complex ? (spectrum.centerFrequency ?? 0) : 0;
  const { enbw } = windowProperties(spectrum.window);
  const half = windowResponse(spectrum.window).mainLobeHalfWidth;
  const freq = (k: number): number => spectrum.frequencies[k] + centre;
  const binLo = (k: number): number => (complex ? freq(k) - df / 2 : Math.max(0, freq(k) - df / 2));
  const binHi = (k: number): number => (complex ? freq(k) + df / 2 : Math.min(fs / 2, freq(k) + df / 2));
  const top = binHi(bins - 1);
  const bottom = binLo(0);

  const fLow = options.fLow ?? bottom;
  const fHigh = options.fHigh ?? top;
  if (!Number.isFinite(fLow) || !Number.isFinite(fHigh) || !(fLow < fHigh)) {
    throw new InvalidArgumentError(
      `the band's low edge must be below its high edge, got ${fLow} … ${fHigh} Hz`,
    );
  }
  const bLo = Math.max(fLow, bottom);
  const bHi = Math.min(fHigh, top);
  if (!(bLo < bHi)) {
    throw new InvalidArgumentError(
      `the band ${fmtHz(fLow)} … ${fmtHz(fHigh)} lies outside the signal's spectrum ${fmtHz(bottom)} … ${fmtHz(top)}`,
    );
  }

  // Share of each bin inside the band, and the band's bins.
  const weight = new Float64Array(bins);
  let first = -1;
  let last = -1;
  for (let k = 0; k < bins; k++) {
    const a = binLo(k);
    const b = binHi(k);
    const o = Math.min(b, bHi) - Math.max(a, bLo);
    if (o > 0 && b > a) {
      weight[k] = o / (b - a);
      if (first < 0) first = k;
      last = k;
    }
  }
  let bandSum = 0;
  let bandWeight = 0;
  for (let k = first; k <= last; k++) {
    bandSum += weight[k] * power[k];
    bandWeight += weight[k];
  }
  const rbw = resolutionBandwidth(enbw, fs, n);
  const out: BandMeasurement = {
    band: [bLo, bHi],
    bandPower: powerToDb(bandSum / enbw),
    missing: {},
    enbw,
    rbw,
    fft: n,
    segments: spectrum.segments,
    binWidth: df,
  };

  // Occupied bandwidth: the cumulative power, linear across each bin's share of the band.
  if (bandSum > 0) {
    const edge = (target: number): number => {
      let cum = 0;
      for (let k = first; k <= last; k++) {
        const c = weight[k] * power[k];
        if (c > 0 && cum + c >= target) {
          const a = Math.max(binLo(k), bLo);
          const b = Math.min(binHi(k), bHi);
          return a + ((target - cum) / c) * (b - a);
        }
        cum += c;
      }
      return bHi;
    };
    const tail = ((1 - OCCUPIED_FRACTION) / 2) * bandSum;
    const lower = edge(tail);
    const upper = edge(bandSum - tail);
    out.occupiedBandwidth = { width: upper - lower, lower, upper };
  } else {
    out.missing.occupiedBandwidth = 'the band holds no power';
  }

  // The tone: the strongest peak in the band, DC's main lobe left out.
  const resp = windowResponse(spectrum.window);
  const dc = binShift(n, complex);
  const dcLobe = lobe(dc, half, bins);
  const masked = new Float64Array(bins);
  for (let k = first; k <= last; k++) {
    if (weight[k] > 0 && (k < dcLobe[0] || k > dcLobe[1])) masked[k] = power[k];
  }
  const noTone = (why: string): BandMeasurement => {
    out.missing.snr = why;
    out.missing.thd = why;
    return out;
  };
  const [peak] = findPeaks({ ...spectrum, power: masked }, { count: 1 });
  if (peak === undefined)
    return noTone(`no tone stands ${TONE_ABOVE_NOISE_DB} dB above the noise in the band`);
  const p = frequencyBin(peak.frequency, n, fs, complex, centre);
  const toneLobe = lobe(p, half, bins);
  // A tone stands out of the noise around it: the median of the nearby bins outside its lobe.
  const near: number[] = [];
  const reach = Math.max(8 * half, 32);
  for (let k = Math.max(first, Math.floor(p - reach)); k <= Math.min(last, Math.ceil(p + reach)); k++) {
    if (masked[k] > 0 && (k < toneLobe[0] || k > toneLobe[1])) near.push(masked[k]);
  }
  if (!(Math.pow(10, peak.level / 10) > median(near) * Math.pow(10, TONE_ABOVE_NOISE_DB / 10))) {
    return noTone(`no tone stands ${TONE_ABOVE_NOISE_DB} dB above the noise in the band`);
  }

  // Harmonics at or below the band's upper edge.
  const harmonics: Array<{ order: number; frequency: number; p: number }> = [];
  let thdWhy: string | undefined;
  if (peak.frequency <= 0) {
    thdWhy = 'harmonics need a tone above 0 Hz';
  } else if (Math.abs(p - dc) < 2 * half + 1) {
    thdWhy = 'the tone lies too close to 0 Hz to resolve its harmonics: use a larger FFT';
  } else {
    for (let order = 2; order <= MEASURE_HARMONICS_MAX; order++) {
      const f = order * peak.frequency;
      if (f > bHi) break;
      harmonics.push({ order, frequency: f, p: frequencyBin(f, n, fs, complex, centre) });
    }
    if (harmonics.length === 0) thdWhy = `no harmonic of ${fmtHz(peak.frequency)} lies in the band`;
  }

  // Tone and harmonics as components of power a² at fractional bin p, spreading a²·model(k) into bin k
  // (a real spectrum adds the image at −p). Their leakage beyond the main lobe is taken off the noise
  // bins, and each one's power is fitted to its lobe: a² = Σ_lobe (P − noise − others) / Σ_lobe model.
  const model = (k: number, at: number): number =>
    complex ? resp.power(k - at) : resp.power(k - at) + resp.power(k + at);
  const components = [
    { p, lobe: toneLobe, a2: 0 },
    ...harmonics.map((h) => ({ p: h.p, lobe: lobe(h.p, half, bins), a2: 0 })),
  ];
  const excluded = new Uint8Array(bins);
  for (const [a, b] of [dcLobe, ...components.map((c) => c.lobe)]) excluded.fill(1, a, b + 1);
  const leak = (k: number, skip?: (typeof components)[number]): number => {
    let s = 0;
    for (const c of components) {
      if (c !== skip && c.a2 > 0 && Math.abs(k - c.p) <= LEAK_REACH) s += c.a2 * model(k, c.p);
    }
    return s;
  };
  let density = 0; // noise power per bin, in P's units
  let keptWeight = 0;
  const fit = (): void => {
    for (const c of components) {
      let s = 0;
      let m = 0;
      for (let k = c.lobe[0]; k <= c.lobe[1]; k++) {
        s += power[k] - density - leak(k, c);
        m += model(k, c.p);
      }
      c.a2 = m > 0 ? Math.max(0, s / m) : 0;
    }
    // Bins where the components' modelled leakage stands above the noise are left out too: there the
    // random cross term of a tone and the noise (zero mean, but of the order of √(leak·noise)) would
    // swamp the noise. Without a noise estimate yet (or when that would leave nothing), only the lobes.
    const noiseOver = (skirtFloor: number): [number, number] => {
      let sum = 0;
      let w = 0;
      for (let k = first; k <= last; k++) {
        if (excluded[k] || !(weight[k] > 0)) continue;
        const l = leak(k);
        if (skirtFloor > 0 && l > skirtFloor) continue;
        sum += weight[k] * (power[k] - l);
        w += weight[k];
      }
      return [sum, w];
    };
    let [sum, w] = noiseOver(density);
    if (w === 0) [sum, w] = noiseOver(0);
    keptWeight = w;
    density = w > 0 ? Math.max(0, sum / w) : 0;
  };
  // The first pass fits without noise or leakage; the next ones with the estimates of the one before.
  for (let pass = 0; pass < FIT_PASSES; pass++) fit();
  const tonePower = components[0].a2;
  if (!(tonePower > 0)) return noTone('the tone is not above the noise in its main lobe');
  out.tone = { frequency: peak.frequency, level: powerToDb(tonePower) };
  const noisePower = (density * bandWeight) / enbw;
  if (keptWeight === 0) out.missing.snr = 'no bins of noise are left in the band besides the tone';
  else if (!(noisePower > 0)) out.missing.snr = 'the band holds no noise';
  else out.snr = 10 * Math.log10(tonePower / noisePower);

  if (thdWhy !== undefined) {
    out.missing.thd = thdWhy;
    return out;
  }
  let distortion = 0;
  const list: Harmonic[] = harmonics.map((h, i) => {
    const ph = components[i + 1].a2;
    distortion += ph;
    return { order: h.order, frequency: h.frequency, level: powerToDb(ph) };
  });
  const thd = distortion / tonePower;
  const thdn = (distortion + noisePower) / tonePower;
  out.thd = {
    fundamental: peak.frequency,
    level: powerToDb(tonePower),
    thdPercent: 100 * Math.sqrt(thd),
    thdDb: powerToDb(thd),
    thdnPercent: 100 * Math.sqrt(thdn),
    thdnDb: powerToDb(thdn),
    harmonics: list,
  };
  return out;
}

/**
 * Measures a band of a stream of sample blocks holding `frames` frames: a Welch spectrum of one channel
 * (the backend does the transforms, block by block), then measureSpectrum.
 */
export async function measureBlocks(
  backend: Backend,
  blocks: AsyncIterable<SampleBlock>,
  format: StreamFormat,
  frames: number,
  options: MeasureOptions = {},
): Promise<BandMeasurement> {
  const { sampleRate: fs, complex } = format;
  const centre = complex ? (format.centerFrequency ?? 0) : 0;
  const full: [number, number] = complex ? [centre - fs / 2, centre + fs / 2] : [0, fs / 2];
  const lo = Math.max(options.fLow ?? full[0], full[0]);
  const hi = Math.min(options.fHigh ?? full[1], full[1]);
  const fft = options.fft ?? measureFftSize(frames, fs, hi > lo ? hi - lo : undefined);
  if (frames < fft) {
    throw new InvalidArgumentError(
      `the selection holds ${frames} frame(s), fewer than the FFT size ${fft}` +
        (frames >= WELCH_FFT_SIZE_MIN
          ? ': select more or use a smaller FFT'
          : `: select at least ${WELCH_FFT_SIZE_MIN}`),
    );
  }
  const spectrum = await welch(backend, blocks, {
    nperseg: fft,
    window: options.window ?? DEFAULT_WINDOW,
    channel: options.channel ?? 0,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  });
  return measureSpectrum(spectrum, {
    ...(options.fLow !== undefined ? { fLow: options.fLow } : {}),
    ...(options.fHigh !== undefined ? { fHigh: options.fHigh } : {}),
  });
}

/** Frames per block when measureSamples streams an array through the backend. */
const SAMPLE_BLOCK_FRAMES = 1 << 16;

/**
 * Measures a band of samples held in memory: interleaved frames (real, or I/Q pairs when complex),
 * float32 or float64, one channel unless `format.channels` says more.
 */
export async function measureSamples(
  backend: Backend,
  samples: Float32Array | Float64Array,
  format: Omit<StreamFormat, 'channels'> & { channels?: number },
  options: MeasureOptions = {},
): Promise<BandMeasurement> {
  const fmt: StreamFormat = { ...format, channels: format.channels ?? 1 };
  const vpf = fmt.channels * (fmt.complex ? 2 : 1);
  const frames = Math.floor(samples.length / vpf);
  async function* blocks(): AsyncGenerator<SampleBlock> {
    for (let start = 0; start < frames; start += SAMPLE_BLOCK_FRAMES) {
      const count = Math.min(SAMPLE_BLOCK_FRAMES, frames - start);
      const view = samples.subarray(start * vpf, (start + count) * vpf);
      // welch() may keep a view of a block: a copy for float64, the array itself for float32.
      const data = view instanceof Float32Array ? view : Float32Array.from(view);
      yield { format: fmt, start, frames: count, data };
    }
  }
  return measureBlocks(backend, blocks(), fmt, frames, options);
}
