// The queue between a push-fed live source (the microphone's capture callback, a client's audio messages)
// and the session that reads it. The pushing side never waits: blocks queue up to `maxFrames`, beyond which
// the oldest are dropped and counted (an overrun keeps the newest audio). A failure ends the reading with
// its error once the queue is empty; a watchdog fails the source when no block comes at the start or when
// blocks stop coming.
//
//   const q = new PushedBlocks(24000);
//   q.watch({ startupMs: 10000, stallMs: 3000 }, (why) => q.fail(new PhasorError('io', message(why))));
//   q.push(block);                            // from the capture side
//   for await (const b of q.read(signal)) …   // the session
//   q.close();

import type { PhasorError } from '../errors.js';
import type { LiveBlock } from './live-source.js';

export class PushedBlocks {
  /** Blocks dropped because the reader fell behind. */
  dropped = 0;
  readonly #queue: LiveBlock[] = [];
  #queued = 0;
  #error: PhasorError | null = null;
  #closed = false;
  #wake: (() => void) | null = null;
  #gotData = false;
  #lastData = 0;
  #watchdog: ReturnType<typeof setInterval> | null = null;

  /** `maxFrames`: the frames that may wait for the reader (at least one block always does). */
  constructor(public maxFrames: number) {}

  get closed(): boolean {
    return this.#closed;
  }

  /** Whether pushing is over: the source failed or closed. */
  get ended(): boolean {
    return this.#closed || this.#error !== null;
  }

  push(block: LiveBlock): void {
    if (this.ended) return;
    this.#gotData = true;
    this.#lastData = performance.now();
    this.#queue.push(block);
    this.#queued += block.frames;
    while (this.#queued > this.maxFrames && this.#queue.length > 1) {
      this.#queued -= this.#queue.shift()!.frames;
      this.dropped++;
    }
    this.#notify();
  }

  /** Ends the reading with `error` after the blocks queued; false when it had already ended. */
  fail(error: PhasorError): boolean {
    if (this.ended) return false;
    this.#error = error;
    this.#stopWatchdog();
    this.#notify();
    return true;
  }

  /**
   * Calls `stalled('startup')` when no block came within `startupMs` of this call, `stalled('stall')` when
   * blocks came and then none for `stallMs`; checked a few times per `stallMs`, never keeping a process
   * alive. It stops when the source fails or closes.
   */
  watch(limits: { startupMs: number; stallMs: number }, stalled: (why: 'startup' | 'stall') => void): void {
    const openedAt = performance.now();
    this.#stopWatchdog();
    this.#watchdog = setInterval(
      () => {
        const now = performance.now();
        if (!this.#gotData && now - openedAt > limits.startupMs) stalled('startup');
        else if (this.#gotData && now - this.#lastData > limits.stallMs) stalled('stall');
      },
      Math.max(50, Math.min(1000, limits.stallMs / 3)),
    );
    // (a browser-typed build of this file sees a number)
    (this.#watchdog as { unref?: () => void }).unref?.();
  }

  async *read(signal: AbortSignal | undefined): AsyncGenerator<LiveBlock> {
    const onAbort = (): void => this.#notify();
    signal?.addEventListener('abort', onAbort);
    try {
      while (!signal?.aborted && !this.#closed) {
        const b = this.#queue.shift();
        if (b) {
          this.#queued -= b.frames;
          yield b;
          continue;
        }
        if (this.#error) throw this.#error;
        await new Promise<void>((resolve) => (this.#wake = resolve));
      }
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Stops the reading (what was queued is dropped); false when it was closed already. */
  close(): boolean {
    if (this.#closed) return false;
    this.#closed = true;
    this.#stopWatchdog();
    this.#queue.length = 0;
    this.#queued = 0;
    this.#notify();
    return true;
  }

  #notify(): void {
    const w = this.#wake;
    this.#wake = null;
    w?.();
  }

  #stopWatchdog(): void {
    if (this.#watchdog) clearInterval(this.#watchdog);
    this.#watchdog = null;
  }
}
