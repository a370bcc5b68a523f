// Real-time pacing for sources that could run faster than real time (the generator, a file played back):
// small blocks (a few ms of signal) released when the wall clock reaches their last sample.
//
// Block k is due at t0 + (frames before it + its frames) / rate, computed from the start time and the
// frame count, never by adding up sleeps, so timer jitter does not accumulate (no drift over hours). A
// consumer that falls more than `maxLagMs` behind makes the source jump to the present, reading on from
// there (the skipped blocks are counted as dropped, as a sound card would overrun) instead of replaying the
// backlog faster than real time; nothing is produced for the frames it skips.
//
// The clock starts when the consumer has taken the first block through, and for the first `warmupSeconds`
// of stream a consumer that falls behind moves the clock on instead of skipping frames: the pipeline is
// warming up then (the backend's first calls, worker start-up, JIT, the first peak search, a page still
// mounting in the same machine's CPU), which is start-up, not a stall. A skip there would be counted as a
// drop and would cut the signal inside a frame, painting a broadband skirt into the first spectra and the
// peak hold. After the warm-up every lag beyond `maxLagMs` is a drop, counted.

import { CancelledError } from '../errors.js';
import type { ReadOptions, SampleSource, SourceInfo } from './source.js';
import { sleep, wallClock, type LiveBlock, type LiveSource } from './live-source.js';

export interface PaceOptions {
  /** Person-readable description of the source. */
  label: string;
  /** Channel (0-based) the live view analyses. Default 0. */
  channel?: number;
  /** Start again at the beginning when the source ends (a file played in a loop). Default false. */
  loop?: boolean;
  /** Seconds of signal per block. Default 0.005 (5 ms). */
  blockSeconds?: number;
  /** How far (ms) the consumer may fall behind real time before blocks are skipped. Default 250. */
  maxLagMs?: number;
  /** Seconds of stream at the start during which lag moves the clock instead of skipping. Default 2. */
  warmupSeconds?: number;
  /** Clock (ms) and sleep, replaceable in tests. */
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** Frames per block for a rate: `seconds` of signal, at least 16 frames, at most 2^20. */
export function liveBlockFrames(sampleRate: number, seconds = 0.005): number {
  return Math.min(1 << 20, Math.max(16, Math.round(sampleRate * seconds)));
}

class PacedSource implements LiveSource {
  readonly info: SourceInfo;
  readonly channel: number;
  readonly label: string;
  #dropped = 0;
  readonly #inner: SampleSource;
  readonly #options: PaceOptions;

  constructor(inner: SampleSource, options: PaceOptions) {
    this.#inner = inner;
    this.#options = options;
    // Looping or endless: the live source has no length.
    const { samples: _samples, promisedSamples: _promised, ...rest } = inner.info;
    this.info = options.loop || inner.info.samples === undefined ? rest : inner.info;
    this.channel = options.channel ?? 0;
    this.label = options.label;
  }

  get droppedBlocks(): number {
    return this.#dropped;
  }

  blocks(options: ReadOptions = {}): AsyncIterable<LiveBlock> {
    return this.#run(options.signal);
  }

  async *#run(signal: AbortSignal | undefined): AsyncGenerator<LiveBlock> {
    const now = this.#options.now ?? (() => performance.now());
    const wait = this.#options.sleep ?? sleep;
    const maxLag = this.#options.maxLagMs ?? 250;
    const warmupFrames = (this.#options.warmupSeconds ?? 2) * this.info.sampleRate;
    const rate = this.info.sampleRate;
    const blockFrames = liveBlockFrames(rate, this.#options.blockSeconds);
    const length = this.#inner.info.samples;
    const loop = this.#options.loop === true;
    let t0 = now();
    let warm = false;
    let frames = 0; // stream frames so far, yielded or skipped
    let pos = 0; // where the next block starts in the inner source
    let breathed = t0;
    try {
      while (true) {
        let any = false;
        let jumped = false;
        for await (const b of this.#inner.blocks({
          blockFrames,
          start: pos,
          ...(signal ? { signal } : {}),
        })) {
          if (b.frames === 0) continue;
          any = true;
          const t = now();
          const due = t0 + ((frames + b.frames) / rate) * 1000;
          if (t - due > maxLag && frames < warmupFrames) {
            // Warming up: real time restarts from here, frame by frame (see the file comment).
            t0 += t - due;
          } else if (t - due > maxLag) {
            // Far behind: jump to where real time is, without producing the frames in between.
            const skipped = Math.max(b.frames, Math.floor(((t - t0) / 1000) * rate) - frames);
            this.#dropped += Math.ceil(skipped / blockFrames);
            frames += skipped;
            pos += skipped;
            if (length !== undefined && pos >= length) {
              if (!loop) return;
              pos %= length;
            }
            jumped = true;
            break;
          }
          if (t < due) await wait(due - t, signal);
          else if (t - breathed > 10) {
            // On time only by not sleeping: let timers and I/O run now and then.
            await new Promise<void>((resolve) => setImmediate(resolve));
          }
          breathed = now();
          if (signal?.aborted) return;
          yield { format: b.format, start: frames, frames: b.frames, data: b.data, captureTime: wallClock() };
          if (!warm) {
            // Back for the second block: real time runs from here (see the file comment).
            warm = true;
            t0 += Math.max(0, now() - due);
          }
          frames += b.frames;
          pos += b.frames;
        }
        if (signal?.aborted) return;
        if (jumped) continue;
        // The source ended: start again from its beginning when looping (an empty one ends for good).
        if (!loop || (!any && pos === 0)) return;
        pos = 0;
      }
    } catch (err) {
      // Stopping is not a failure of the source.
      if (signal?.aborted && err instanceof CancelledError) return;
      throw err;
    }
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}

/** Wraps a source so its blocks arrive in real time (see the file comment). */
export function pacedSource(inner: SampleSource, options: PaceOptions): LiveSource {
  return new PacedSource(inner, options);
}
