// DSP building blocks of the engine: windows, FIR design, levels, Welch spectra and peak finding.
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
export { findPeaks, type FindPeaksOptions, type Peak } from './peaks.js';
