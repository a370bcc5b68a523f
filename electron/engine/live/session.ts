// A live session: one source → the backend's streaming spectrogram → rows for a display, with
// backpressure. The source is never made to wait for the display: at most `maxInFlight` rows messages may
// be unacknowledged; rows computed beyond that are dropped and counted (droppedRows). A source that falls
// behind real time drops blocks itself (droppedBlocks).
//
//   const s = new LiveSession({ id, backend, source, analysis, sink });
//   s.start();                 // emits source 'running', rows, status about once a second
//   s.ack(seq);                // the display consumed rows message `seq` (and every one before it)
//   s.configure({ fft: 4096 }) // a new processor from the next block on
//   s.setPeaks({ enabled: false }) // no peaks events (and no work for them) until enabled again
//   await s.retune(100.3e6);   // a tunable source (rtl_tcp) moves; the new LiveInfo comes back
//   await s.stop();            // closes the source
//
// Peaks events (about 5 a second of stream) come from full-resolution spectra of the samples themselves
// (peaks.ts), not from the rows, so they read as `phasor monitor --peaks` does whatever the display width.
// A retune changes only the LiveInfo's range (the rows are relative bins); the peak finder starts afresh
// at the first block that carries the new centre, so peaks stay absolute and never mix two centres.

import type { Backend, SpectrogramProcessor, SpectrogramRows } from '../backends/backend.js';
import { getWindow, windowProperties } from '../dsp/index.js';
import { InvalidArgumentError, PhasorError } from '../errors.js';
import {
  analysisSchema,
  type Analysis,
  type EventMessage,
  type LiveInfo,
  type StatusEvent,
} from '../protocol/messages.js';
import type { RowsMessage } from '../protocol/rows-codec.js';
import { binRange, frameRate, frameStartTime, hopFromOverlap, spectrumBins } from '../protocol/shape.js';
import { toFloat32, type StreamFormat } from '../types.js';
import { liveBlockFrames } from '../sources/pace.js';
import type { LiveBlock, LiveSource } from '../sources/live-source.js';
import { checkPeakSettings, LivePeaks, type LivePeakSettings } from './peaks.js';

export interface SessionSink {
  /** A rows message to send (its arrays are reused afterwards: encode or copy them before returning). */
  rows(message: RowsMessage): void;
  event(message: EventMessage): void;
}

export interface LiveSessionOptions {
  id: number;
  backend: Backend;
  source: LiveSource;
  analysis: Analysis;
  sink: SessionSink;
  /** Unacknowledged rows messages allowed before rows are dropped. Default 16 (about 170 ms of rows at the default analysis). */
  maxInFlight?: number;
  /** Status event period (ms). Default 1000. */
  statusIntervalMs?: number;
  /** Sees every block's analysed channel (e.g. the headless monitor's Welch average). */
  onBlock?: (samples: Float32Array, block: LiveBlock) => void;
  /** Peaks events: on by default (count 5, floor −200 dBFS and 15 dB above the median); false: never
   * (nothing allocated for them). */
  peaks?: Partial<LivePeakSettings> | false;
}

export interface SessionStats {
  blocks: number;
  rows: number;
  /** Rows messages sent. */
  messages: number;
  droppedRows: number;
  droppedBlocks: number;
  /** Frames taken from the source. */
  frames: number;
}

/** What a processor needs for an analysis of a stream. */
export interface AnalysisPlan {
  fft: number;
  hop: number;
  window: Float32Array;
  /** Equivalent noise bandwidth of the window (bins). */
  enbw: number;
  bins: number;
  width: number;
  complex: boolean;
}

/** Resolves an analysis for a stream: hop from the overlap, the window, bins and display width. */
export function planAnalysis(analysis: Analysis, format: Pick<StreamFormat, 'complex'>): AnalysisPlan {
  const a = analysisSchema.safeParse(analysis);
  if (!a.success) {
    throw new InvalidArgumentError(
      `analysis: ${a.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  }
  const { fft, overlap, columns } = a.data;
  const hop = hopFromOverlap(fft, overlap);
  const w = getWindow(a.data.window, fft);
  const window = Float32Array.from(w);
  const { enbw } = windowProperties(w);
  const bins = spectrumBins(fft, format.complex);
  return { fft, hop, window, enbw, bins, width: Math.min(columns, bins), complex: format.complex };
}

/** Frequencies (Hz) of the first and last bin: 0…(bins−1)·fs/n for real input; fftshift order around the
 * centre (when known) for complex input. Column c covers bins [⌊c·bins/width⌋, ⌊(c+1)·bins/width⌋). */
export function frequencyRange(plan: AnalysisPlan, format: StreamFormat): [number, number] {
  return binRange(plan.fft, format.sampleRate, plan.complex, format.centerFrequency);
}

function median(values: number[]): number {
  if (values.length === 0) return 0;
  const s = values.slice().sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

interface Stage {
  plan: AnalysisPlan;
  analysis: Analysis;
  proc: SpectrogramProcessor;
  /** Stream frame at which this processor got its first sample. */
  startFrame: number;
  peak: Float32Array;
  /** Peak finding on full-resolution spectra (null when the session sends no peaks). */
  peaks: LivePeaks | null;
}

export class LiveSession {
  readonly id: number;
  readonly #o: LiveSessionOptions;
  /** The stream's format; its centre follows retune() and the blocks. */
  #format: StreamFormat;
  #stage: Stage;
  #next: Stage | null = null;
  #scratch = new Float32Array(0);
  readonly #abort = new AbortController();
  #running: Promise<void> | null = null;
  #timer: ReturnType<typeof setInterval> | null = null;
  #stopped = false;
  #ended = false;
  #seq = 0;
  #acked = -1;
  #frames = 0;
  readonly #stats: SessionStats = {
    blocks: 0,
    rows: 0,
    messages: 0,
    droppedRows: 0,
    droppedBlocks: 0,
    frames: 0,
  };
  // Since the last status event.
  #tick = { at: 0, blocks: 0, rows: 0, compute: [] as number[] };
  /** Peaks settings; null: the session never sends peaks. */
  readonly #peakSettings: LivePeakSettings | null;
  #peaksOn: boolean;
  /** The centre the peak finders were made for (complex streams). */
  #peaksCentre: number | undefined;
  /** Consumers of every block as the source delivers it (tap()). */
  readonly #taps = new Set<(block: LiveBlock) => void>();

  constructor(options: LiveSessionOptions) {
    this.id = options.id;
    this.#o = options;
    this.#format = options.source.info;
    this.#peaksCentre = this.#format.centerFrequency;
    if (options.peaks === false) {
      this.#peakSettings = null;
    } else {
      const given = options.peaks ?? {};
      checkPeakSettings(given);
      this.#peakSettings = { count: 5, minLevelDb: -200, aboveNoiseDb: 15, ...given };
    }
    this.#peaksOn = this.#peakSettings !== null;
    this.#stage = this.#makeStage(options.analysis, 0);
  }

  /** Peak finding for a plan: the current one when only the display width changes (it keeps its samples),
   * unless `fresh` (a new centre). */
  #makePeaks(plan: AnalysisPlan, analysis: Analysis, fresh = false): LivePeaks | null {
    const settings = this.#peakSettings;
    if (settings === null || !this.#peaksOn) return null;
    const current = (this.#next ?? this.#stage) as Stage | undefined;
    const old = current?.peaks;
    if (
      !fresh &&
      old &&
      old.fft === plan.fft &&
      current.plan.hop === plan.hop &&
      current.analysis.window === analysis.window
    )
      return old;
    const f = this.#format;
    return new LivePeaks({
      fft: plan.fft,
      hop: plan.hop,
      window: analysis.window,
      complex: plan.complex,
      sampleRate: f.sampleRate,
      ...(f.centerFrequency !== undefined ? { centerFrequency: f.centerFrequency } : {}),
      ...settings,
    });
  }

  #makeStage(analysis: Analysis, startFrame: number): Stage {
    const plan = planAnalysis(analysis, this.#format);
    const peaks = this.#makePeaks(plan, analysis);
    const proc = this.#o.backend.createSpectrogram({
      fft: plan.fft,
      hop: plan.hop,
      window: plan.window,
      complex: plan.complex,
      columns: plan.width,
      averaging: analysis.averaging,
    });
    return { plan, analysis, proc, startFrame, peak: new Float32Array(plan.width).fill(-Infinity), peaks };
  }

  get analysis(): Analysis {
    return (this.#next ?? this.#stage).analysis;
  }

  info(): LiveInfo {
    const { plan } = this.#next ?? this.#stage;
    const f = this.#format;
    const info: LiveInfo = {
      session: this.id,
      sampleRate: f.sampleRate,
      complex: f.complex,
      fft: plan.fft,
      hop: plan.hop,
      enbw: plan.enbw,
      bins: plan.bins,
      width: plan.width,
      frequencyRange: frequencyRange(plan, f),
      rowRate: frameRate(plan.hop, f.sampleRate),
      source: this.#o.source.label,
    };
    if (f.centerFrequency !== undefined) info.centerFrequency = f.centerFrequency;
    if (this.tunable) info.tunable = true;
    return info;
  }

  /** The source can move to another centre frequency while it streams (retune). */
  get tunable(): boolean {
    return typeof this.#o.source.retune === 'function';
  }

  /** Moves a tunable source to `centerFrequency` (Hz) and returns the new LiveInfo. The rows go on as
   * they were (relative bins); the peaks follow from the first block at the new centre. */
  async retune(centerFrequency: number): Promise<LiveInfo> {
    const source = this.#o.source;
    if (!source.retune)
      throw new InvalidArgumentError(`the ${source.label} source cannot be retuned (it has no tuner)`);
    if (!(Number.isFinite(centerFrequency) && centerFrequency >= 0))
      throw new InvalidArgumentError(`a centre frequency must be ≥ 0 Hz, got ${centerFrequency}`);
    await source.retune(centerFrequency);
    this.#format = { ...this.#format, centerFrequency };
    return this.info();
  }

  /** A block at another centre than the peak finders': they start afresh at it. */
  #followCentre(block: LiveBlock): void {
    const c = block.format.centerFrequency;
    if (c === undefined || !this.#format.complex) return;
    if (c === this.#peaksCentre) return;
    this.#peaksCentre = c;
    if (this.#format.centerFrequency !== c) this.#format = { ...this.#format, centerFrequency: c };
    for (const stage of [this.#stage, this.#next]) {
      if (stage?.peaks) stage.peaks = this.#makePeaks(stage.plan, stage.analysis, true);
    }
  }

  /** The session's source (its info and label, for a recording of it). */
  get source(): LiveSource {
    return this.#o.source;
  }

  /** Adds a consumer that sees every block as the source delivers it, before decoding (raw integers where
   * the source has them: rtl_tcp's bytes), e.g. a recorder. It must not keep the block's data past the
   * call. Returns the function that removes it. */
  tap(consumer: (block: LiveBlock) => void): () => void {
    this.#taps.add(consumer);
    return () => this.#taps.delete(consumer);
  }

  stats(): SessionStats {
    return { ...this.#stats, droppedBlocks: this.#o.source.droppedBlocks };
  }

  /** Starts pulling blocks. Resolves `done` when the source ends, fails or the session stops. */
  start(): void {
    if (this.#running) return;
    this.#tick.at = performance.now();
    const period = this.#o.statusIntervalMs ?? 1000;
    this.#timer = setInterval(() => this.#status(), period);
    this.#timer.unref?.();
    this.#event({ type: 'event', event: 'source', data: { session: this.id, state: 'running' } });
    this.#running = this.#run();
  }

  /** Settles when the loop has finished (after stop(), an error or the end of the source). */
  get done(): Promise<void> {
    return this.#running ?? Promise.resolve();
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** New analysis settings; the processor changes at the next block (bad settings throw, nothing changes). */
  configure(change: Partial<Analysis>): LiveInfo {
    const merged = { ...this.analysis, ...change };
    const stage = this.#makeStage(merged, 0);
    this.#next?.proc.dispose();
    this.#next = stage;
    return this.info();
  }

  /** Turns the peaks events on or off and changes their count or floor (from the next update). */
  setPeaks(change: { enabled: boolean; count?: number; minLevelDb?: number }): void {
    const settings = this.#peakSettings;
    if (settings === null) return;
    const update: Partial<LivePeakSettings> = {};
    if (change.count !== undefined) update.count = change.count;
    if (change.minLevelDb !== undefined) update.minLevelDb = change.minLevelDb;
    checkPeakSettings(update);
    Object.assign(settings, update);
    this.#peaksOn = change.enabled;
    for (const stage of [this.#stage, this.#next]) {
      if (!stage) continue;
      if (!change.enabled) stage.peaks = null;
      else if (stage.peaks) Object.assign(stage.peaks.settings, update);
      else stage.peaks = this.#makePeaks(stage.plan, stage.analysis);
    }
  }

  resetPeak(): void {
    this.#stage.peak.fill(-Infinity);
    this.#next?.peak.fill(-Infinity);
  }

  /** The display consumed rows message `seq` and every one before it. */
  ack(seq: number): void {
    if (seq < this.#seq && seq > this.#acked) this.#acked = seq;
  }

  get inFlight(): number {
    return this.#seq - 1 - this.#acked;
  }

  async stop(): Promise<void> {
    if (this.#stopped) return this.#running ?? undefined;
    this.#stopped = true;
    this.#abort.abort();
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    // A source blocked inside a read is released by close().
    const closing = this.#o.source.close().catch(() => undefined);
    await this.#running?.catch(() => undefined);
    await closing;
    this.#stage.proc.dispose();
    this.#next?.proc.dispose();
    this.#next = null;
  }

  async #run(): Promise<void> {
    const signal = this.#abort.signal;
    const source = this.#o.source;
    let yielded = performance.now();
    try {
      for await (const block of source.blocks({
        blockFrames: liveBlockFrames(this.#format.sampleRate),
        // raw integers where the source has them, for the taps (a recording keeps the bytes received)
        raw: true,
        signal,
      })) {
        if (this.#stopped) break;
        if (this.#next) {
          this.#stage.proc.dispose();
          this.#next.startFrame = this.#frames;
          this.#stage = this.#next;
          this.#next = null;
        }
        this.#followCentre(block);
        const stage = this.#stage;
        for (const tap of this.#taps) tap(block);
        const samples = this.#channel(block);
        this.#o.onBlock?.(samples, block);
        // Before the backend sees them: a backend may hand the samples on.
        stage.peaks?.push(samples, block.frames);
        const t0 = performance.now();
        const r = await stage.proc.push(samples);
        this.#tick.compute.push(performance.now() - t0);
        this.#stats.blocks++;
        this.#tick.blocks++;
        this.#frames += block.frames;
        this.#stats.frames = this.#frames;
        if (this.#stopped) break;
        if (r.count > 0 && stage === this.#stage) this.#rows(stage, r, block.captureTime);
        // After the rows are on their way, so the display never waits for the peaks.
        if (stage.peaks?.due() && stage === this.#stage) this.#peaks(stage, stage.peaks);
        // A source that is behind real time, with a backend computing on this thread, would otherwise
        // keep the loop in microtasks: let timers and I/O (acks, stop, the transport) run now and then.
        if (performance.now() - yielded > 10) {
          await new Promise<void>((resolve) => setImmediate(resolve));
          yielded = performance.now();
        }
      }
      if (!this.#stopped) {
        this.#ended = true;
        this.#event({ type: 'event', event: 'source', data: { session: this.id, state: 'ended' } });
      }
    } catch (err) {
      if (this.#stopped) return;
      this.#ended = true;
      const message =
        err instanceof PhasorError
          ? err.file !== undefined
            ? `${err.file}: ${err.message}`
            : err.message
          : `the source failed: ${err instanceof Error ? err.message : String(err)}`;
      this.#event({ type: 'event', event: 'source', data: { session: this.id, state: 'error', message } });
    } finally {
      if (this.#ended) {
        this.#status();
        if (this.#timer) clearInterval(this.#timer);
        this.#timer = null;
      }
    }
  }

  /** The analysed channel of a block as float32 (the block's own array when it is a single channel). */
  #channel(block: LiveBlock): Float32Array {
    const f = block.format;
    // Raw integers are decoded into a new array: the backend may hand its input on.
    const data = toFloat32(block.data);
    if (f.channels === 1) return data;
    const w = f.complex ? 2 : 1;
    const stride = f.channels * w;
    const n = block.frames * w;
    if (this.#scratch.length < n) this.#scratch = new Float32Array(n);
    const out = this.#scratch.subarray(0, n);
    for (let i = 0, j = this.#o.source.channel * w; i < n; i += w, j += stride) {
      out[i] = data[j];
      if (w === 2) out[i + 1] = data[j + 1];
    }
    return out;
  }

  #rows(stage: Stage, r: SpectrogramRows, captureTime: number): void {
    const { width, count } = r;
    const peak = stage.peak;
    for (let i = 0; i < count; i++) {
      const row = i * width;
      for (let c = 0; c < width; c++) if (r.rows[row + c] > peak[c]) peak[c] = r.rows[row + c];
    }
    this.#stats.rows += count;
    this.#tick.rows += count;
    if (this.inFlight >= (this.#o.maxInFlight ?? 16)) {
      this.#stats.droppedRows += count;
      return;
    }
    const message: RowsMessage = {
      session: this.id,
      seq: this.#seq++,
      firstFrame: r.firstFrame,
      count,
      width,
      captureTime,
      streamTime: frameStartTime(r.firstFrame, stage.plan.hop, this.#format.sampleRate, stage.startFrame),
      rows: r.rows,
      peak,
    };
    if (r.average) message.average = r.average;
    this.#stats.messages++;
    this.#o.sink.rows(message);
  }

  #peaks(stage: Stage, finder: LivePeaks): void {
    const found = finder.compute();
    const peaks = new Array<{ frequency: number; level: number }>(found.length);
    for (let i = 0; i < found.length; i++)
      peaks[i] = { frequency: found[i].frequency, level: found[i].level };
    this.#event({
      type: 'event',
      event: 'peaks',
      data: {
        session: this.id,
        streamTime: this.#frames / this.#format.sampleRate,
        fft: stage.plan.fft,
        binWidth: finder.binWidth,
        peaks,
        computeMs: finder.lastMs,
      },
    });
  }

  #status(): void {
    const now = performance.now();
    const secs = Math.max(1e-3, (now - this.#tick.at) / 1000);
    const t = this.#tick;
    const source = this.#o.source;
    const data: StatusEvent = {
      session: this.id,
      backend: this.#o.backend.name,
      sampleRate: this.#format.sampleRate,
      blocksPerSecond: t.blocks / secs,
      rowsPerSecond: t.rows / secs,
      droppedRows: this.#stats.droppedRows,
      droppedBlocks: source.droppedBlocks,
      computeMs: median(t.compute),
    };
    if (source.link) data.link = source.link();
    this.#event({ type: 'event', event: 'status', data });
    this.#tick = { at: now, blocks: 0, rows: 0, compute: [] };
  }

  #event(message: EventMessage): void {
    if (this.#stopped && message.event !== 'status') return;
    try {
      this.#o.sink.event(message);
    } catch {
      // A transport that went away must not stop the session's clean-up.
    }
  }
}
