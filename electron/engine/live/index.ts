// Live analysis: sources in real time → backend spectrogram → rows with backpressure, and the
// transport-agnostic connection the hosts (Electron main, `phasor serve`) wrap.

export {
  createEngineConnection,
  MAX_MESSAGE_CHARS,
  type ConnectionOptions,
  type EngineConnection,
} from './connection.js';
export { Engine, defaultEngine, type EngineOptions } from './engine.js';
export {
  LiveSession,
  planAnalysis,
  frequencyRange,
  type AnalysisPlan,
  type LiveSessionOptions,
  type SessionSink,
  type SessionStats,
} from './session.js';
export {
  LivePeaks,
  DEFAULT_PEAK_COUNT,
  PEAK_INTERVAL_SECONDS,
  PEAK_SPAN_SECONDS,
  type LivePeaksOptions,
  type LivePeakSettings,
} from './peaks.js';
export { pacedSource, liveBlockFrames, type PaceOptions } from '../sources/pace.js';
export { wallClock, sleep, type LiveBlock, type LiveSource } from '../sources/live-source.js';
export { runMonitor, type MonitorOptions, type MonitorResult } from './monitor.js';
