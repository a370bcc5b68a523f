// Test signals computed in float64 (independent of the engine's generator).

/** Seeded uniform noise in [−1, 1) (mulberry32). */
export function noise(n: number, seed: number, amplitude = 1): Float64Array {
  const out = new Float64Array(n);
  let a = seed >>> 0;
  for (let i = 0; i < n; i++) {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    out[i] = amplitude * ((((t ^ (t >>> 14)) >>> 0) / 4294967296) * 2 - 1);
  }
  return out;
}

export interface Tone {
  frequency: number;
  amplitude: number;
  phase?: number;
}

/** Sum of real sines. */
export function tones(n: number, fs: number, list: Tone[]): Float64Array {
  const out = new Float64Array(n);
  for (const { frequency, amplitude, phase = 0 } of list) {
    for (let i = 0; i < n; i++) out[i] += amplitude * Math.sin((2 * Math.PI * frequency * i) / fs + phase);
  }
  return out;
}

/** Sum of complex exponentials, interleaved I/Q. */
export function complexTones(n: number, fs: number, list: Tone[]): Float64Array {
  const out = new Float64Array(2 * n);
  for (const { frequency, amplitude, phase = 0 } of list) {
    for (let i = 0; i < n; i++) {
      const p = (2 * Math.PI * frequency * i) / fs + phase;
      out[2 * i] += amplitude * Math.cos(p);
      out[2 * i + 1] += amplitude * Math.sin(p);
    }
  }
  return out;
}

export function add(a: Float64Array, b: Float64Array): Float64Array {
  return a.map((v, i) => v + b[i]);
}

/** Interleaves equal-length channels into frames. */
export function interleave(...channels: Float64Array[]): Float64Array {
  const n = channels[0].length;
  const out = new Float64Array(n * channels.length);
  for (let i = 0; i < n; i++)
    for (let c = 0; c < channels.length; c++) out[i * channels.length + c] = channels[c][i];
  return out;
}
