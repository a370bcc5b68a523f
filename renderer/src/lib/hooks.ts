// Measurement hooks on window.__phasor for tests and benchmarks: counters, the renderer's frame rate, and
// the sample-to-pixel latency of recent rows messages (ms from the capture of the last sample to the draw
// call that put the rows on screen), kept in a preallocated ring.

import type { LiveInfo, PeaksEvent, StatusEvent } from '../../../electron/engine/protocol/messages.js';
import { ValueRing } from './meters.js';

export interface RequestLogEntry {
  method: string;
  params: unknown;
  ok: boolean | null;
  result?: unknown;
  error?: string;
  at: number;
}

export interface LatencyStats {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

export interface PhasorHooks {
  /** Rows received from the engine (all sessions). */
  rowsReceived: number;
  /** Rows uploaded to the waterfall and drawn. */
  rowsDrawn: number;
  /** Rows messages consumed without drawing (paused, stale session, other width). */
  rowsDiscarded: number;
  /** What draws the waterfall: WebGL2, or the 2D canvas where there is none. */
  waterfallRenderer: 'webgl2' | '2d' | null;
  /** Frames in which the waterfall or the trace was redrawn. */
  framesDrawn: number;
  /** Redrawn frames per second over the last second. */
  fps: number;
  /** Sample-to-pixel latency (ms) per drawn rows message, the last 4096. */
  latency: ValueRing;
  /** Main-thread time (ms) spent in each drawn frame's callbacks (upload + draw calls), the last 4096. */
  frameTime: ValueRing;
  latencyStats(): LatencyStats;
  /** The live session's info (null before start). */
  info: LiveInfo | null;
  /** The engine's latest status event for the live session (null: none yet). */
  status: StatusEvent | null;
  /** The engine's latest peaks the live view shows (null: none). */
  peaks: PeaksEvent | null;
  /** Peaks events refused by the protocol's schema. */
  badPeaks: number;
  /** The peak markers' labels as last drawn (strongest first). */
  markerLabels: string[];
  /** Last 100 requests with their outcome. */
  requests: RequestLogEntry[];
  /** File spectrogram images coloured, and file spectrogram canvases drawn (offline views). */
  fileImagesPainted: number;
  fileFramesDrawn: number;
  /** Progress events received, per method of the request they belong to. */
  progress: Record<string, number>;
  /** Resets the counters and the latency ring (between benchmark phases). */
  reset(): void;
}

export const LATENCY_CAPACITY = 4096;

function makeHooks(): PhasorHooks {
  const latency = new ValueRing(LATENCY_CAPACITY);
  const frameTime = new ValueRing(LATENCY_CAPACITY);
  const hooks: PhasorHooks = {
    rowsReceived: 0,
    rowsDrawn: 0,
    rowsDiscarded: 0,
    waterfallRenderer: null,
    framesDrawn: 0,
    fps: 0,
    latency,
    frameTime,
    latencyStats() {
      const v = latency.values();
      return {
        count: v.length,
        p50: latency.quantile(0.5),
        p99: latency.quantile(0.99),
        max: v.length ? Math.max(...v) : NaN,
      };
    },
    info: null,
    status: null,
    peaks: null,
    badPeaks: 0,
    markerLabels: [],
    requests: [],
    fileImagesPainted: 0,
    fileFramesDrawn: 0,
    progress: {},
    reset() {
      hooks.rowsReceived = hooks.rowsDrawn = hooks.rowsDiscarded = hooks.framesDrawn = 0;
      latency.reset();
      frameTime.reset();
    },
  };
  return hooks;
}

/** The app's hooks (one per page); main.ts publishes them as window.__phasor. */
export const hooks: PhasorHooks = makeHooks();

export function logRequest(entry: RequestLogEntry): void {
  hooks.requests.push(entry);
  if (hooks.requests.length > 100) hooks.requests.splice(0, hooks.requests.length - 100);
}
