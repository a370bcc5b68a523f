// DSP building blocks of the engine: windows, FIR design, levels, Welch spectra, SciPy-exact PSD and
// spectrogram, and peak finding.
// Names and conventions follow SciPy / NumPy (see each module).

export { besselI0, besselI0e } from './bessel.js';
export {
  DEFAULT_KAISER_BETA,
  WINDOW_NAMES,
  formatWindow,
  getWindow,
  parseWindow,
  windowProperties,
  type WindowName,
  type WindowProperties,
  type WindowSpec,
} from './windows.js';
export {
  firResponse,
  firwin,
  kaiserAtten,
  kaiserBeta,
  kaiserord,
  unwrapPhase,
  type FirResponse,
  type FirwinOptions,
  type PassZero,
} from './firwin.js';
export {
  DEFAULT_FLOOR_DB,
  amplitudeToDbfs,
  binPowerScale,
  binPowerToDbfs,
  dbToPower,
  powerArrayToDbfs,
  powerToDb,
} from './levels.js';
export { WindowResponse, windowResponse } from './response.js';
export { welch, type WelchOptions, type WelchResult } from './welch.js';
export {
  MEDIAN_BYTES_MAX,
  PSD_AVERAGES,
  PSD_DEFAULT_NPERSEG,
  PSD_DEFAULT_WINDOW,
  PSD_DETRENDS,
  PSD_SCALINGS,
  checkSegments,
  medianBias,
  psd,
  scipyFrequencies,
  spectrogramPsd,
  type Detrend,
  type PsdAverage,
  type PsdOptions,
  type PsdResult,
  type PsdScaling,
  type SpectrogramPsdOptions,
  type SpectrogramPsdStream,
} from './psd.js';
export { findPeaks, type FindPeaksOptions, type Peak } from './peaks.js';
export {
  MEASURE_BAND_BINS_MIN,
  MEASURE_FFT_MAX,
  MEASURE_HARMONICS_MAX,
  MEASURE_SEGMENTS_MIN,
  OCCUPIED_FRACTION,
  TONE_ABOVE_NOISE_DB,
  measureBlocks,
  measureFftSize,
  measureSamples,
  measureSpectrum,
  type BandMeasurement,
  type Harmonic,
  type MeasureBandOptions,
  type MeasureOptions,
  type ThdMeasurement,
} from './measure.js';
