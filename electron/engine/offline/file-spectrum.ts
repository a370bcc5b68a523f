// The File view's spectrum: a Welch average (dsp/welch.ts, half-overlapping segments) of a frame range of a
// file, in dBFS as the live spectrum reads (a full-scale sine at 0 dBFS), cut to a frequency band; with the
// max and min hold over the same segments when asked.

import type { Backend } from '../backends/backend.js';
import { InvalidArgumentError } from '../errors.js';
import { powerToDb } from '../dsp/levels.js';
import { welch } from '../dsp/welch.js';
import { windowProperties } from '../dsp/windows.js';
import { resolveRange } from '../io/range.js';
import { checkChannel } from '../pipeline/channels.js';
import type { FileSpectrumResult, FileSpectrumTrace } from '../protocol/messages.js';
import { FILE_SPECTRUM_FFT, WELCH_FFT_SIZE_MIN } from '../protocol/shape.js';
import type { SampleSource } from '../sources/source.js';

export interface FileSpectrumOptions {
  start: number;
  end?: number;
  fLow?: number;
  fHigh?: number;
  fft?: number;
  window: string;
  channel: number;
  /** Default ['mean']. */
  traces?: FileSpectrumTrace[];
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
}

/** Segment length for `frames` frames: the largest power of two ≤ frames, at most FILE_SPECTRUM_FFT. */
export function fileSpectrumFft(frames: number): number {
  let n = FILE_SPECTRUM_FFT;
  while (n > frames && n > WELCH_FFT_SIZE_MIN) n /= 2;
  return n;
}

export async function fileSpectrum(
  backend: Backend,
  source: SampleSource,
  o: FileSpectrumOptions,
): Promise<{ result: FileSpectrumResult; levels: Float32Array }> {
  const info = source.info;
  const name = info.path ?? 'the file';
  checkChannel(o.channel, info, name);
  const { start, end } = resolveRange(
    { start: o.start, ...(o.end !== undefined ? { end: o.end } : {}) },
    info.samples,
  );
  const frames = end - start;
  const fft = o.fft ?? fileSpectrumFft(frames);
  const traces = o.traces ?? ['mean'];
  if (frames < fft) {
    throw new InvalidArgumentError(
      `the range holds ${frames} frames, fewer than one segment of ${fft}: choose a longer range or a smaller FFT`,
    );
  }
  const w = await welch(backend, source.blocks({ start, end, ...(o.signal ? { signal: o.signal } : {}) }), {
    nperseg: fft,
    window: o.window,
    channel: o.channel,
    holds: traces.some((t) => t !== 'mean'),
    ...(o.signal ? { signal: o.signal } : {}),
    onProgress: (done) => o.onProgress?.(done, frames),
  });
  const centre = w.complex ? (info.centerFrequency ?? 0) : 0;
  const lo = o.fLow ?? -Infinity;
  const hi = o.fHigh ?? Infinity;
  let first = 0;
  while (first < w.frequencies.length && w.frequencies[first] + centre < lo) first++;
  let last = w.frequencies.length;
  while (last > first && w.frequencies[last - 1] + centre > hi) last--;
  const bins = last - first;
  const levels = new Float32Array(bins * traces.length);
  traces.forEach((t, j) => {
    const power = t === 'max' ? w.maxPower! : t === 'min' ? w.minPower! : w.power;
    for (let k = first; k < last; k++) levels[j * bins + k - first] = powerToDb(power[k]);
  });
  return {
    result: {
      traces: [...traces],
      f0: (w.frequencies[first] ?? 0) + centre,
      binWidth: w.binWidth,
      bins,
      start,
      end,
      segments: w.segments,
      fft,
      window: o.window,
      rbw: windowProperties(w.window).enbw * w.binWidth,
      sampleRate: w.sampleRate,
    },
    levels,
  };
}
