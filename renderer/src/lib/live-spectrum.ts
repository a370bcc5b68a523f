// The Live view's spectrum as one trace for markers, auto-range and CSV export: the main trace's levels
// at the display columns' frequencies (the middle of each column's bins), and the actions on it that the
// panel buttons and the keys share.

import type { FrequencyAxis } from './axis.js';
import { columnToFrequency } from './axis.js';
import { snapshotName } from './format.js';
import type { Trace } from './markers.js';
import { download } from './snapshot.js';
import { spectrumCsv, type CsvTrace } from './spectrum-csv.js';
import { autoRange, rbwHz, TRACE_MODES } from './traces.js';
import { useLiveStore } from '../stores/live.js';
import { useMarkersStore } from '../stores/markers.js';
import { useSettingsStore } from '../stores/settings.js';
import { useViewportStore } from '../stores/viewport.js';

let freqAxis: FrequencyAxis | null = null;
let freqs = new Float64Array(0);

/** Frequencies of the columns of `axis` (made again only when the axis changes). */
export function columnFrequencies(axis: FrequencyAxis): Float64Array {
  if (axis !== freqAxis) {
    freqAxis = axis;
    freqs = new Float64Array(axis.width);
    for (let c = 0; c < axis.width; c++) freqs[c] = columnToFrequency(axis, c);
  }
  return freqs;
}

/** File name of a CSV export at `date`: the snapshot's, phasor-YYYYMMDD-HHMMSS, with .csv. */
export function csvName(date: Date): string {
  return snapshotName(date).replace(/\.png$/, '.csv');
}

export function useLiveSpectrum() {
  const live = useLiveStore();
  const settings = useSettingsStore();
  const viewport = useViewportStore();
  const markers = useMarkersStore();

  /** The main trace now, or null before rows of the current axis have come. */
  function trace(): Trace | null {
    const axis = viewport.axis;
    const m = live.traces.modes;
    if (!axis || m.width !== axis.width || m.width === 0) return null;
    return { levels: m.main, frequencies: columnFrequencies(axis), time: live.traces.time };
  }

  /** Sets the level range from the main trace's floor and the strongest level shown. */
  function fitLevels(): boolean {
    const t = trace();
    if (!t) return false;
    const m = live.traces.modes;
    const r = autoRange(t.levels, settings.s.showPeak ? m.max : null, { offset: live.levelOffset });
    if (!r || r.dbMin < -400 || r.dbMax > 100) return false;
    settings.s.dbMin = r.dbMin;
    settings.s.dbMax = r.dbMax;
    return true;
  }

  function addMarker(): void {
    const t = trace();
    if (t) markers.addAtPeak(t);
  }
  function snapMarker(): void {
    const t = trace();
    if (t) markers.snapSelected(t);
  }
  function nextPeak(): void {
    const t = trace();
    if (t) markers.nextPeakSelected(t);
  }

  function traceDescription(): string {
    const s = settings.s;
    if (s.traceMode === 'exp') return `exponential average, factor ${s.traceAlpha}`;
    if (s.traceMode === 'linear') return `linear average of ${s.traceFrames} frames`;
    return 'clear-write';
  }

  /** The traces shown, as CSV (frequency, then each trace in the chosen unit), with the analysis. */
  function csv(): string | null {
    const t = trace();
    const info = live.info;
    if (!t || !info) return null;
    const m = live.traces.modes;
    const unit = settings.s.levelUnit;
    const offset = live.levelOffset;
    const mode = TRACE_MODES.find((x) => x.value === settings.s.traceMode)!;
    const cols: CsvTrace[] = [];
    if (settings.s.showCurrent) cols.push({ name: mode.label.toLowerCase(), unit, levels: m.main, offset });
    if (settings.s.showPeak) cols.push({ name: 'max hold', unit, levels: m.max, offset });
    if (settings.s.showMin) cols.push({ name: 'min hold', unit, levels: m.min, offset });
    if (cols.length === 0) cols.push({ name: mode.label.toLowerCase(), unit, levels: m.main, offset });
    const comments: Array<[string, string | number]> = [
      ['source', info.source],
      ['sample_rate_hz', info.sampleRate],
      ['fft', info.fft],
      ['window', settings.s.window],
      ['enbw_bins', +info.enbw.toFixed(6)],
      ['rbw_hz', +rbwHz(info.enbw, info.sampleRate, info.fft).toFixed(6)],
      ['trace', traceDescription()],
      ['time_s', +live.traces.time.toFixed(6)],
      ['columns', `${info.width} of ${info.bins} bins, each the highest of its bins`],
      ['exported', new Date().toISOString()],
    ];
    return spectrumCsv(t.frequencies!, cols, comments);
  }

  function exportCsv(): boolean {
    const text = csv();
    if (text === null) return false;
    download(new Blob([text], { type: 'text/csv' }), csvName(new Date()));
    return true;
  }

  return { trace, traceDescription, fitLevels, addMarker, snapMarker, nextPeak, csv, exportCsv };
}
