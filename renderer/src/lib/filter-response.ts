// The frequency response of taps the engine did not design (imported from a file): H(f) = Σ h[n]·e^(−j2πfn/fs)
// at `points` frequencies from 0 to fs/2, with the group delay from the same sums
// (τ = Re(Σ n·h[n]·e^(−jωn) / Σ h[n]·e^(−jωn))). Float64 throughout; O(taps × points).

import type { FilterResponse } from '../../../electron/engine/protocol/messages.js';
import { responseFrequency } from '../../../electron/engine/protocol/shape.js';

export function tapsResponse(taps: readonly number[], fs: number, points = 1024): FilterResponse {
  const frequencies: number[] = [];
  const magnitudeDb: number[] = [];
  const phase: number[] = [];
  const groupDelay: number[] = [];
  const n = taps.length;
  for (let k = 0; k < points; k++) {
    const f = responseFrequency(k, points, fs);
    const w = (2 * Math.PI * f) / fs;
    // Rotate e^(−jωn) by multiplication (re-seeded every 1024 taps so rounding stays small).
    let re = 0;
    let im = 0;
    let nre = 0;
    let nim = 0;
    const cw = Math.cos(w);
    const sw = -Math.sin(w);
    let c = 1;
    let s = 0;
    for (let i = 0; i < n; i++) {
      if ((i & 1023) === 0) {
        c = Math.cos(w * i);
        s = -Math.sin(w * i);
      }
      const h = taps[i];
      re += h * c;
      im += h * s;
      nre += i * h * c;
      nim += i * h * s;
      const c2 = c * cw - s * sw;
      s = c * sw + s * cw;
      c = c2;
    }
    const mag2 = re * re + im * im;
    frequencies.push(f);
    magnitudeDb.push(10 * Math.log10(Math.max(mag2, 1e-30)));
    phase.push(Math.atan2(im, re));
    groupDelay.push(mag2 > 1e-24 ? (nre * re + nim * im) / mag2 : NaN);
  }
  return { frequencies, magnitudeDb, phase, groupDelay };
}

/** Phase with its 2π jumps removed (NumPy's unwrap), for plotting. */
export function unwrapPhase(phase: readonly number[]): number[] {
  const out = new Array<number>(phase.length);
  let offset = 0;
  for (let i = 0; i < phase.length; i++) {
    if (i > 0) {
      const d = phase[i] + offset - out[i - 1];
      if (d > Math.PI) offset -= 2 * Math.PI * Math.round(d / (2 * Math.PI));
      else if (d < -Math.PI) offset += 2 * Math.PI * Math.round(-d / (2 * Math.PI));
    }
    out[i] = phase[i] + offset;
  }
  return out;
}
