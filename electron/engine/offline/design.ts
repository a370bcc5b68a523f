// The filter designer: firwin taps from numtaps + window, or a Kaiser design from ripple (dB) and a
// transition width (Hz) sized like scipy.signal.kaiserord, and the response on `points` frequencies from 0
// to fs/2 (freqz / group_delay). The response is evaluated in slices that yield to the event loop, so a long
// design never stalls the live view.

import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { firResponse, firwin, formatWindow, kaiserord, parseWindow, unwrapPhase } from '../dsp/index.js';
import { InvalidArgumentError, throwIfAborted } from '../errors.js';
import type { FilterDesignResult, FilterKind } from '../protocol/messages.js';
import { responseFrequency } from '../protocol/shape.js';

export interface DesignParams {
  kind: FilterKind;
  cutoff: number | [number, number];
  fs: number;
  numtaps?: number;
  window?: string;
  ripple?: number;
  width?: number;
  points?: number;
}

/** Taps × frequencies evaluated between two yields to the event loop. */
const SLICE_WORK = 1 << 21;

/** firwin's default window, as in SciPy. */
export const DEFAULT_DESIGN_WINDOW = 'hamming';

function needsOddTaps(kind: FilterKind): boolean {
  return kind === 'highpass' || kind === 'bandstop';
}

/** Taps (and the window or Kaiser β used) for a design; throws InvalidArgumentError naming the problem. */
export function designTapsFor(p: DesignParams): { taps: Float64Array; window: string; beta?: number } {
  const pair = Array.isArray(p.cutoff);
  if ((p.kind === 'lowpass' || p.kind === 'highpass') && pair) {
    throw new InvalidArgumentError(`a ${p.kind} filter takes one cutoff frequency, not two`);
  }
  if ((p.kind === 'bandpass' || p.kind === 'bandstop') && !pair) {
    throw new InvalidArgumentError(`a ${p.kind} filter takes two cutoff frequencies [low, high] (Hz)`);
  }
  const kaiser = p.ripple !== undefined || p.width !== undefined;
  if (kaiser && p.numtaps !== undefined) {
    throw new InvalidArgumentError(
      'give either numtaps (with a window) or ripple and width (a Kaiser design), not both',
    );
  }
  if (!kaiser && p.numtaps === undefined) {
    throw new InvalidArgumentError(
      'give numtaps (with a window), or ripple (dB) and width (Hz) for a Kaiser design',
    );
  }
  const passZero = p.kind;
  const cutoff = p.cutoff;
  if (kaiser) {
    if (p.ripple === undefined || p.width === undefined) {
      throw new InvalidArgumentError(
        'a Kaiser design needs both ripple (stop-band attenuation, dB) and width (transition, Hz)',
      );
    }
    if (p.window !== undefined) {
      throw new InvalidArgumentError(
        'a Kaiser design (ripple + width) computes its own window: leave window out',
      );
    }
    const k = kaiserord(p.ripple, p.width, p.fs);
    // A filter with gain at Nyquist needs an odd length; kaiserord gives the minimum, so round up.
    const numtaps = needsOddTaps(p.kind) && k.numtaps % 2 === 0 ? k.numtaps + 1 : k.numtaps;
    if (numtaps > 65535) {
      throw new InvalidArgumentError(
        `this design needs ${numtaps} taps, more than 65535: widen the transition or lower the attenuation`,
      );
    }
    const spec = { name: 'kaiser', beta: k.beta } as const;
    const taps = firwin(numtaps, cutoff, { window: spec, passZero, fs: p.fs });
    return { taps, window: formatWindow(spec), beta: k.beta };
  }
  const spec = parseWindow(p.window ?? DEFAULT_DESIGN_WINDOW);
  const taps = firwin(p.numtaps!, cutoff, { window: spec, passZero, fs: p.fs });
  return { taps, window: formatWindow(spec) };
}

/** JSON has no NaN or infinities: keep the plots' numbers finite. */
function finite(values: Float64Array, fallback: number): number[] {
  const out = new Array<number>(values.length);
  for (let i = 0; i < values.length; i++) out[i] = Number.isFinite(values[i]) ? values[i] : fallback;
  return out;
}

export async function designFilter(p: DesignParams, signal?: AbortSignal): Promise<FilterDesignResult> {
  const { taps, window, beta } = designTapsFor(p);
  const points = p.points ?? 1024;
  if (!Number.isInteger(points) || points < 2) {
    throw new InvalidArgumentError(`points must be a whole number ≥ 2, got ${points}`);
  }
  const frequencies = new Float64Array(points);
  for (let i = 0; i < points; i++) frequencies[i] = responseFrequency(i, points, p.fs);
  const magnitudeDb = new Float64Array(points);
  const phase = new Float64Array(points);
  const groupDelay = new Float64Array(points);
  const slice = Math.max(1, Math.floor(SLICE_WORK / taps.length));
  for (let i = 0; i < points; i += slice) {
    throwIfAborted(signal);
    const j = Math.min(points, i + slice);
    const r = firResponse(taps, frequencies.subarray(i, j), p.fs);
    magnitudeDb.set(r.magnitudeDb, i);
    phase.set(r.phase, i);
    groupDelay.set(r.groupDelay, i);
    if (j < points) await yieldToLoop();
  }
  const result: FilterDesignResult = {
    taps: Array.from(taps),
    numtaps: taps.length,
    window,
    response: {
      frequencies: Array.from(frequencies),
      magnitudeDb: finite(magnitudeDb, -300),
      phase: finite(unwrapPhase(phase), 0),
      groupDelay: finite(groupDelay, 0),
    },
  };
  if (beta !== undefined) result.beta = beta;
  return result;
}
