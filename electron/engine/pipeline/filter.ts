// Filtering a file into another through a streaming FIR filter on the backend.
// Delay-compensated by default (scipy.signal.oaconvolve(x, taps, mode="same") for odd numtaps), causal
// (scipy.signal.lfilter(taps, 1, x)) on request. The output is written to a temporary file and renamed
// into place only on success: a failed or cancelled job leaves nothing under the output's name.

import type { Backend, FirFilter, HostBlocks } from '../backends/backend.js';
import { firwin, type WindowSpec } from '../dsp/index.js';
import { InvalidArgumentError, throwIfAborted } from '../errors.js';
import { createWriter, defaultOutputEncoding, outputContainer } from '../io/index.js';
import { recordingFiles, refuseOverwritingInputs } from '../io/identity.js';
import { writerPaths } from '../io/writer.js';
import type { SampleSource } from '../sources/source.js';
import { valuesPerFrame } from '../types.js';
import {
  BLOCK_BYTES_BUDGET,
  WriteBehind,
  fileBlockFrames,
  fileReadBlocks,
  fileReads,
  hostBlocks,
  inTurn,
} from './stages.js';

/** Output frames a block's buffer holds beyond the block: overlap-save holds back less than a segment,
 * which this covers for every filter the backends plan (a larger output gets an array of its own), within
 * BLOCK_BYTES_BUDGET for wide frames (65,535 channels would otherwise ask for 17 GB a buffer). */
function outputMargin(numtaps: number, frameValues: number): number {
  const most = Math.max(1, Math.floor(BLOCK_BYTES_BUDGET / (4 * frameValues)));
  return Math.min(Math.max(1 << 16, 8 * numtaps), most);
}

export type FilterKind = 'lowpass' | 'highpass' | 'bandpass' | 'bandstop';

export interface FilterDesign {
  kind: FilterKind;
  /** Hz: one edge for low/high-pass, two for band-pass/stop. */
  cutoff: number | [number, number];
  numtaps: number;
  window: WindowSpec | string;
}

/** firwin taps for a design at a sample rate. */
export function designTaps(design: FilterDesign, sampleRate: number): Float64Array {
  const passZero = design.kind === 'lowpass' || design.kind === 'bandstop';
  return firwin(design.numtaps, design.cutoff, { window: design.window, passZero, fs: sampleRate });
}

export interface FilterOptions {
  /** lfilter semantics (output delayed by the filter's group delay) instead of delay-compensated. */
  causal?: boolean;
  /** Output encoding (SigMF spelling, e.g. 'ri16_le', 'cf32_le'); default: the input's, when it fits. */
  encoding?: string;
  /** Recorded in a SigMF output's metadata. */
  applied?: Record<string, unknown>;
  /** Record core:sha512 in a SigMF output (see WriterOptions.checksum). */
  checksum?: boolean;
  /** Flush the output to the disk before renaming it (default true; WriterOptions.durable). */
  durable?: boolean;
  blockFrames?: number;
  signal?: AbortSignal;
  onProgress?: (framesDone: number, framesTotal: number | undefined) => void;
  /** Other files the job read (a taps file): the output may not replace them either. */
  alsoRead?: readonly string[];
}

export interface FilterResult {
  output: string;
  frames: number;
  /** Samples clipped when converting to an integer output encoding. */
  clipped: number;
  encoding: string;
  numtaps: number;
  method: 'direct' | 'overlap-save';
  backend: string;
}

export async function filterSource(
  backend: Backend,
  source: SampleSource,
  outputPath: string,
  taps: Float64Array | Float32Array,
  options: FilterOptions = {},
): Promise<FilterResult> {
  const { info } = source;
  if (taps.length < 1) throw new InvalidArgumentError('the filter has no taps');
  const read = [...(info.path ? recordingFiles(info.path) : []), ...(options.alsoRead ?? [])];
  await refuseOverwritingInputs(writerPaths(outputPath), read);
  const container = outputContainer(outputPath);
  if (!container) {
    throw new InvalidArgumentError(
      `cannot tell the output format from "${outputPath}": name it .wav, or .sigmf-data/.sigmf-meta for SigMF`,
    );
  }
  const encoding = options.encoding ?? defaultOutputEncoding(info.encoding, container, info.complex);
  const format = {
    sampleRate: info.sampleRate,
    complex: info.complex,
    channels: info.channels,
    ...(info.centerFrequency !== undefined ? { centerFrequency: info.centerFrequency } : {}),
  };
  const vpf = valuesPerFrame(format);
  const delay = options.causal ? 0 : Math.floor((taps.length - 1) / 2);
  // Reused host blocks (page-locked on CUDA): the reader's ring, and two outputs, one computed while the
  // other is written.
  const blockFrames = options.blockFrames ?? fileBlockFrames(info);
  const reads = await fileReadBlocks(backend, info, blockFrames);
  let outs: HostBlocks | undefined;
  let fir: FirFilter | undefined;
  try {
    const outFrames = Math.min(blockFrames, info.samples ?? Infinity) + outputMargin(taps.length, vpf);
    outs = await hostBlocks(backend, 2, outFrames * vpf * 4);
    const into = inTurn(outs);
    const filter = (fir = backend.createFir({ taps, complex: info.complex, channels: info.channels }));
    const writer = await createWriter(outputPath, {
      format,
      encoding,
      ...(info.sigmf ? { sigmf: info.sigmf } : {}),
      applied: options.applied ?? { filter: { numtaps: taps.length, causal: !!options.causal } },
      ...(options.checksum ? { checksum: true } : {}),
      ...(options.durable === false ? { durable: false } : {}),
    });
    let drop = delay * vpf; // values of leading output to discard (delay compensation)
    let done = 0;
    // Block k+1 is computed while block k is written and later blocks are read.
    const writes = new WriteBehind(async (out: Float32Array) => {
      if (drop > 0) {
        const d = Math.min(drop, out.length);
        drop -= d;
        out = out.subarray(d);
      }
      if (out.length > 0) await writer.write(out);
    });
    try {
      for await (const block of source.blocks({
        ...fileReads(info, blockFrames, true, reads),
        raw: true,
        signal: options.signal,
      })) {
        await writes.push(await filter.process(block.data, into()));
        done += block.frames;
        options.onProgress?.(done, info.samples);
      }
      throwIfAborted(options.signal);
      if (delay > 0) await writes.push(await filter.process(new Float32Array(delay * vpf)));
      await writes.push(await filter.flush());
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
      clipped: writer.clipped,
      encoding,
      numtaps: taps.length,
      method: filter.method,
      backend: backend.name,
    };
  } finally {
    fir?.dispose();
    await Promise.all([reads.release(), outs?.release()]);
  }
}

/** Parses taps from text: numbers separated by whitespace or commas (# comments), or JSON. */
export function parseTaps(text: string, file: string): Float64Array {
  const trimmed = text.trim();
  let values: unknown;
  if (trimmed.startsWith('[') || trimmed.startsWith('{')) {
    try {
      const json = JSON.parse(trimmed) as unknown;
      values = Array.isArray(json) ? json : (json as { taps?: unknown }).taps;
    } catch (e) {
      throw new InvalidArgumentError(`${file}: not valid JSON: ${(e as Error).message}`);
    }
    if (!Array.isArray(values))
      throw new InvalidArgumentError(`${file}: expected a JSON array of taps or {"taps": [...]}`);
  } else {
    values = trimmed
      .split('\n')
      .map((l) => l.replace(/#.*/, ''))
      .join(' ')
      .split(/[\s,]+/)
      .filter((s) => s.length > 0);
  }
  const arr = values as unknown[];
  const taps = new Float64Array(arr.length);
  arr.forEach((v, i) => {
    const x = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : NaN;
    if (!Number.isFinite(x))
      throw new InvalidArgumentError(`${file}: tap ${i + 1} is not a finite number (${String(v)})`);
    taps[i] = x;
  });
  if (taps.length === 0) throw new InvalidArgumentError(`${file}: no taps found`);
  return taps;
}
