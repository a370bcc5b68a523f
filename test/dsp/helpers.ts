// Shared helpers of the DSP tests: fixtures, a seeded generator, and block streams.
import { readFileSync } from 'node:fs';
import type { SampleBlock, SamplesInput, StreamFormat } from '../../electron/engine/types.js';

export function loadFixture<T>(name: string): T {
  return JSON.parse(readFileSync(new URL(`../fixtures/dsp/${name}`, import.meta.url), 'utf8')) as T;
}

/** Mulberry32: small, seedable, good enough for test signals. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Standard normal samples (Box–Muller). */
export function gaussian(rand: () => number): () => number {
  return () => {
    const u = 1 - rand();
    const v = rand();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  };
}

export interface Tone {
  /** Hz (may be negative for complex signals). */
  frequency: number;
  amplitude: number;
  phase?: number;
}

/** Interleaved frames of `channels` channels; each channel gets the tones (scaled by channel gain) + noise. */
export function makeSignal(opts: {
  frames: number;
  sampleRate: number;
  complex: boolean;
  channels?: number;
  tones: Tone[];
  noise?: number;
  seed?: number;
  channelGain?: number[];
}): Float32Array {
  const channels = opts.channels ?? 1;
  const vpf = channels * (opts.complex ? 2 : 1);
  const out = new Float32Array(opts.frames * vpf);
  const noise = gaussian(rng(opts.seed ?? 1));
  const sigma = opts.noise ?? 0;
  for (let c = 0; c < channels; c++) {
    const g = opts.channelGain?.[c] ?? 1;
    for (let i = 0; i < opts.frames; i++) {
      let re = 0;
      let im = 0;
      for (const t of opts.tones) {
        // Reduce the phase in cycles first so long signals keep full precision.
        let cyc = (t.frequency / opts.sampleRate) * i;
        cyc -= Math.floor(cyc);
        const ph = 2 * Math.PI * cyc + (t.phase ?? 0);
        if (opts.complex) {
          re += t.amplitude * Math.cos(ph);
          im += t.amplitude * Math.sin(ph);
        } else {
          re += t.amplitude * Math.sin(ph);
        }
      }
      if (opts.complex) {
        out[i * vpf + 2 * c] = g * re + sigma * noise();
        out[i * vpf + 2 * c + 1] = g * im + sigma * noise();
      } else {
        out[i * vpf + c] = g * re + sigma * noise();
      }
    }
  }
  return out;
}

/** Splits interleaved data into blocks whose sizes cycle through `sizes` (frames). */
export async function* blocksOf(
  data: Float32Array,
  format: StreamFormat,
  sizes: number[] = [65536],
  convert?: (chunk: Float32Array) => SamplesInput,
): AsyncGenerator<SampleBlock> {
  const vpf = format.channels * (format.complex ? 2 : 1);
  const total = data.length / vpf;
  let start = 0;
  let i = 0;
  while (start < total) {
    const frames = Math.min(sizes[i % sizes.length], total - start);
    const chunk = data.subarray(start * vpf, (start + frames) * vpf);
    yield { format, start, frames, data: convert ? convert(chunk) : chunk };
    start += frames;
    i++;
  }
}

/**
 * Float64 Welch reference computed directly from the definition: per segment Σ x·w·e^{−j2πkn/N} with
 * an exact twiddle table, power normalized like welch() (see levels.ts). Returns power in welch()'s
 * bin order (fftshift for complex).
 */
export function referenceWelch(
  data: Float32Array,
  opts: {
    nperseg: number;
    noverlap: number;
    window: Float64Array;
    complex: boolean;
    channels: number;
    channel: number | 'mean';
  },
): { power: Float64Array; segments: number } {
  const { nperseg: n, noverlap, window, complex, channels } = opts;
  const vpf = channels * (complex ? 2 : 1);
  const frames = data.length / vpf;
  const step = n - noverlap;
  const chans = opts.channel === 'mean' ? Array.from({ length: channels }, (_, c) => c) : [opts.channel];
  const cos = new Float64Array(n);
  const sin = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    cos[k] = Math.cos((2 * Math.PI * k) / n);
    sin[k] = Math.sin((2 * Math.PI * k) / n);
  }
  const bins = complex ? n : Math.floor(n / 2) + 1;
  const acc = new Float64Array(bins);
  const xr = new Float64Array(n);
  const xi = new Float64Array(n);
  let segments = 0;
  for (let s = 0; s + n <= frames; s += step) {
    segments++;
    for (const c of chans) {
      for (let t = 0; t < n; t++) {
        const base = (s + t) * vpf + (complex ? 2 * c : c);
        xr[t] = data[base] * window[t];
        xi[t] = complex ? data[base + 1] * window[t] : 0;
      }
      for (let k = 0; k < bins; k++) {
        let re = 0;
        let im = 0;
        let idx = 0;
        for (let t = 0; t < n; t++) {
          re += xr[t] * cos[idx] + xi[t] * sin[idx];
          im += xi[t] * cos[idx] - xr[t] * sin[idx];
          idx += k;
          if (idx >= n) idx -= n;
        }
        acc[k] += re * re + im * im;
      }
    }
  }
  let sum = 0;
  for (let t = 0; t < n; t++) sum += window[t];
  const count = segments * chans.length;
  const power = new Float64Array(bins);
  if (complex) {
    const shift = Math.floor(n / 2);
    for (let k = 0; k < n; k++) power[k] = acc[(k - shift + n) % n] / (sum * sum * count);
  } else {
    for (let k = 0; k < bins; k++) {
      const edge = k === 0 || 2 * k === n;
      power[k] = (acc[k] * (edge ? 2 : 4)) / (sum * sum * count);
    }
  }
  return { power, segments };
}
