// The one typed protocol between the renderer and the engine, carried by Electron IPC (rows through a
// MessagePort) in the desktop app and by a WebSocket in web mode (`phasor serve`).
//
// This folder is browser-safe (no Node imports): the renderer imports it too. Every request is validated
// with these schemas on the engine side; a malformed one gets an error reply, never a crash.
//
// Envelopes
//   renderer → engine: { type: 'request', id, method, params }   and   { type: 'ack', session, seq }
//   engine → renderer: { type: 'reply', id, ok: true, result } | { type: 'reply', id, ok: false, error }
//                      { type: 'event', event, data }            and   binary rows (rows-codec.ts)

import { z } from 'zod';
import {
  COLUMNS_MAX,
  DEFAULT_AVERAGING,
  DEFAULT_COLUMNS,
  DEFAULT_FFT,
  DEFAULT_FILE_OVERLAP,
  DEFAULT_OVERLAP,
  DEFAULT_WINDOW,
  FFT_SIZE_MIN,
  FILE_FFT_SIZE_MAX,
  LIVE_FFT_SIZE_MAX,
  LIVE_MEASURE_SECONDS_DEFAULT,
  LIVE_MEASURE_SECONDS_MAX,
  OVERLAP_MAX,
  PEAK_COUNT_MAX,
  SPECTRUM_FFT_SIZE_MAX,
  WELCH_FFT_SIZE_MIN,
} from './shape.js';
import type { ExtractResult } from './extract.js';
import {
  presetConflictSchema,
  presetNameSchema,
  presetSettingsSchema,
  type PresetsResult,
} from './presets.js';

export type { ExtractResult };

export const PROTOCOL_VERSION = 1;

// ---------------------------------------------------------------------------------------------------
// Live analysis settings

export const analysisSchema = z.object({
  /** Frame length: any n from FFT_SIZE_MIN to LIVE_FFT_SIZE_MAX (not only powers of two). */
  fft: z.number().int().min(FFT_SIZE_MIN).max(LIVE_FFT_SIZE_MAX),
  /** Fraction of a frame shared with the next one. */
  overlap: z.number().min(0).max(OVERLAP_MAX),
  /** Window spec: hann, hamming, blackman, blackmanharris, flattop, rectangular, kaiser:BETA. */
  window: z.string().min(1).max(32),
  /** Exponential average weight of a new frame for the average trace, in (0, 1]. */
  averaging: z.number().gt(0).max(1),
  /** Display columns wanted (the engine reduces bins to at most this many, by max). */
  columns: z.number().int().min(1).max(COLUMNS_MAX),
});
export type Analysis = z.infer<typeof analysisSchema>;

export const defaultAnalysis: Analysis = {
  fft: DEFAULT_FFT,
  overlap: DEFAULT_OVERLAP,
  window: DEFAULT_WINDOW,
  averaging: DEFAULT_AVERAGING,
  columns: DEFAULT_COLUMNS,
};

/**
 * A source as the renderer asks for it: a kind plus that kind's parameters. Each kind (generator, mic,
 * file, later rtl_tcp…) is described by the engine in the hello reply (SourceKind) and validated there
 * against its own schema, so a new kind needs no change in the view.
 */
export const sourceParamsSchema = z.looseObject({ kind: z.string().min(1).max(32) });
export type SourceParams = z.infer<typeof sourceParamsSchema>;

/** One field of a source's form, so the view can draw controls for kinds it does not know. */
export interface SourceField {
  name: string;
  label: string;
  type: 'number' | 'text' | 'boolean' | 'select' | 'device' | 'file';
  default?: number | string | boolean;
  min?: number;
  max?: number;
  step?: number;
  unit?: string;
  options?: Array<{ value: string | number; label: string }>;
  /** One line shown beside the control (a caveat such as "some rtl_tcp forks read this as bandwidth"). */
  note?: string;
}

export interface SourceKind {
  kind: string;
  label: string;
  fields: SourceField[];
  /** Why the kind cannot be used here (e.g. no audio input library), when it cannot. */
  unavailable?: string;
  /** Its centre frequency can change while it streams (`retune`): the view re-centres on double-click. */
  tunable?: boolean;
  /** The page captures the samples itself and streams them over its connection as binary audio blocks
   * (protocol/audio-frames.ts): 'browser-audio' is the browser's own microphone, web mode only. */
  capture?: 'browser-audio';
}

export interface BackendState {
  name: string;
  available: boolean;
  device?: string;
  reason?: string;
}

export interface AudioDevice {
  id: string;
  name: string;
  isDefault: boolean;
  channels: number;
  sampleRates: number[];
  preferredSampleRate: number;
}

export interface HelloResult {
  version: number;
  /** The backend live analysis runs on. */
  backend: { name: string; device: string };
  backends: BackendState[];
  sources: SourceKind[];
  windows: string[];
  defaults: { analysis: Analysis; source: SourceParams };
}

export interface LiveInfo {
  session: number;
  sampleRate: number;
  complex: boolean;
  centerFrequency?: number;
  fft: number;
  hop: number;
  /** Equivalent noise bandwidth of the window, in bins (RBW = enbw · sampleRate / fft). */
  enbw: number;
  /** Bins per frame before reduction. */
  bins: number;
  /** Values per row sent (≤ columns asked for). */
  width: number;
  /** Lowest and highest frequency of the rows (Hz, absolute for I/Q with a known centre). */
  frequencyRange: [number, number];
  /** Rows per second of stream time. */
  rowRate: number;
  source: string;
  /** The source takes `retune` (rtl_tcp): double-click re-centres. */
  tunable?: boolean;
}

// ---------------------------------------------------------------------------------------------------
// Offline work (issue 5): files, filters, correlation, benchmarks.
//
// A long request (fileSpectrogram, applyFilter, correlate, runBench) answers when it is done and sends
// `progress` events carrying its request id meanwhile; `cancel` with that id stops it, and it then answers
// with an error of code 'cancelled' (leaving no partial output file). Results that carry many floats come
// as a binary reply (rows-codec.ts: encodeBinaryReply) whose JSON part is the result below and whose float32
// payload is the `data` named there.

const fileId = z.number().int().min(0);
const frame = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const hz = z.number().min(-1e12).max(1e12);

/** Longest annotation label and comment (characters). */
export const ANNOTATION_LABEL_MAX = 1000;
export const ANNOTATION_COMMENT_MAX = 100_000;

/** An annotation's fields as an edit writes them: an absent one is removed from the annotation. */
export const annotationFieldsSchema = z
  .object({
    start: frame,
    count: frame.min(1).optional(),
    freqLower: hz.optional(),
    freqUpper: hz.optional(),
    label: z.string().max(ANNOTATION_LABEL_MAX).optional(),
    comment: z.string().max(ANNOTATION_COMMENT_MAX).optional(),
  })
  .refine((a) => a.freqLower === undefined || a.freqUpper === undefined || a.freqLower <= a.freqUpper, {
    message: 'freqLower must not be above freqUpper',
  });
const annotationId = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

export const filterKindSchema = z.enum(['lowpass', 'highpass', 'bandpass', 'bandstop']);
export type FilterKind = z.infer<typeof filterKindSchema>;

export interface Annotation {
  /** Its place in the .sigmf-meta's annotations array as last read or written: what an edit names. */
  id?: number;
  /** First frame (SigMF core:sample_start). */
  start: number;
  count?: number;
  freqLower?: number;
  freqUpper?: number;
  label?: string;
  comment?: string;
}

export interface FileInfo {
  /** Handle for later requests on this connection. */
  file: number;
  path: string;
  name: string;
  container: string;
  encoding: string;
  sampleRate: number;
  channels: number;
  complex: boolean;
  /** Frames present. */
  samples: number;
  duration: number;
  centerFrequency?: number;
  /** ISO 8601 UTC time of sample 0, when the metadata gives it (SigMF core:datetime; io/start-time.ts). */
  startTime?: string;
  /** Frames the header promised, when the file is truncated. */
  promisedSamples?: number;
  bytes: number;
  annotations: Annotation[];
  /** Why its annotations cannot be edited (not a SigMF pair, a .sigmf archive, not writable here). */
  annotationsLocked?: string;
  /** Non-fatal problems found when opening (e.g. truncated). */
  warnings: string[];
}

export interface DirectoryEntry {
  name: string;
  path: string;
  kind: 'file' | 'directory';
  size?: number;
  /** A file Phasor can open by its name (WAV, SigMF, raw I/Q extensions). */
  openable: boolean;
}

export interface DirectoryListing {
  path: string;
  /** The folder above, when the client may list it. */
  parent?: string;
  entries: DirectoryEntry[];
  /** The folders the client may use, when it is limited to some (`phasor serve --root`): where to go next. */
  roots?: string[];
}

/** JSON part of a fileSpectrogram binary reply; data = height × width dB levels, row 0 = highest frequency. */
export interface FileSpectrogramResult {
  width: number;
  height: number;
  /** Frames computed and the frame range they cover. */
  frames: number;
  start: number;
  end: number;
  fft: number;
  hop: number;
  /** Frequency range of the image, bottom to top (Hz, absolute for I/Q with a known centre). */
  frequencyRange: [number, number];
}

/** The annotations of a file after an edit (addAnnotation, updateAnnotation, deleteAnnotation). */
export interface AnnotationsResult {
  annotations: Annotation[];
  /** Where the added or updated annotation now stands (its new id). */
  id?: number;
}

/** Traces fileSpectrum can return: the Welch mean, and the max / min hold over its segments. */
export const FILE_SPECTRUM_TRACES = ['mean', 'max', 'min'] as const;
export type FileSpectrumTrace = (typeof FILE_SPECTRUM_TRACES)[number];

/** JSON part of a fileSpectrum binary reply; data = `bins` levels in dBFS for each of `traces` in turn,
 * bin k at f0 + k·binWidth. */
export interface FileSpectrumResult {
  /** The traces in data, in the order asked for. */
  traces: FileSpectrumTrace[];
  /** Frequency (Hz) of the first bin returned, absolute for I/Q with a known centre. */
  f0: number;
  binWidth: number;
  bins: number;
  /** Frame range averaged, segments averaged, and the segment (FFT) length and window used. */
  start: number;
  end: number;
  segments: number;
  fft: number;
  window: string;
  /** Resolution bandwidth (Hz): the window's equivalent noise bandwidth. */
  rbw: number;
  sampleRate: number;
}

export interface FilterResponse {
  frequencies: number[];
  magnitudeDb: number[];
  phase: number[];
  /** Samples. */
  groupDelay: number[];
}

export interface FilterDesignResult {
  taps: number[];
  numtaps: number;
  /** Kaiser beta when the design came from ripple + width (kaiserord). */
  beta?: number;
  window: string;
  response: FilterResponse;
}

export interface ApplyFilterResult {
  output: string;
  frames: number;
  clipped: number;
  encoding: string;
  numtaps: number;
  method: string;
  backend: string;
  seconds: number;
}

/** JSON part of a correlate binary reply; data = `points` scores, each the max over `bucket` lags. */
export interface CorrelateResult {
  peaks: Array<{ lag: number; time: number; score: number }>;
  lags: number;
  templateLength: number;
  sampleRate: number;
  points: number;
  bucket: number;
}

/** JSON part of a readSamples binary reply; data = interleaved float32 frames of the channel (or all). */
export interface SamplesResult {
  start: number;
  frames: number;
  channels: number;
  sampleRate: number;
  complex: boolean;
}

/** One harmonic of a measured tone. */
export interface MeasureHarmonic {
  /** 2, 3, … */
  order: number;
  /** Hz (absolute for I/Q with a known centre). */
  frequency: number;
  /** dBFS. */
  level: number;
}

/** THD and THD+N of the band's tone (engine/dsp/measure.ts states the definitions). */
export interface MeasureThd {
  /** Frequency (Hz) and level (dBFS) of the fundamental: the band's strongest tone. */
  fundamental: number;
  level: number;
  /** √(Σ harmonic power / fundamental power), as % and in dB. */
  thdPercent: number;
  thdDb: number;
  /** √((Σ harmonic + noise power) / fundamental power), as % and in dB. */
  thdnPercent: number;
  thdnDb: number;
  harmonics: MeasureHarmonic[];
}

/** Band measurements of a frame range (measure); a value that cannot be measured is absent, and
 * `missing` says why. */
export interface MeasureResult {
  /** Frames measured. */
  start: number;
  end: number;
  /** The band measured (Hz), clipped to the signal's spectrum. */
  band: [number, number];
  /** Power in the band, dBFS (a full-scale sine reads 0). */
  bandPower: number;
  /** The band holding 99 % of the band power, between its 0.5 % and 99.5 % points (Hz). */
  occupiedBandwidth?: { width: number; lower: number; upper: number };
  /** Tone power over the noise in the band (tone, harmonics and DC left out), dB. */
  snr?: number;
  /** The strongest tone in the band: Hz, dBFS. */
  tone?: { frequency: number; level: number };
  thd?: MeasureThd;
  missing: { occupiedBandwidth?: string; snr?: string; thd?: string };
  /** Equivalent noise bandwidth of the window (bins) and the resolution bandwidth ENBW·fs/fft (Hz). */
  enbw: number;
  rbw: number;
  fft: number;
  window: string;
  /** Welch segments averaged, and the bin width (Hz). */
  segments: number;
  binWidth: number;
}

export interface BackendDetails extends BackendState {
  details?: Record<string, string | number>;
}

/** One benchmark row: an operation of one size on one backend, timed from host arrays. */
export interface BenchRowInfo {
  backend: string;
  op: string;
  /** Transform length (fft, rfft, spectrogram), taps (fir), template length (correlate). */
  size: number;
  /** Transforms per call (fft, rfft), frames (spectrogram); 1 for streams. */
  batch: number;
  /** Input samples per timed call. */
  samples: number;
  medianMs: number;
  samplesPerSecond: number;
  /** 5·N·log2(N) per complex transform (2.5·N·log2 N per real one); absent for stream ops. */
  gflops?: number;
  relError: number;
  /** samplesPerSecond / the CPU backend's, same op and size. */
  vsCpu?: number;
  /** samplesPerSecond / the CUDA backend's, same op and size (rows of the other backends). */
  vsCuda?: number;
}

/**
 * One device-timed row: a GPU backend's kernels timed on the device (CUDA events, WebGPU timestamp
 * queries) with the data already there ('kernel'), the whole call from host memory and back
 * ('end-to-end'), or the reference the backend compares itself with (CUDA: cuFFT and the unfused cuFFT
 * pipelines; WebGPU: its own unfused pipelines), named as the row's backend (e.g. 'cufft', 'webgpu-unfused').
 */
export interface DeviceBenchRowInfo {
  backend: string;
  op: string;
  size: number;
  /** Transforms (fft, rfft) or samples (streams) timed: the backend may time fewer than asked. */
  batch: number;
  timing: 'kernel' | 'end-to-end';
  ms: number;
  samplesPerSecond: number;
  /** Bytes moved through device memory over the time (kernel rows). */
  gbPerSecond?: number;
  /** gbPerSecond over the device-to-device copy bandwidth measured in the same run. */
  ofCopy?: number;
  /** End-to-end rows: input bytes over the time, over the host-to-device bandwidth of the run. */
  ofHostToDevice?: number;
  /** Kernel time of the reference over ours (same op, size): > 1 where ours is faster. */
  vsReference?: number;
  /** samples/s over the CUDA backend's row of the same op, size, timing and variant, in the same run. */
  vsCuda?: number;
  relError: number;
  /** The variant (e.g. 'spectrogram-i16', 'fir-real'), or why there is no reference. */
  note?: string;
}

/** How a backend timed its device rows ('CUDA events', 'timestamp queries'), or why it has none. */
export interface DeviceTimerInfo {
  backend: string;
  method?: string;
  missing?: string;
}

export interface BenchResult {
  machine: { date: string; cpu: string; threads: number; node: string; platform: string };
  backends: BackendDetails[];
  rows: BenchRowInfo[];
  /** Device-timed rows of the GPU backends (when asked for). */
  deviceRows?: DeviceBenchRowInfo[];
  deviceTimers?: DeviceTimerInfo[];
}

// ---------------------------------------------------------------------------------------------------
// Requests

export const requestSchemas = {
  hello: z.object({}),
  listDevices: z.object({ kind: z.string().min(1).max(32) }),
  start: z.object({ source: sourceParamsSchema, analysis: analysisSchema }),
  configure: z.object({ analysis: analysisSchema.partial() }),
  stop: z.object({}),
  resetPeak: z.object({}),
  /** Peak markers of the live session (peaks events): on or off (off while the display is paused or the
   * markers are hidden, so the engine does no work for them), how many, and the least level. */
  setPeaks: z.object({
    enabled: z.boolean(),
    count: z.number().int().min(1).max(PEAK_COUNT_MAX).optional(),
    /** dBFS; peaks below are left out (besides those less than 15 dB above the spectrum's median). */
    minLevelDb: z.number().min(-300).max(0).optional(),
  }),

  openFile: z.object({
    path: z.string().min(1).max(4096),
    format: z.string().min(1).max(16).optional(),
    rate: z.number().positive().max(1e11).optional(),
    center: hz.optional(),
    iq: z.boolean().optional(),
  }),
  closeFile: z.object({ file: fileId }),
  /** Server-side file browser (web mode has no native dialog). Default: the user's home folder. */
  listDirectory: z.object({ path: z.string().min(1).max(4096).optional() }),
  fileSpectrogram: z.object({
    file: fileId,
    start: frame.default(0),
    /** One past the last frame; default the end of the file. */
    end: frame.optional(),
    /** Frequency band to show (Hz, absolute for I/Q with a centre); default all. */
    fLow: hz.optional(),
    fHigh: hz.optional(),
    /** Frame length; default chosen from the band and the height. */
    fft: z.number().int().min(FFT_SIZE_MIN).max(FILE_FFT_SIZE_MAX).optional(),
    overlap: z.number().min(0).max(OVERLAP_MAX).default(DEFAULT_FILE_OVERLAP),
    window: z.string().min(1).max(32).default(DEFAULT_WINDOW),
    width: z.number().int().min(1).max(8192),
    height: z.number().int().min(1).max(4096),
    channel: z.number().int().min(0).max(1023).default(0),
  }),
  /** Welch-averaged spectrum (dBFS, as the live spectrum) of frames [start, end) of a file, the bins in
   * [fLow, fHigh] (default all); fft defaults to FILE_SPECTRUM_FFT, or less for a shorter range. */
  fileSpectrum: z.object({
    file: fileId,
    start: frame.default(0),
    end: frame.optional(),
    fLow: hz.optional(),
    fHigh: hz.optional(),
    fft: z.number().int().min(WELCH_FFT_SIZE_MIN).max(FILE_FFT_SIZE_MAX).optional(),
    window: z.string().min(1).max(32).default(DEFAULT_WINDOW),
    channel: z.number().int().min(0).max(1023).default(0),
    traces: z.array(z.enum(FILE_SPECTRUM_TRACES)).min(1).max(3).default(['mean']),
  }),
  readSamples: z.object({
    file: fileId,
    start: frame,
    end: frame,
    /** One channel, or all interleaved when absent. */
    channel: z.number().int().min(0).max(1023).optional(),
  }),
  designFilter: z.object({
    kind: filterKindSchema,
    /** Hz: one edge for low/high-pass, [low, high] for band-pass/stop. */
    cutoff: z.union([z.number().positive(), z.tuple([z.number().positive(), z.number().positive()])]),
    fs: z.number().positive().max(1e11),
    /** numtaps + window, or ripple + width (Kaiser design like scipy.signal.kaiserord). */
    numtaps: z.number().int().min(1).max(65535).optional(),
    window: z.string().min(1).max(32).optional(),
    ripple: z.number().positive().max(300).optional(),
    width: z.number().positive().optional(),
    points: z.number().int().min(16).max(16384).default(1024),
  }),
  applyFilter: z.object({
    file: fileId,
    output: z.string().min(1).max(4096),
    taps: z.array(z.number()).min(1).max(65535),
    causal: z.boolean().default(false),
    encoding: z.string().min(1).max(16).optional(),
  }),
  /** A selection [start, end) of an open file to a new file, shifted, low-passed and decimated
   * (pipeline/extract.ts); the output path is resolved beside the input, within the client's roots. */
  extract: z.object({
    file: fileId,
    output: z.string().min(1).max(4096),
    start: frame.optional(),
    end: frame.optional(),
    shift: hz.optional(),
    lowpass: z.number().positive().max(1e12).optional(),
    numtaps: z.number().int().min(1).max(65535).optional(),
    decimate: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
  }),
  correlate: z.object({
    signal: fileId,
    template: z.object({ file: fileId, start: frame.optional(), end: frame.optional() }),
    top: z.number().int().min(1).max(100).default(5),
    channel: z.number().int().min(0).max(1023).default(0),
    points: z.number().int().min(16).max(65536).default(4096),
  }),
  /** Band power, occupied bandwidth, SNR and THD of frames [start, end) of one channel, in [fLow, fHigh]
   * (Hz, absolute for I/Q with a centre; default the whole spectrum). FFT size default: from the range's
   * length and the band (engine/dsp/measure.ts measureFftSize). A long request (progress, cancel). */
  measure: z.object({
    file: fileId,
    start: frame.default(0),
    end: frame.optional(),
    fLow: hz.optional(),
    fHigh: hz.optional(),
    channel: z.number().int().min(0).max(1023).default(0),
    window: z.string().min(1).max(32).default(DEFAULT_WINDOW),
    fft: z.number().int().min(FFT_SIZE_MIN).max(FILE_FFT_SIZE_MAX).optional(),
  }),
  listBackends: z.object({}),
  runBench: z.object({
    backends: z.array(z.string().min(1).max(32)).min(1).max(8),
    ops: z.array(z.enum(['fft', 'rfft', 'spectrogram', 'fir', 'correlate'])).min(1),
    sizes: z.array(z.number().int().min(1).max(SPECTRUM_FFT_SIZE_MAX)).max(64).optional(),
    samples: z
      .number()
      .int()
      .min(1024)
      .max(1 << 26)
      .optional(),
    repeats: z.number().int().min(1).max(50).optional(),
    /** Also the GPU backends' device-timed rows (kernel-only, end-to-end, reference). */
    device: z.boolean().optional(),
    /** Samples per device-timed measurement (the engine's defaults: 2^27 transforms, 2^26 streams). */
    deviceSamples: z
      .number()
      .int()
      .min(1024)
      .max(1 << 27)
      .optional(),
  }),
  cancel: z.object({ request: z.number().int().min(0) }),
  /** SigMF annotations of an open recording, saved to its .sigmf-meta at once (refused when the file
   * changed on disk since it was opened); each replies with the file's annotations as now saved. */
  addAnnotation: z.object({ file: fileId, annotation: annotationFieldsSchema }),
  updateAnnotation: z.object({ file: fileId, id: annotationId, annotation: annotationFieldsSchema }),
  deleteAnnotation: z.object({ file: fileId, id: annotationId }),

  /** A tunable live source (LiveInfo.tunable) moves to a new centre frequency without reconnecting; the
   * reply is the session's new LiveInfo (its frequencyRange and peaks follow). */
  retune: z.object({ centerFrequency: z.number().min(0).max(1e11) }),
  /** Records the running live source to `path` (.sigmf-meta/.sigmf-data/.sigmf → SigMF, .wav → WAV, RF64
   * past 4 GiB): the samples as the source delivers them (rtl_tcp: its cu8 bytes). `recording` events
   * follow about once a second; the recording stops with the session, on recordStop, or by itself (a full
   * disk, the source ending), leaving a readable file each time. */
  recordStart: z.object({ path: z.string().min(1).max(4096) }),
  recordStop: z.object({}),
  /** Band measurements (as `measure`) of the running live session's newest `seconds` of samples, the
   * channel it analyses, in [fLow, fHigh] (Hz, absolute as its frequencyRange); start/end: stream frames. */
  measureLive: z.object({
    seconds: z.number().positive().max(LIVE_MEASURE_SECONDS_MAX).default(LIVE_MEASURE_SECONDS_DEFAULT),
    fLow: hz.optional(),
    fHigh: hz.optional(),
    window: z.string().min(1).max(32).default(DEFAULT_WINDOW),
    fft: z.number().int().min(FFT_SIZE_MIN).max(FILE_FFT_SIZE_MAX).optional(),
  }),

  // Named presets of analysis settings (protocol/presets.ts), kept in the user's config folder
  // (io/presets.ts); each replies with the presets as now stored. A name taken by another preset is refused
  // unless `conflict` says to replace it or to number the new one ("name (2)").
  listPresets: z.object({}),
  savePreset: z.object({
    name: presetNameSchema,
    settings: presetSettingsSchema,
    conflict: presetConflictSchema.default('refuse'),
  }),
  renamePreset: z.object({ name: presetNameSchema, to: presetNameSchema }),
  deletePreset: z.object({ name: presetNameSchema }),
} as const;

export type Method = keyof typeof requestSchemas;

export interface MethodResults {
  hello: HelloResult;
  listDevices: { devices: AudioDevice[] };
  start: LiveInfo;
  configure: LiveInfo;
  stop: Record<string, never>;
  resetPeak: Record<string, never>;
  setPeaks: Record<string, never>;
  openFile: FileInfo;
  closeFile: Record<string, never>;
  listDirectory: DirectoryListing;
  fileSpectrogram: FileSpectrogramResult & { data: Float32Array };
  fileSpectrum: FileSpectrumResult & { data: Float32Array };
  readSamples: SamplesResult & { data: Float32Array };
  designFilter: FilterDesignResult;
  applyFilter: ApplyFilterResult;
  extract: ExtractResult;
  correlate: CorrelateResult & { data: Float32Array };
  measure: MeasureResult;
  listBackends: { backends: BackendDetails[] };
  runBench: BenchResult;
  cancel: { cancelled: boolean };
  addAnnotation: AnnotationsResult;
  updateAnnotation: AnnotationsResult;
  deleteAnnotation: AnnotationsResult;
  retune: LiveInfo;
  recordStart: RecordingStatus;
  recordStop: RecordingStatus;
  measureLive: MeasureResult;
  listPresets: PresetsResult;
  savePreset: PresetsResult;
  renamePreset: PresetsResult;
  deletePreset: PresetsResult;
}

export type MethodParams = { [M in Method]: z.input<(typeof requestSchemas)[M]> };

export const requestEnvelopeSchema = z.object({
  type: z.literal('request'),
  id: z.number().int().min(0),
  method: z.string().max(64),
  params: z.unknown(),
});

export const ackEnvelopeSchema = z.object({
  type: z.literal('ack'),
  session: z.number().int().min(0),
  seq: z.number().int().min(0),
});

export const clientMessageSchema = z.discriminatedUnion('type', [requestEnvelopeSchema, ackEnvelopeSchema]);
export type ClientMessage = z.infer<typeof clientMessageSchema>;

// ---------------------------------------------------------------------------------------------------
// Replies and events

export interface ErrorInfo {
  /** PhasorError code, or 'bad-request' for a malformed message. */
  code: string;
  message: string;
}

export type ReplyMessage =
  | { type: 'reply'; id: number; ok: true; result: unknown }
  | { type: 'reply'; id: number; ok: false; error: ErrorInfo };

export interface StatusEvent {
  session: number;
  backend: string;
  sampleRate: number;
  /** Source blocks processed per second (over the last second). */
  blocksPerSecond: number;
  rowsPerSecond: number;
  /** Rows dropped because the display did not keep up (since start). */
  droppedRows: number;
  /** Source blocks lost (the source overran, e.g. audio input overflow), since start. */
  droppedBlocks: number;
  /** Median compute time per block (ms) over the last second. */
  computeMs: number;
  /** The connection of a networked source (rtl_tcp). */
  link?: LinkStatus;
}

/** A networked source's connection, in status events. */
export interface LinkStatus {
  state: 'connecting' | 'connected' | 'reconnecting' | 'failed';
  /** Reconnections since the source opened. */
  reconnects: number;
  /** Frames dropped because the consumer fell behind the stream, since the source opened. */
  droppedSamples: number;
  /** The peer and tuner ("rtl_tcp://127.0.0.1:1234, R820T"), or the last error while reconnecting. */
  detail?: string;
}

/** A recording of the live source (recordStart/recordStop replies and `recording` events). */
export interface RecordingStatus {
  session: number;
  state: 'recording' | 'stopped' | 'failed';
  /** The file to open afterwards (.sigmf-meta or .wav). */
  path: string;
  /** Frames written, and the seconds of signal they hold. */
  frames: number;
  seconds: number;
  /** Bytes on disk (data and metadata). */
  bytes: number;
  /** Frames lost to drops while recording, and the gaps they left (each annotated in a SigMF file). */
  droppedFrames: number;
  gaps: number;
  /** Free bytes on the recording's file system, when known. */
  freeBytes?: number;
  /** Why it stopped when nobody asked it to (the disk is full, the source ended or failed). */
  reason?: string;
}

export interface SourceEvent {
  session: number;
  state: 'running' | 'ended' | 'error';
  message?: string;
}

/** Progress of a long request (fileSpectrogram, applyFilter, correlate, runBench). */
export interface ProgressEvent {
  /** The request's id. */
  request: number;
  done: number;
  total?: number;
  unit: 'frames' | 'rows';
  /** A benchmark row just measured (runBench). */
  row?: BenchRowInfo;
}

/**
 * The strongest peaks of the live spectrum, about 5 times a second: found by the engine on full-resolution
 * spectra (the display's FFT size and window, averaged over the last ≥ 250 ms or ≥ 3 frames), with the
 * frequency and level fitted to the window's response, so an isolated tone reads its own frequency to a
 * small fraction of a bin and its level in dBFS without scalloping loss. Whatever the display's width.
 */
export const peaksEventSchema = z.strictObject({
  session: z.number().int().min(0),
  /** Stream time (s since the session started) of the newest sample analysed. */
  streamTime: z.number().min(0).max(1e12),
  /** FFT size of the spectra (the session's analysis). */
  fft: z.number().int().min(1).max(SPECTRUM_FFT_SIZE_MAX),
  /** sampleRate / fft (Hz): the labels' resolution. */
  binWidth: z.number().positive().max(1e12),
  /** Strongest first (at most PEAK_COUNT_MAX); empty when nothing stands out of the noise. */
  peaks: z
    .array(
      z.strictObject({
        /** Hz, absolute (centre + offset) for I/Q with a known centre frequency. */
        frequency: z.number().min(-1e12).max(1e12),
        /** dBFS (a full-scale real sine, or a unit complex exponential, reads 0). */
        level: z.number().min(-400).max(400),
      }),
    )
    .max(PEAK_COUNT_MAX),
  /** Engine time (ms) the update took, on the CPU. */
  computeMs: z.number().min(0).max(1e9),
});
export type PeaksEvent = z.infer<typeof peaksEventSchema>;

export interface EventMap {
  status: StatusEvent;
  source: SourceEvent;
  progress: ProgressEvent;
  peaks: PeaksEvent;
  recording: RecordingStatus;
}

export type EventMessage = {
  [E in keyof EventMap]: { type: 'event'; event: E; data: EventMap[E] };
}[keyof EventMap];

export type ServerMessage = ReplyMessage | EventMessage;
