// Extracting a selection of a file into a new one: shifted in frequency, low-pass filtered and decimated,
// the steps a NumPy user writes for a channel of a wide recording:
//
//   x = samples[start:end]                                     # the selection, n = 0 at its first sample
//   x = x * np.exp(-2j * np.pi * shift * np.arange(len(x)) / fs)        # when shift != 0
//   x = scipy.signal.convolve(x, firwin(numtaps, lowpass, fs=fs), mode='same')   # when lowpass is given
//   y = x[::decimate]
//
// The phase reference of the mixing is the selection's first sample (n = 0 there), so the same selection
// always gives the same output whatever lies before it. The filter sees the selection only, with zeros
// outside it (the convolution's 'same' mode over the selection, delay-compensated as `phasor filter` is),
// so an extraction equals the script above on the selected samples. Mixing and keeping every K-th sample
// run on the host (one pass over each block); the filter is the backend's FIR. The output is float32:
// complex (SigMF cf32_le) for I/Q input or a shifted real input, real (rf32_le, or float WAV) for a real
// input left unshifted. It is written to a temporary file and renamed into place only on success.

import type { Backend, FirFilter, HostBlocks } from '../backends/backend.js';
import { firwin } from '../dsp/index.js';
import { InvalidArgumentError, throwIfAborted, type WarningHandler } from '../errors.js';
import { createWriter, outputContainer } from '../io/index.js';
import { recordingFiles, refuseOverwritingInputs } from '../io/identity.js';
import { writerPaths } from '../io/writer.js';
import { EXTRACT_NUMTAPS, type ExtractResult } from '../protocol/extract.js';

export type { ExtractResult };
import type { SampleSource, SigmfMetadata, SourceInfo } from '../sources/source.js';
import { toFloat32, valuesPerFrame } from '../types.js';
import { WriteBehind, fileBlockFrames, fileReads, hostBlocks, inTurn } from './stages.js';

export interface ExtractOptions {
  /** First frame of the selection (default 0). */
  start?: number;
  /** One past its last frame (default: the end of the file; clamped to it). */
  end?: number;
  /** Hz moved to 0 Hz: the samples are multiplied by exp(−2πi·shift·n/fs). Default 0. */
  shift?: number;
  /** Low-pass cutoff (Hz) of firwin(numtaps, lowpass, fs=fs); none when absent. */
  lowpass?: number;
  /** Taps of the low-pass (default EXTRACT_NUMTAPS). */
  numtaps?: number;
  /** Keep every K-th sample (default 1). */
  decimate?: number;
  /** Flush the output to the disk before renaming it (default true). */
  durable?: boolean;
  blockFrames?: number;
  signal?: AbortSignal;
  /** Input frames of the selection done, of its total. */
  onProgress?: (framesDone: number, framesTotal: number) => void;
  /** Decimation without a low-pass (which aliases) is said here. */
  onWarning?: WarningHandler;
}

/** The checked parameters of an extraction from `info`. */
export interface ExtractPlan {
  start: number;
  end: number;
  shift: number;
  decimate: number;
  /** Low-pass taps, or none. */
  taps?: Float64Array;
  lowpass?: number;
  complex: boolean;
  sampleRate: number;
  centerFrequency?: number;
  datetime?: string;
}

/** Frames as seconds for a message (microseconds at most). */
function seconds(frames: number, fs: number): string {
  return `${+(frames / fs).toFixed(6)} s`;
}

/** Checks the options against the file; every refusal is one line naming the constraint. */
export function planExtract(info: SourceInfo, o: ExtractOptions): ExtractPlan {
  const fs = info.sampleRate;
  const frames = info.samples ?? 0;
  const start = o.start ?? 0;
  if (!Number.isSafeInteger(start) || start < 0) {
    throw new InvalidArgumentError(`the start must be a whole number of frames ≥ 0, got ${start}`);
  }
  if (start >= frames) {
    throw new InvalidArgumentError(
      `the start (${seconds(start, fs)}) is past the end of the file (${seconds(frames, fs)} long)`,
    );
  }
  const end = Math.min(o.end ?? frames, frames);
  if (!Number.isSafeInteger(end) || end <= start) {
    throw new InvalidArgumentError(
      `the selection is empty: it must end after its start (${seconds(start, fs)})`,
    );
  }
  const decimate = o.decimate ?? 1;
  if (!Number.isSafeInteger(decimate) || decimate < 1) {
    throw new InvalidArgumentError(`the decimation must be a whole number ≥ 1, got ${decimate}`);
  }
  const shift = o.shift ?? 0;
  if (!Number.isFinite(shift))
    throw new InvalidArgumentError(`the shift must be a number of Hz, got ${shift}`);
  let taps: Float64Array | undefined;
  if (o.lowpass !== undefined) {
    // firwin's own checks: numtaps ≥ 1, 0 < cutoff < fs/2 (named in its message)
    taps = firwin(o.numtaps ?? EXTRACT_NUMTAPS, o.lowpass, { fs });
  }
  const complex = info.complex || shift !== 0;
  const centre = info.complex ? centreAt(info, start) : undefined;
  const centerFrequency = info.complex
    ? centre === undefined
      ? undefined
      : centre + shift
    : shift !== 0
      ? shift
      : undefined;
  const datetime = datetimeAt(info, start);
  return {
    start,
    end,
    shift,
    decimate,
    ...(taps ? { taps, lowpass: o.lowpass } : {}),
    complex,
    sampleRate: fs / decimate,
    ...(centerFrequency !== undefined ? { centerFrequency } : {}),
    ...(datetime !== undefined ? { datetime } : {}),
  };
}

/** The SigMF capture in force at `frame` (the last one starting at or before it). */
function captureAt(info: SourceInfo, frame: number): Record<string, unknown> | undefined {
  let found: Record<string, unknown> | undefined;
  for (const c of info.sigmf?.captures ?? []) {
    const s = c['core:sample_start'];
    if ((typeof s === 'number' ? s : 0) <= frame) found = c;
  }
  return found;
}

/** The centre frequency at `frame`: a later capture's core:frequency (a retune), else the file's. */
function centreAt(info: SourceInfo, frame: number): number | undefined {
  const c = captureAt(info, frame);
  const f = c?.['core:frequency'];
  const first = info.sigmf?.captures?.[0];
  return c !== undefined && c !== first && typeof f === 'number' ? f : info.centerFrequency;
}

/** The time of `frame`: the datetime of the last capture at or before it that has one, plus the samples
 * since that capture's start. */
function datetimeAt(info: SourceInfo, frame: number): string | undefined {
  let base: { at: number; datetime: string } | undefined;
  for (const c of info.sigmf?.captures ?? []) {
    const s = typeof c['core:sample_start'] === 'number' ? c['core:sample_start'] : 0;
    const d = c['core:datetime'];
    if (s <= frame && typeof d === 'string') base = { at: s, datetime: d };
  }
  if (!base) return undefined;
  return addSeconds(base.datetime, (frame - base.at) / info.sampleRate);
}

/**
 * An ISO 8601 UTC time (`2026-01-02T03:04:05.123456789Z`, as SigMF writes core:datetime) plus `seconds`,
 * to the nanosecond (Date keeps milliseconds only); undefined when the text is not such a time.
 */
export function addSeconds(iso: string, seconds: number): string | undefined {
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?Z$/.exec(iso);
  if (!m) return undefined;
  const whole = Date.parse(`${m[1]}Z`);
  if (!Number.isFinite(whole)) return undefined;
  const fraction = BigInt(((m[2] ?? '') + '000000000').slice(0, 9));
  const ns = BigInt(whole) * 1_000_000n + fraction + BigInt(Math.round(seconds * 1e9));
  let secs = ns / 1_000_000_000n;
  let rest = ns % 1_000_000_000n;
  if (rest < 0n) {
    rest += 1_000_000_000n;
    secs -= 1n;
  }
  const text = new Date(Number(secs) * 1000).toISOString().slice(0, 19);
  const digits = rest.toString().padStart(9, '0').replace(/0+$/, '');
  return `${text}${digits ? `.${digits}` : ''}Z`;
}

/** Frames mixed with one phasor recurrence before its start is computed afresh from the frame index. */
const MIX_RUN = 1024;

/**
 * Writes frames [0, frames) of `input` (interleaved, `channels` per frame, complex or real) times
 * exp(−2πi·shift·(n0 + n)/fs) into `out` as interleaved complex. The phasor is computed exactly at every
 * MIX_RUN frames and advanced by a float64 rotation between.
 */
function mix(
  input: Float32Array,
  out: Float32Array,
  frames: number,
  channels: number,
  complex: boolean,
  n0: number,
  cyclesPerFrame: number,
): void {
  const stepC = Math.cos(-2 * Math.PI * cyclesPerFrame);
  const stepS = Math.sin(-2 * Math.PI * cyclesPerFrame);
  const perFrame = complex ? 2 * channels : channels;
  for (let f0 = 0; f0 < frames; f0 += MIX_RUN) {
    const cycles = (cyclesPerFrame * (n0 + f0)) % 1;
    let c = Math.cos(-2 * Math.PI * cycles);
    let s = Math.sin(-2 * Math.PI * cycles);
    const f1 = Math.min(frames, f0 + MIX_RUN);
    for (let f = f0; f < f1; f++) {
      let i = f * perFrame;
      let o = f * 2 * channels;
      for (let ch = 0; ch < channels; ch++) {
        if (complex) {
          const re = input[i++];
          const im = input[i++];
          out[o++] = re * c - im * s;
          out[o++] = re * s + im * c;
        } else {
          const x = input[i++];
          out[o++] = x * c;
          out[o++] = x * s;
        }
      }
      const nc = c * stepC - s * stepS;
      s = c * stepS + s * stepC;
      c = nc;
    }
  }
}

export async function extractSource(
  backend: Backend,
  source: SampleSource,
  outputPath: string,
  options: ExtractOptions = {},
): Promise<ExtractResult> {
  const { info } = source;
  const plan = planExtract(info, options);
  const container = outputContainer(outputPath);
  if (!container) {
    throw new InvalidArgumentError(
      `cannot tell the output format from "${outputPath}": name it .sigmf-meta/.sigmf-data for SigMF, or .wav for a real (unshifted audio) output`,
    );
  }
  if (container === 'wav' && plan.complex) {
    throw new InvalidArgumentError(
      `${outputPath}: WAV holds audio, not I/Q; extract ${info.complex ? 'an I/Q file' : 'a shifted signal'} to SigMF (.sigmf-meta)`,
    );
  }
  await refuseOverwritingInputs(writerPaths(outputPath), info.path ? recordingFiles(info.path) : []);
  const { start, end, decimate: k, taps } = plan;
  const total = end - start;
  if (k > 1 && !taps) {
    options.onWarning?.({
      ...(info.path ? { file: info.path } : {}),
      message: `decimating by ${k} without a low-pass: whatever lies beyond ±${plan.sampleRate / 2} Hz aliases into the output`,
    });
  }
  const channels = info.channels;
  const inValues = valuesPerFrame(info);
  const outValues = channels * (plan.complex ? 2 : 1);
  const mixing = plan.shift !== 0;
  const cyclesPerFrame = plan.shift / info.sampleRate;
  const delay = taps ? Math.floor((taps.length - 1) / 2) : 0;
  const blockFrames = Math.min(options.blockFrames ?? fileBlockFrames(info), total);
  // Two host blocks of mixed samples and two of filter output, each used while the other is written.
  let mixed: HostBlocks | undefined;
  let outs: HostBlocks | undefined;
  let fir: FirFilter | undefined;
  try {
    mixed = await hostBlocks(backend, 2, blockFrames * outValues * 4);
    const mixedInto = inTurn(mixed);
    let firInto: (() => Float32Array) | undefined;
    if (taps) {
      outs = await hostBlocks(backend, 2, (blockFrames + Math.max(1 << 16, 8 * taps.length)) * outValues * 4);
      firInto = inTurn(outs);
      fir = backend.createFir({ taps, complex: plan.complex, channels });
    }
    const sigmf: SigmfMetadata = {
      global: { ...(info.sigmf?.global ?? {}) },
      captures: [{ 'core:sample_start': 0, ...(plan.datetime ? { 'core:datetime': plan.datetime } : {}) }],
      annotations: [],
    };
    const fs = info.sampleRate;
    const applied = {
      extract: {
        source: info.path ?? null,
        start: start / fs,
        duration: total / fs,
        shift: plan.shift,
        lowpass: plan.lowpass ?? null,
        numtaps: taps?.length ?? null,
        decimate: k,
        phase: 'n = 0 at the first sample of the selection',
      },
    };
    const writer = await createWriter(outputPath, {
      format: {
        sampleRate: plan.sampleRate,
        complex: plan.complex,
        channels,
        ...(plan.centerFrequency !== undefined ? { centerFrequency: plan.centerFrequency } : {}),
      },
      encoding: plan.complex ? 'cf32_le' : 'rf32_le',
      sigmf,
      applied,
      ...(options.durable === false ? { durable: false } : {}),
    });
    let drop = delay; // leading filter output frames (the group delay) not written
    let kept = total; // filtered frames still to come (the 'same' length)
    let phase = 0; // index among the kept frames of the next frame handed over, modulo k
    // Keeps frames n ≡ 0 (mod k) of the selection's output; block k+1 is computed while block k is written.
    const writes = new WriteBehind(async (out: Float32Array) => {
      let frames = out.length / outValues;
      if (drop > 0) {
        const d = Math.min(drop, frames);
        drop -= d;
        out = out.subarray(d * outValues);
        frames -= d;
      }
      frames = Math.min(frames, kept);
      kept -= frames;
      if (frames <= 0) return;
      const first = (k - phase) % k;
      const n = first < frames ? Math.floor((frames - 1 - first) / k) + 1 : 0;
      phase = (phase + frames) % k;
      if (n === 0) return;
      if (k === 1) {
        await writer.write(out.subarray(0, frames * outValues));
        return;
      }
      const y = new Float32Array(n * outValues);
      for (let j = 0, f = first; j < n; j++, f += k) {
        y.set(out.subarray(f * outValues, (f + 1) * outValues), j * outValues);
      }
      await writer.write(y);
    });
    try {
      let done = 0;
      for await (const block of source.blocks({
        ...fileReads(info, blockFrames, true),
        start,
        end,
        signal: options.signal,
      })) {
        const x = toFloat32(block.data);
        const m = mixedInto().subarray(0, block.frames * outValues);
        if (mixing) mix(x, m, block.frames, channels, info.complex, done, cyclesPerFrame);
        else m.set(x.subarray(0, block.frames * inValues));
        await writes.push(fir && firInto ? await fir.process(m, firInto()) : m);
        done += block.frames;
        options.onProgress?.(done, total);
      }
      throwIfAborted(options.signal);
      if (fir) {
        if (delay > 0) await writes.push(await fir.process(new Float32Array(delay * outValues)));
        await writes.push(await fir.flush());
      }
      await writes.drain();
      await writer.commit();
    } catch (err) {
      await writes.settle();
      await writer.abort();
      throw err;
    }
    return {
      output: writer.path,
      frames: writer.framesWritten,
      sampleRate: plan.sampleRate,
      ...(plan.centerFrequency !== undefined ? { centerFrequency: plan.centerFrequency } : {}),
      complex: plan.complex,
      encoding: plan.complex ? 'cf32_le' : 'rf32_le',
      start,
      end,
      duration: writer.framesWritten / plan.sampleRate,
      shift: plan.shift,
      ...(plan.lowpass !== undefined ? { lowpass: plan.lowpass, numtaps: taps!.length } : {}),
      decimate: k,
      ...(plan.datetime !== undefined ? { datetime: plan.datetime } : {}),
      backend: backend.name,
    };
  } finally {
    fir?.dispose();
    await Promise.all([mixed?.release(), outs?.release()]);
  }
}
