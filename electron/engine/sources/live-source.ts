// Live sources: endless streams that arrive in real time (a microphone, rtl_tcp) or are paced to it
// (the generator, a file played back). They are SampleSources whose blocks also carry the wall-clock
// time they reached the engine, and which count the blocks they had to drop. A networked tuner (rtl_tcp)
// also retunes while it streams and reports its connection.

import type { LinkStatus } from '../protocol/messages.js';
import type { SampleBlock } from '../types.js';
import type { ReadOptions, SampleSource } from './source.js';

export interface LiveBlock extends SampleBlock {
  /** Wall-clock time (ms since the epoch, sub-ms: performance.timeOrigin + performance.now()) when the
   * block's last sample reached the engine. */
  readonly captureTime: number;
}

export interface LiveSource extends SampleSource {
  /** Which channel (0-based) the live view analyses. */
  readonly channel: number;
  /** Blocks lost since the source opened: an audio overrun, or a paced source skipping ahead because
   * its consumer fell behind real time. */
  readonly droppedBlocks: number;
  /** A short person-readable description ("Monitor of Null Output", "tone 1000 Hz", a file name). */
  readonly label: string;
  /** Endless (until the signal aborts or the source fails) unless the source says it ends (a file played
   * once). `start`/`end` are ignored: a live source always starts now. */
  blocks(options?: ReadOptions): AsyncIterable<LiveBlock>;
  /** Moves to a new centre frequency (Hz) while streaming, without reconnecting; the blocks after it
   * carry the new `format.centerFrequency`. Only tunable sources have it. */
  retune?(centerFrequency: number): Promise<void>;
  /** The connection of a networked source, now (for status events). */
  link?(): LinkStatus;
}

/** Wall-clock time in ms since the epoch with sub-ms resolution (comparable across threads and with the
 * renderer's performance.timeOrigin + performance.now()). */
export function wallClock(): number {
  return performance.timeOrigin + performance.now();
}

/** Resolves after `ms`, or at once when the signal aborts (never rejects). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted || ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
