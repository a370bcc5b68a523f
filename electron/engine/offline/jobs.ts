// Jobs: requests that run beside the connection's request queue, each with an AbortController keyed by its
// request id, so a `cancel` (or the live view) is served while they run. Progress is reported through the
// context and sent at most once per interval (the latest value wins); a benchmark row is always sent.

import { CancelledError, InvalidArgumentError } from '../errors.js';
import type { BenchRowInfo, ProgressEvent } from '../protocol/messages.js';

/** At most ~10 progress events per second per job. */
export const PROGRESS_INTERVAL_MS = 100;
/** Jobs one connection may run at once. */
export const MAX_JOBS = 16;

export interface JobContext {
  readonly id: number;
  readonly signal: AbortSignal;
  /** Reports progress; throttled to one event per interval, except that a `row` is always sent. */
  progress(done: number, total: number | undefined, unit: ProgressEvent['unit'], row?: BenchRowInfo): void;
}

export interface JobRunnerOptions {
  /** Sends one progress event. */
  send(event: ProgressEvent): void;
  intervalMs?: number;
  maxJobs?: number;
  /** Milliseconds clock (tests pass their own). */
  now?: () => number;
}

interface Running {
  controller: AbortController;
  done: Promise<void>;
}

export class JobRunner {
  readonly #o: JobRunnerOptions;
  readonly #jobs = new Map<number, Running>();
  #closed = false;

  constructor(options: JobRunnerOptions) {
    this.#o = options;
  }

  get size(): number {
    return this.#jobs.size;
  }

  has(id: number): boolean {
    return this.#jobs.has(id);
  }

  /**
   * Runs `work` as job `id`. Throws at once (InvalidArgumentError) when the id is already running or too
   * many jobs are; the returned promise settles with the work's outcome.
   */
  start<T>(id: number, work: (ctx: JobContext) => Promise<T>): Promise<T> {
    if (this.#closed) return Promise.reject(new CancelledError('the connection is closed'));
    if (this.#jobs.has(id)) {
      throw new InvalidArgumentError(`request id ${id} is still running: give each request its own id`);
    }
    const max = this.#o.maxJobs ?? MAX_JOBS;
    if (this.#jobs.size >= max) {
      throw new InvalidArgumentError(
        `${this.#jobs.size} requests are running, the most one connection may run at once: wait for one or cancel one`,
      );
    }
    const controller = new AbortController();
    const now = this.#o.now ?? (() => performance.now());
    const interval = this.#o.intervalMs ?? PROGRESS_INTERVAL_MS;
    let last = -Infinity;
    const ctx: JobContext = {
      id,
      signal: controller.signal,
      progress: (done, total, unit, row) => {
        if (controller.signal.aborted || this.#closed) return;
        const t = now();
        if (row === undefined && t - last < interval) return;
        last = t;
        const event: ProgressEvent = { request: id, done, unit };
        if (total !== undefined) event.total = total;
        if (row !== undefined) event.row = row;
        this.#o.send(event);
      },
    };
    const entry: Running = { controller, done: Promise.resolve() };
    this.#jobs.set(id, entry);
    // Leaves the table before its outcome is seen, so the id may be used again at once.
    const promise = (async () => {
      try {
        return await work(ctx);
      } finally {
        if (this.#jobs.get(id) === entry) this.#jobs.delete(id);
      }
    })();
    entry.done = promise.then(
      () => undefined,
      () => undefined,
    );
    return promise;
  }

  /** Asks job `id` to stop; false when no such job runs. */
  cancel(id: number): boolean {
    const j = this.#jobs.get(id);
    if (!j || j.controller.signal.aborted) return false;
    j.controller.abort(new CancelledError());
    return true;
  }

  /** Aborts every job and refuses new ones; resolves when all have settled. */
  async close(): Promise<void> {
    this.#closed = true;
    const all = [...this.#jobs.values()];
    for (const j of all) j.controller.abort(new CancelledError('the connection is closed'));
    await Promise.all(all.map((j) => j.done));
  }
}
