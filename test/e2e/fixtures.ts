// Recordings the browser tests make for themselves: 16-bit WAV files with known content, and a large raw
// I/Q file that is mostly a hole (sparse: instant to make, no disk used) for the cancel tests.
import { closeSync, ftruncateSync, openSync, writeFileSync, writeSync } from 'node:fs';

/** Writes mono or interleaved 16-bit PCM (values in [−1, 1], rounded and clipped). */
export function writeWav(path: string, sampleRate: number, samples: Float64Array, channels = 1): void {
  const frames = Math.floor(samples.length / channels);
  const buf = Buffer.alloc(44 + 2 * frames * channels);
  buf.write('RIFF', 0, 'ascii');
  buf.writeUInt32LE(36 + 2 * frames * channels, 4);
  buf.write('WAVE', 8, 'ascii');
  buf.write('fmt ', 12, 'ascii');
  buf.writeUInt32LE(16, 16);
  buf.writeUInt16LE(1, 20);
  buf.writeUInt16LE(channels, 22);
  buf.writeUInt32LE(sampleRate, 24);
  buf.writeUInt32LE(sampleRate * 2 * channels, 28);
  buf.writeUInt16LE(2 * channels, 32);
  buf.writeUInt16LE(16, 34);
  buf.write('data', 36, 'ascii');
  buf.writeUInt32LE(2 * frames * channels, 40);
  for (let i = 0; i < frames * channels; i++) {
    buf.writeInt16LE(Math.max(-32768, Math.min(32767, Math.round(samples[i] * 32767))), 44 + 2 * i);
  }
  writeFileSync(path, buf);
}

/** Seeded uniform noise in [−0.5, 0.5) (Park–Miller), never all zeros. */
export function noise(n: number, seed: number, amplitude = 1): Float64Array {
  const out = new Float64Array(n);
  let s = seed % 2147483647 || 1;
  for (let i = 0; i < n; i++) {
    s = (s * 16807) % 2147483647;
    out[i] = amplitude * (s / 2147483647 - 0.5);
  }
  return out;
}

/** Sum of sines: [frequency Hz, amplitude] pairs over `n` samples at `fs`, plus `floor` of noise. */
export function tones(fs: number, n: number, parts: Array<[number, number]>, floor = 1e-3): Float64Array {
  const x = noise(n, 11, floor);
  for (const [f, a] of parts) for (let i = 0; i < n; i++) x[i] += a * Math.sin((2 * Math.PI * f * i) / fs);
  return x;
}

/** A Hann-tapered linear chirp from f0 to f1 Hz, `n` samples at `fs`. */
export function chirp(fs: number, n: number, f0: number, f1: number, amplitude: number): Float64Array {
  const out = new Float64Array(n);
  const k = (f1 - f0) / (n / fs);
  for (let i = 0; i < n; i++) {
    const t = i / fs;
    out[i] =
      amplitude * Math.sin(2 * Math.PI * (f0 * t + 0.5 * k * t * t)) * Math.sin((Math.PI * i) / n) ** 2;
  }
  return out;
}

/**
 * A raw cf32 file of `frames` complex samples: a tone in the first `written` frames, a hole (zeros the
 * file system does not store) after them. Big enough that filtering it takes seconds, made in no time.
 */
export function writeSparseCf32(
  path: string,
  frames: number,
  written: number,
  fs: number,
  toneHz: number,
): void {
  const head = new Float32Array(2 * written);
  const nz = noise(2 * written, 5, 0.01);
  for (let i = 0; i < written; i++) {
    head[2 * i] = 0.5 * Math.cos((2 * Math.PI * toneHz * i) / fs) + nz[2 * i];
    head[2 * i + 1] = 0.5 * Math.sin((2 * Math.PI * toneHz * i) / fs) + nz[2 * i + 1];
  }
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, new Uint8Array(head.buffer));
    ftruncateSync(fd, frames * 8);
  } finally {
    closeSync(fd);
  }
}
