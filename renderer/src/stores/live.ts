// The live session: starting/stopping the source, analysis changes, the session's LiveInfo, the source's
// state (running, ended, error), pause, the rows themselves, the peaks the engine finds, and retuning a
// tunable source (rtl_tcp).
//
// Rows stay out of Vue's reactivity: each message goes straight to the waterfall's sink (which copies its
// rows into the history ring; the next animation frame uploads them) and to the traces, and is then
// acknowledged. Nothing is queued here: when this thread cannot keep up, messages wait in the transport,
// acks come late, and the engine drops rows (and counts them) instead. While paused, rows are
// acknowledged and dropped.
//
// Peaks (the markers) come from the engine's peaks events, found on full-resolution spectra rather than on
// the reduced rows; the engine is asked for them only while they are shown (markers on, not paused).

import { defineStore } from 'pinia';
import { computed, markRaw, ref, shallowRef, watch } from 'vue';
import {
  peaksEventSchema,
  type Analysis,
  type AudioDevice,
  type LiveInfo,
  type PeaksEvent,
  type SourceEvent,
  type SourceKind,
  type SourceParams,
} from '../../../electron/engine/protocol/messages.js';
import type { RowsMessage } from '../../../electron/engine/protocol/rows-codec.js';
import { openBrowserMic, type BrowserMic } from '../lib/browser-mic.js';
import { hooks } from '../lib/hooks.js';
import { TraceModes, unitOffset } from '../lib/traces.js';
import type { ParamValue } from '../lib/settings-schema.js';
import { useConnectionStore } from './connection.js';
import { coerceParam, fieldDefault, useSettingsStore } from './settings.js';

/** A double-click re-centres a tunable source on the clicked frequency rounded to this (Hz). */
export const RETUNE_STEP_HZ = 1000;

export type SourceState = 'idle' | 'starting' | 'running' | 'ended' | 'error' | 'stopped';

/** Latest traces, replaced in place (allocated again only when the width changes). */
export interface Traces {
  width: number;
  current: Float32Array;
  average: Float32Array;
  peak: Float32Array;
  hasAverage: boolean;
  hasPeak: boolean;
  /** The spectrum's trace modes (main trace, max and min hold) over every row drawn. */
  modes: TraceModes;
  /** Stream time (s) of the start of the latest row. */
  time: number;
  /** Increments whenever the traces change (the plot redraws when it moves). */
  version: number;
}

export type AnalysisSettings = Pick<Analysis, 'fft' | 'overlap' | 'window' | 'averaging'>;

export const useLiveStore = defineStore('live', () => {
  const connection = useConnectionStore();
  const settings = useSettingsStore();

  const info = shallowRef<LiveInfo | null>(null);
  const sourceState = ref<SourceState>('idle');
  const sourceMessage = ref('');
  const lastError = ref('');
  const paused = ref(false);
  /** Display columns the waterfall wants (its width in device pixels, or more on a log axis). */
  const columns = ref(0);
  /** Devices per source kind, from listDevices. */
  const devices = shallowRef<Record<string, AudioDevice[]>>({});
  /** The engine's latest peaks for this session and FFT size (null: none yet, or markers off). */
  const peaks = shallowRef<PeaksEvent | null>(null);
  /** Peaks events refused by the schema (a protocol mismatch; never expected). */
  let badPeaks = 0;
  /** Whether the engine's session sends peaks now (each session starts with them on). */
  let enginePeaks = true;

  const running = computed(() => sourceState.value === 'running' || sourceState.value === 'starting');

  const traces: Traces = markRaw({
    width: 0,
    current: new Float32Array(0),
    average: new Float32Array(0),
    peak: new Float32Array(0),
    hasAverage: false,
    hasPeak: false,
    modes: markRaw(new TraceModes(traceSettings())),
    time: NaN,
    version: 0,
  });

  function traceSettings() {
    return { mode: settings.s.traceMode, alpha: settings.s.traceAlpha, frames: settings.s.traceFrames };
  }
  watch(traceSettings, (t) => {
    traces.modes.configure(t);
    traces.version++;
  });
  /** dB added to per-bin dBFS levels to show them in the chosen unit (dBFS/Hz: −10·log10 RBW). */
  const levelOffset = computed(() => {
    const i = info.value;
    return i ? unitOffset(settings.s.levelUnit, i.enbw, i.sampleRate, i.fft) : 0;
  });
  // The trace modes and holds belong to a frequency axis: another FFT size, width or range starts them
  // again; a new session on the same axis (a source restarted) keeps them, as an analyzer's hold does.
  watch(
    () => {
      const i = info.value;
      return i ? `${i.fft} ${i.width} ${i.frequencyRange[0]} ${i.frequencyRange[1]}` : '';
    },
    (key) => {
      if (key) traces.modes.reset();
    },
  );

  /** Where rows go to be drawn (the mounted waterfall), if anywhere. */
  let sink: ((m: RowsMessage) => void) | null = null;

  // ---------------------------------------------------------------------------------------------
  // Source selection

  /** The kind to start: the stored one if the engine still offers it, else the engine's default. */
  const selectedKind = computed<SourceKind | null>(() => {
    const kinds = connection.sources;
    const byName = (k: string) => kinds.find((x) => x.kind === k) ?? null;
    return (
      byName(settings.s.sourceKind) ??
      byName(connection.hello?.defaults.source.kind ?? '') ??
      kinds.find((k) => !k.unavailable) ??
      null
    );
  });

  /** Parameters to start `kind` with: stored values that still fit, else the engine's default source's,
   * else the fields' own defaults. */
  function sourceParams(kind: SourceKind): SourceParams {
    const stored = settings.s.sourceParams[kind.kind];
    const defaults = connection.hello?.defaults.source;
    const fromDefaults =
      defaults && defaults.kind === kind.kind ? (defaults as Record<string, unknown>) : null;
    const out: Record<string, ParamValue> = {};
    for (const f of kind.fields) {
      out[f.name] =
        coerceParam(f, stored?.[f.name]) ??
        (fromDefaults ? coerceParam(f, fromDefaults[f.name]) : undefined) ??
        fieldDefault(f);
    }
    return { ...out, kind: kind.kind };
  }

  function analysis(): Analysis {
    return {
      fft: settings.s.fft,
      overlap: settings.s.overlap,
      window: settings.s.window,
      averaging: settings.s.averaging,
      columns: Math.max(1, Math.min(16384, columns.value || 2048)),
    };
  }

  function message(e: unknown): string {
    return e instanceof Error ? e.message : String(e);
  }

  function setPeaks(next: PeaksEvent | null): void {
    peaks.value = next;
    hooks.peaks = next;
  }

  function setInfo(next: LiveInfo | null): void {
    const before = info.value;
    info.value = next;
    hooks.info = next;
    // Peaks of another session, FFT size or frequency range (a retune) no longer describe what is shown.
    if (
      !next ||
      !before ||
      next.session !== before.session ||
      next.fft !== before.fft ||
      next.frequencyRange[0] !== before.frequencyRange[0] ||
      next.frequencyRange[1] !== before.frequencyRange[1]
    )
      setPeaks(null);
    if (next && next.session !== before?.session) enginePeaks = true; // a new session sends them
  }

  // ---------------------------------------------------------------------------------------------
  // Requests

  /** The page's own capture while a browser-mic session runs (web mode). */
  let mic: BrowserMic | null = null;
  function closeMic(): void {
    mic?.close();
    mic = null;
  }

  async function start(): Promise<void> {
    closeMic();
    const kind = selectedKind.value;
    if (!kind) {
      sourceState.value = 'error';
      sourceMessage.value = 'the engine offers no source';
      return;
    }
    if (kind.unavailable) {
      sourceState.value = 'error';
      sourceMessage.value = `${kind.label} cannot be used here: ${kind.unavailable}`;
      return;
    }
    sourceState.value = 'starting';
    sourceMessage.value = '';
    let source = sourceParams(kind);
    let capture: BrowserMic | null = null;
    try {
      if (kind.capture === 'browser-audio') {
        // The page captures: its rate and device name complete the source.
        capture = mic = await openBrowserMic();
        source = { ...source, sampleRate: capture.sampleRate, device: capture.label };
        capture.onFailure((why) => {
          if (mic !== capture) return;
          mic = null;
          void stop().then(() => {
            sourceState.value = 'error';
            sourceMessage.value = why;
          });
        });
      }
      const asked = analysis();
      const result = await connection.request('start', { source, analysis: asked });
      if (capture) {
        if (mic !== capture) return; // stopped or started again meanwhile
        capture.stream(connection.connection(), result.session);
      }
      setInfo(result);
      // A source event may already have said it ended or failed.
      if (sourceState.value === 'starting') sourceState.value = 'running';
      await catchUp(asked);
    } catch (e) {
      if (capture && mic === capture) closeMic();
      setInfo(null);
      sourceState.value = 'error';
      sourceMessage.value = message(e);
    }
  }

  /**
   * Settings changed while a start was on its way (the display measuring its width as the page mounts, a
   * field edited) were kept but not sent: the session runs with what the start asked for. Sends the
   * difference now, so the session never runs on with, say, 2048 columns for a 956-pixel display (and
   * then loses its holds at the next restart, when the width would change under them).
   */
  async function catchUp(asked: Analysis): Promise<void> {
    const now = analysis();
    const change: Partial<Analysis> = {};
    for (const k of Object.keys(now) as Array<keyof Analysis>) {
      if (now[k] !== asked[k]) (change as Record<string, unknown>)[k] = now[k];
    }
    if (Object.keys(change).length === 0 || !running.value || !info.value) return;
    try {
      setInfo(await connection.request('configure', { analysis: change }));
    } catch (e) {
      lastError.value = message(e);
    }
  }

  async function stop(): Promise<void> {
    closeMic();
    try {
      await connection.request('stop', {});
    } catch (e) {
      lastError.value = message(e);
    }
    sourceState.value = 'stopped';
  }

  /** Changes analysis settings: saved, then sent to a running session (restored if the engine refuses). */
  async function setAnalysis(change: Partial<AnalysisSettings>): Promise<void> {
    const before: Partial<AnalysisSettings> = {};
    for (const k of Object.keys(change) as Array<keyof AnalysisSettings>) {
      (before as Record<string, unknown>)[k] = settings.s[k];
    }
    Object.assign(settings.s, change);
    if (!running.value || !info.value) return;
    try {
      setInfo(await connection.request('configure', { analysis: change }));
      lastError.value = '';
    } catch (e) {
      Object.assign(settings.s, before);
      lastError.value = message(e);
    }
  }

  async function setColumns(n: number): Promise<void> {
    n = Math.max(1, Math.min(16384, Math.round(n)));
    if (n === columns.value) return;
    columns.value = n;
    if (!running.value || !info.value) return;
    try {
      setInfo(await connection.request('configure', { analysis: { columns: n } }));
    } catch (e) {
      lastError.value = message(e);
    }
  }

  /** The running source takes `retune` (rtl_tcp): a double-click on the display re-centres it. */
  const tunable = computed(() => !!info.value?.tunable && running.value);

  /** Moves a tunable source's centre to `hz` (rounded to RETUNE_STEP_HZ); the axis follows the reply. */
  async function retune(hz: number): Promise<void> {
    if (!tunable.value || !Number.isFinite(hz)) return;
    const centerFrequency = Math.max(0, Math.round(hz / RETUNE_STEP_HZ) * RETUNE_STEP_HZ);
    try {
      setInfo(await connection.request('retune', { centerFrequency }));
      lastError.value = '';
    } catch (e) {
      lastError.value = message(e);
    }
  }

  /** While a reset is on its way, rows messages may still carry the engine's old peak: ignored. */
  let holdFromRows = false;
  /** Starts the max hold (the engine's and the display's) and the min hold again. */
  async function resetPeak(): Promise<void> {
    traces.modes.resetHolds();
    traces.version++;
    holdFromRows = true;
    try {
      await connection.request('resetPeak', {});
    } catch (e) {
      lastError.value = message(e);
    } finally {
      holdFromRows = false;
    }
  }

  async function listDevices(kind: string): Promise<AudioDevice[]> {
    const result = await connection.request('listDevices', { kind });
    devices.value = { ...devices.value, [kind]: result.devices };
    return result.devices;
  }

  function setPaused(p: boolean): void {
    paused.value = p;
  }

  // ---------------------------------------------------------------------------------------------
  // Rows

  function ack(m: RowsMessage): void {
    try {
      connection.connection().ack(m.session, m.seq);
    } catch {
      // No connection: nothing to acknowledge to.
    }
  }

  function updateTraces(m: RowsMessage): void {
    const w = m.width;
    if (traces.width !== w) {
      traces.width = w;
      traces.current = new Float32Array(w);
      traces.average = new Float32Array(w);
      traces.peak = new Float32Array(w);
    }
    const cur = traces.current;
    const last = (m.count - 1) * w;
    if (m.count > 0) for (let c = 0; c < w; c++) cur[c] = m.rows[last + c];
    traces.hasAverage = !!m.average;
    traces.hasPeak = !!m.peak;
    if (m.average) traces.average.set(m.average);
    if (m.peak) traces.peak.set(m.peak);
    traces.modes.push(m.rows, m.count, w, holdFromRows ? null : m.peak);
    const i = info.value;
    if (i) traces.time = m.streamTime + (Math.max(1, m.count) - 1) * (i.hop / i.sampleRate);
    traces.version++;
  }

  /** Handles one rows message from the engine (also called directly by tests). */
  function receiveRows(m: RowsMessage): void {
    hooks.rowsReceived += m.count;
    const current = info.value;
    if (!current || m.session !== current.session || m.width !== current.width || paused.value) {
      // Another session, a width the session no longer has, or frozen: consumed without drawing.
      hooks.rowsDiscarded += m.count;
      ack(m);
      return;
    }
    updateTraces(m);
    try {
      sink?.(m);
    } finally {
      ack(m);
    }
  }

  /** The waterfall registers where rows go while it is mounted; returns the unregister function. */
  function setSink(fn: (m: RowsMessage) => void): () => void {
    sink = fn;
    return () => {
      if (sink === fn) sink = null;
    };
  }

  /** Handles one peaks event (validated: it is drawn as text). */
  function receivePeaks(data: unknown): void {
    const parsed = peaksEventSchema.safeParse(data);
    if (!parsed.success) {
      badPeaks++;
      hooks.badPeaks = badPeaks;
      return;
    }
    const e = parsed.data;
    const current = info.value;
    // Frozen with the display while paused; stale ones (another session, the FFT size before) dropped.
    if (!current || e.session !== current.session || e.fft !== current.fft || paused.value) return;
    if (!settings.s.showMarkers) return;
    setPeaks(e);
  }

  const peaksWanted = computed(() => settings.s.showMarkers && !paused.value);
  async function syncPeaks(): Promise<void> {
    const want = peaksWanted.value;
    if (!info.value || !running.value || want === enginePeaks) return;
    enginePeaks = want;
    try {
      await connection.request('setPeaks', { enabled: want });
    } catch (e) {
      enginePeaks = !want;
      lastError.value = message(e);
    }
  }
  watch([peaksWanted, info, running], () => void syncPeaks());
  watch(
    () => settings.s.showMarkers,
    (on) => {
      if (!on) setPeaks(null);
    },
  );

  function receiveSourceEvent(e: SourceEvent): void {
    if (info.value && e.session !== info.value.session) return;
    if (e.state === 'running') {
      sourceState.value = 'running';
      sourceMessage.value = '';
    } else {
      closeMic();
      sourceState.value = e.state;
      sourceMessage.value = e.message ?? (e.state === 'ended' ? 'the source ended' : 'the source failed');
    }
  }

  // Wire the connection's rows and source events, and start (again) after each hello.
  let unsubscribe: Array<() => void> = [];
  function bind(): void {
    for (const u of unsubscribe) u();
    unsubscribe = [];
    let c;
    try {
      c = connection.connection();
    } catch {
      return;
    }
    unsubscribe.push(c.onRows(receiveRows));
    unsubscribe.push(c.on('source', receiveSourceEvent));
    unsubscribe.push(c.on('peaks', receivePeaks));
  }

  /** Whether to start on (re)connection: always at first, and again if it was running when the link fell. */
  let wantRunning = true;
  watch(sourceState, (s) => {
    if (s === 'stopped') wantRunning = false;
    else if (s === 'running' || s === 'starting') wantRunning = true;
  });
  // While another view is shown the session is stopped (it would compete with offline work for the
  // engine and the CPU), and started again when the Live view comes back.
  let active = true;
  let resumeOnActive = false;
  async function setActive(on: boolean): Promise<void> {
    if (on === active) return;
    active = on;
    if (!on) {
      if (running.value) {
        resumeOnActive = true;
        await stop();
      }
    } else if (resumeOnActive) {
      resumeOnActive = false;
      await start();
    }
  }

  watch(
    () => connection.epoch,
    () => {
      closeMic(); // the session it fed ended with the link
      bind();
      setInfo(null);
      if (!wantRunning) return;
      if (active) void start();
      else resumeOnActive = true;
    },
  );

  return {
    info,
    sourceState,
    sourceMessage,
    lastError,
    paused,
    columns,
    devices,
    running,
    traces,
    levelOffset,
    peaks,
    selectedKind,
    sourceParams,
    analysis,
    start,
    stop,
    setAnalysis,
    setColumns,
    resetPeak,
    tunable,
    retune,
    listDevices,
    setPaused,
    receiveRows,
    receiveSourceEvent,
    receivePeaks,
    setSink,
    bind,
    setActive,
  };
});
