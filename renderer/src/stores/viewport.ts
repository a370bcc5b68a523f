// What part of the spectrum and of the history the plots show (zoom and pan in frequency and time), and
// the cursor. Shared by the trace, the waterfall, their axes and the readout.

import { defineStore } from 'pinia';
import { computed, ref, shallowRef, watch } from 'vue';
import {
  FULL_VIEW,
  canLogAxis,
  makeFrequencyAxis,
  minViewSpan,
  panView,
  zoomView,
  type FrequencyAxis,
  type View,
} from '../lib/axis.js';
import { useLiveStore } from './live.js';
import { useSettingsStore } from './settings.js';

export interface Cursor {
  /** Screen fraction across the plot (0 = left). */
  x: number;
  /** Where the pointer is, and its fraction down that plot (0 = top). */
  region: 'spectrum' | 'waterfall';
  y: number;
}

export const MAX_TIME_SCALE = 16;

export const useViewportStore = defineStore('viewport', () => {
  const live = useLiveStore();
  const settings = useSettingsStore();

  const view = ref<View>({ ...FULL_VIEW });
  /** Device pixels per waterfall row (1 = one row per pixel; < 1 packs several rows into a pixel). */
  const timeScale = ref(1);
  /** Rows between the newest row and the top edge of the waterfall. */
  const timeOffset = ref(0);
  const cursor = shallowRef<Cursor | null>(null);
  /** Waterfall height in device pixels and rows held (set by the waterfall). */
  const waterfallPixels = ref(1);
  const historyRows = ref(1);

  const logAvailable = computed(() => !live.info || canLogAxis(live.info.frequencyRange));
  const axis = computed<FrequencyAxis | null>(() => {
    const info = live.info;
    if (!info) return null;
    return makeFrequencyAxis(info.frequencyRange, info.bins, info.width, settings.s.logFrequency);
  });

  /** Rows spanned by the waterfall's height. */
  const rowsVisible = computed(() => waterfallPixels.value / timeScale.value);

  function minTimeScale(): number {
    return Math.min(1, waterfallPixels.value / Math.max(1, historyRows.value));
  }

  function zoomFrequency(factor: number, anchor = 0.5): void {
    const a = axis.value;
    if (!a) return;
    view.value = zoomView(view.value, factor, anchor, minViewSpan(a));
  }

  function panFrequency(ds: number): void {
    view.value = panView(view.value, ds);
  }

  function zoomTime(factor: number): void {
    timeScale.value = Math.min(MAX_TIME_SCALE, Math.max(minTimeScale(), timeScale.value * factor));
    clampOffset();
  }

  function panTime(rows: number): void {
    timeOffset.value += rows;
    clampOffset();
  }

  function clampOffset(): void {
    const max = Math.max(0, historyRows.value - rowsVisible.value);
    timeOffset.value = Math.min(max, Math.max(0, timeOffset.value));
  }

  function reset(): void {
    view.value = { ...FULL_VIEW };
    timeScale.value = 1;
    timeOffset.value = 0;
  }

  function setWaterfallSize(pixels: number, rows: number): void {
    waterfallPixels.value = Math.max(1, pixels);
    historyRows.value = Math.max(1, rows);
    timeScale.value = Math.max(timeScale.value, minTimeScale());
    clampOffset();
  }

  // A new frequency range or axis type invalidates the fractions of the old one.
  watch(
    () => [live.info?.frequencyRange[0], live.info?.frequencyRange[1], settings.s.logFrequency],
    (next, prev) => {
      if (prev && next.some((v, i) => v !== prev[i])) view.value = { ...FULL_VIEW };
    },
  );

  return {
    view,
    timeScale,
    timeOffset,
    cursor,
    waterfallPixels,
    historyRows,
    axis,
    logAvailable,
    rowsVisible,
    zoomFrequency,
    panFrequency,
    zoomTime,
    panTime,
    reset,
    setWaterfallSize,
  };
});
