// Band measurements of the live samples (the engine's measureLive request): the newest second of the
// stream, in the band between the first two markers (else the zoomed-in view, else the whole span), with
// the live analysis's window. On request, or once a second while `continuous` is on (a tick is skipped
// while a measurement is still on its way).

import { defineStore } from 'pinia';
import { computed, markRaw, ref, shallowRef, watch } from 'vue';
import type { MeasureResult, MethodParams } from '../../../electron/engine/protocol/messages.js';
import { LIVE_MEASURE_SECONDS_DEFAULT } from '../../../electron/engine/protocol/shape.js';
import { liveMeasureBand } from '../lib/live-measure.js';
import { useConnectionStore } from './connection.js';
import { useLiveStore } from './live.js';
import { useMarkersStore } from './markers.js';
import { useSettingsStore } from './settings.js';
import { useViewportStore } from './viewport.js';

/** Period of continuous measurements (ms). */
export const LIVE_MEASURE_PERIOD_MS = 1000;

export const useLiveMeasureStore = defineStore('liveMeasure', () => {
  const connection = useConnectionStore();
  const live = useLiveStore();
  const markers = useMarkersStore();
  const viewport = useViewportStore();
  const settings = useSettingsStore();

  const continuous = ref(false);
  const result = shallowRef<MeasureResult | null>(null);
  const error = ref('');
  const running = ref(false);
  /** The session the result belongs to. */
  const resultSession = ref<number | null>(null);

  const band = computed(() => liveMeasureBand(markers.markers, viewport.axis, viewport.view));
  const params = computed<MethodParams['measureLive']>(() => {
    const { fLow, fHigh } = band.value;
    return {
      seconds: LIVE_MEASURE_SECONDS_DEFAULT,
      window: settings.s.window,
      ...(fLow !== undefined && fHigh !== undefined ? { fLow, fHigh } : {}),
    };
  });

  /** Measures now, unless a measurement is on its way already. */
  async function run(): Promise<void> {
    if (running.value) return;
    const info = live.info;
    if (!live.running || !info) {
      error.value = 'start the live source first';
      return;
    }
    running.value = true;
    try {
      const r = await connection.request('measureLive', params.value);
      result.value = markRaw(r);
      resultSession.value = info.session;
      error.value = '';
    } catch (e) {
      error.value = e instanceof Error ? e.message : String(e);
    } finally {
      running.value = false;
    }
  }

  let timer: ReturnType<typeof setInterval> | null = null;
  watch(
    () => continuous.value && live.running,
    (on) => {
      if (timer) clearInterval(timer);
      timer = null;
      if (!on) return;
      void run();
      timer = setInterval(() => void run(), LIVE_MEASURE_PERIOD_MS);
    },
  );
  // A result of another session says nothing about this one.
  watch(
    () => live.info?.session,
    (id) => {
      if (id !== resultSession.value) {
        result.value = null;
        error.value = '';
      }
    },
  );

  return { continuous, result, resultSession, error, running, band, params, run };
});
