// Streaming FIR filter of the CPU backend: y = scipy.signal.lfilter(taps, 1, x) per lane (each channel, and
// I and Q of a complex channel, are independent real streams).
//
// The FIR cursor of ../stream.ts decides which output frames a block makes ready (every frame for direct
// form; whole overlap-save segments of S = L − M + 1 frames aligned to absolute frames, the last partial
// one at flush), so every output value is the same computation on the same data whatever the block sizes:
// results are bit-identical. The input from the cursor's keepFrom on is kept in a host buffer.

import { validateFirConfig } from '../validate.js';
import { InvalidArgumentError } from '../../errors.js';
import type { FirConfig, FirFilter, ProcessorInput } from '../backend.js';
import { getFftPlan } from '../../fft/index.js';
import type { Executor } from './executor.js';
import { fftCost } from './executor.js';
import type { FirDirectJob, FirOverlapSaveJob, Job } from './jobs.js';
import { FirCursor, GrowableF32, firFrames, firLanes, firMethod } from '../stream.js';

/**
 * 'auto' uses direct form up to this many taps and overlap-save above. Measured with
 * `npx tsx bench/fft/cpu-backend.ts fir-switch` (2^20 real frames, calling thread): direct form wins at
 * 4 and 8 taps (93 / 60 Msamples/s against 20 / 37), overlap-save from 16 taps on (41 against 19).
 */
export const FIR_DIRECT_MAX_TAPS = 12;

/** Output frames per task of a direct-form job. */
const DIRECT_CHUNK = 4096;

/** The most float32 values a segment of every lane may take (64 MiB): the filter holds about three such
 * stretches (the input kept, its staging copy, the output), so a wide frame (65,535 channels) gets shorter
 * segments rather than gigabytes. A segment is never shorter than the smallest size of `numtaps`. */
const SEGMENT_VALUES_BUDGET = 16 << 20;

/** The overlap-save FFT size with the lowest estimated cost per output frame, for `lanes` lanes a frame. */
export function overlapSaveSize(numtaps: number, lanes = 1): number {
  let best = 0;
  let bestCost = Infinity;
  let size = 16;
  while (size < 2 * numtaps) size *= 2;
  const most = Math.max(
    size,
    Math.min(Math.max(1 << 16, 4 * numtaps), 1 << 22, SEGMENT_VALUES_BUDGET / lanes),
  );
  for (; size <= most; size *= 2) {
    const outputs = size - numtaps + 1;
    // Two transforms, the product, a fixed cost per segment (loops, staging) of ~2·10^3 units.
    const cost = (2 * fftCost(size) + 8 * size + 2000) / outputs;
    if (cost < bestCost) {
      bestCost = cost;
      best = size;
    }
  }
  return best;
}

export class CpuFir implements FirFilter {
  readonly numtaps: number;
  readonly method: 'direct' | 'overlap-save';
  private readonly lanes: number;
  private readonly taps: Float64Array;
  private readonly size: number;
  private readonly segment: number;
  private readonly spectrum: Float64Array | null;
  private readonly cursor: FirCursor;
  /** Input values from frame cursor.keepFrom on (before frame 0: the zero initial state). */
  private readonly buffer = new GrowableF32();
  private disposed = false;

  constructor(
    private readonly exec: Executor,
    config: FirConfig,
  ) {
    validateFirConfig(config);
    this.numtaps = config.taps.length;
    this.lanes = firLanes(config);
    this.method = firMethod(config, FIR_DIRECT_MAX_TAPS);
    const shared = exec.pool !== null;
    this.taps = exec.f64(this.numtaps, shared);
    this.taps.set(config.taps);
    if (this.method === 'overlap-save') {
      this.size = overlapSaveSize(this.numtaps, this.lanes);
      this.segment = this.size - this.numtaps + 1;
      const padded = new Float64Array(2 * this.size);
      for (let i = 0; i < this.numtaps; i++) padded[2 * i] = config.taps[i];
      this.spectrum = exec.f64(2 * this.size, shared);
      getFftPlan(this.size).forward(padded, this.spectrum);
    } else {
      this.size = 0;
      this.segment = 0;
      this.spectrum = null;
    }
    this.cursor = new FirCursor(this.numtaps, this.segment);
    this.reset();
  }

  get pending(): number {
    return this.cursor.pending;
  }

  process(input: ProcessorInput): Promise<Float32Array> {
    if (this.disposed) return Promise.reject(new InvalidArgumentError('fir: used after dispose()'));
    let x: Float32Array;
    let frames: number;
    try {
      x = this.exec.samples(input, 'fir input');
      frames = firFrames(x.length, this.lanes);
    } catch (err) {
      return Promise.reject(err);
    }
    this.buffer.append(x, 0);
    return this.compute(this.cursor.push(frames), false);
  }

  flush(): Promise<Float32Array> {
    if (this.disposed) return Promise.reject(new InvalidArgumentError('fir: used after dispose()'));
    const result = this.compute(this.cursor.flush(), true);
    this.reset();
    return result;
  }

  /** Computes the next `frames` output frames; `pad` zero-fills a partial last segment. */
  private compute(frames: number, pad: boolean): Promise<Float32Array> {
    if (frames <= 0) return Promise.resolve(new Float32Array(0));
    const V = this.lanes;
    const M = this.numtaps;
    let inputFrames = frames + M - 1;
    let job: Job;
    let tasks: number;
    let cost: number;
    if (this.method === 'direct') {
      tasks = Math.ceil(frames / DIRECT_CHUNK);
      cost = 2 * frames * V * M;
    } else {
      const segments = Math.ceil(frames / this.segment);
      inputFrames = segments * this.segment + M - 1;
      tasks = segments * ((V >> 1) + (V & 1));
      cost = segments * Math.ceil(V / 2) * (2 * fftCost(this.size) + 8 * this.size);
    }
    const shared = this.exec.shared(cost);
    // The buffer starts at the history of the next output frame (cursor.keepFrom).
    const available = Math.min(inputFrames * V, this.buffer.length);
    let input: Float32Array;
    if (shared || available < inputFrames * V) {
      input = this.exec.stagingF32(inputFrames * V, shared);
      input.set(this.buffer.view(0, available));
      // Padding past the available frames must be zeros; a reused staging buffer holds old data.
      input.fill(0, available);
      if (!pad && available < inputFrames * V) throw new Error('fir: internal error, segment incomplete');
    } else input = this.buffer.view(0, inputFrames * V);
    const output = this.exec.stagingF32(frames * V, shared);
    if (this.method === 'direct') {
      job = {
        kind: 'fir-direct',
        taps: this.taps,
        lanes: V,
        frames,
        chunk: DIRECT_CHUNK,
        input,
        output,
      } satisfies FirDirectJob;
    } else {
      job = {
        kind: 'fir-os',
        size: this.size,
        single: this.exec.single32(this.size),
        numtaps: M,
        lanes: V,
        frames,
        spectrum: this.spectrum!,
        input,
        output,
      } satisfies FirOverlapSaveJob;
    }
    // Inline jobs run synchronously here, before the buffer below is trimmed.
    const run = this.exec.run(job, tasks, shared);
    const keptFrom = this.cursor.keepFrom;
    this.cursor.produce(frames);
    this.buffer.drop((this.cursor.keepFrom - keptFrom) * V);
    return run.then(
      () => {
        const result = shared ? output.slice() : output;
        this.exec.release(input, output);
        return result;
      },
      (err: unknown) => {
        this.exec.release(input, output);
        throw err;
      },
    );
  }

  reset(): void {
    this.buffer.clear();
    this.buffer.appendZeros((this.numtaps - 1) * this.lanes);
    this.cursor.reset();
  }

  dispose(): void {
    this.buffer.clear();
    this.disposed = true;
  }
}
