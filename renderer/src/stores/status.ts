// Figures for the status bar: the engine's status events for the current session, and the renderer's own
// frame rate and latency (sampled from the hooks once a second, so Vue does not re-render per frame).

import { defineStore } from 'pinia';
import { ref, shallowRef, watch } from 'vue';
import type { StatusEvent } from '../../../electron/engine/protocol/messages.js';
import { hooks } from '../lib/hooks.js';
import { useConnectionStore } from './connection.js';
import { useLiveStore } from './live.js';

export const useStatusStore = defineStore('status', () => {
  const connection = useConnectionStore();
  const live = useLiveStore();

  const engine = shallowRef<StatusEvent | null>(null);
  const fps = ref(0);
  const latencyP50 = ref(NaN);
  const latencyP99 = ref(NaN);
  const rowsDrawn = ref(0);

  function receiveStatus(e: StatusEvent): void {
    if (live.info && e.session !== live.info.session) return;
    engine.value = e;
    hooks.status = e;
  }

  /** Called by the frame loop when its one-second rate window closes. */
  function sampleRenderer(frameRate: number): void {
    fps.value = Math.round(frameRate * 10) / 10;
    hooks.fps = frameRate;
    rowsDrawn.value = hooks.rowsDrawn;
    if (hooks.latency.size > 0) {
      latencyP50.value = hooks.latency.quantile(0.5);
      latencyP99.value = hooks.latency.quantile(0.99);
    }
  }

  let stop: (() => void) | null = null;
  function bind(): void {
    stop?.();
    stop = null;
    try {
      stop = connection.connection().on('status', receiveStatus);
    } catch {
      // Not connected yet: bound again after hello.
    }
  }
  watch(() => connection.epoch, bind, { immediate: true });
  watch(
    () => live.info?.session,
    () => {
      engine.value = null;
      hooks.latency.reset();
      latencyP50.value = latencyP99.value = NaN;
    },
  );

  return { engine, fps, latencyP50, latencyP99, rowsDrawn, receiveStatus, sampleRenderer };
});
