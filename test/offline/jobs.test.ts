// The job runner: progress throttled per job (a benchmark row always goes out), cancel by id, limits on
// concurrent jobs and on reused ids, close cancelling everything.
import { describe, expect, it } from 'vitest';
import { CancelledError, PhasorError, throwIfAborted } from '../../electron/engine/errors.js';
import { JobRunner } from '../../electron/engine/offline/jobs.js';
import type { ProgressEvent } from '../../electron/engine/protocol/messages.js';

function runner(clock: { t: number }, maxJobs = 3) {
  const sent: ProgressEvent[] = [];
  const jobs = new JobRunner({ send: (e) => sent.push(e), intervalMs: 100, maxJobs, now: () => clock.t });
  return { jobs, sent };
}

/** A job that waits until released or aborted. */
function held(): { work: (ctx: { signal: AbortSignal }) => Promise<string>; release: () => void } {
  let release = () => undefined as void;
  const released = new Promise<void>((r) => (release = r));
  return {
    release: () => release(),
    work: async ({ signal }) => {
      await Promise.race([
        released,
        new Promise<void>((_, reject) =>
          signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true }),
        ),
      ]);
      throwIfAborted(signal);
      return 'done';
    },
  };
}

describe('JobRunner', () => {
  it('sends at most one progress event per interval, the rows always', async () => {
    const clock = { t: 0 };
    const { jobs, sent } = runner(clock);
    await jobs.start(7, async (ctx) => {
      for (let i = 1; i <= 50; i++) {
        clock.t = i * 10; // 10 ms apart: one in ten goes out
        ctx.progress(i, 50, 'frames');
      }
      ctx.progress(51, 60, 'rows', {
        backend: 'cpu',
        op: 'fft',
        size: 64,
        batch: 1,
        samples: 64,
        medianMs: 1,
        samplesPerSecond: 64000,
        relError: 0,
      });
    });
    const frames = sent.filter((e) => e.unit === 'frames');
    expect(frames.map((e) => e.done)).toEqual([1, 11, 21, 31, 41]);
    expect(frames.every((e) => e.request === 7 && e.total === 50)).toBe(true);
    expect(sent[sent.length - 1]).toMatchObject({ request: 7, done: 51, unit: 'rows', row: { op: 'fft' } });
    expect(jobs.size).toBe(0);
  });

  it('cancels a job by id; the job ends with CancelledError and sends no more progress', async () => {
    const clock = { t: 0 };
    const { jobs, sent } = runner(clock);
    const h = held();
    let ctxProgress: ((d: number) => void) | null = null;
    const p = jobs.start(1, async (ctx) => {
      ctxProgress = (d) => ctx.progress(d, 10, 'frames');
      return h.work(ctx);
    });
    expect(jobs.has(1)).toBe(true);
    expect(jobs.cancel(2)).toBe(false);
    expect(jobs.cancel(1)).toBe(true);
    expect(jobs.cancel(1)).toBe(false);
    await expect(p).rejects.toBeInstanceOf(CancelledError);
    ctxProgress!(5);
    expect(sent).toEqual([]);
    expect(jobs.size).toBe(0);
  });

  it('refuses a reused id and more than the maximum of jobs, with errors a person can act on', async () => {
    const clock = { t: 0 };
    const { jobs } = runner(clock, 2);
    const a = held();
    const b = held();
    const pa = jobs.start(1, a.work);
    expect(() => jobs.start(1, a.work)).toThrow(/request id 1 is still running/);
    const pb = jobs.start(2, b.work);
    let err: unknown;
    try {
      jobs.start(3, b.work);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(PhasorError);
    expect((err as PhasorError).code).toBe('invalid-argument');
    expect((err as Error).message).toMatch(/2 requests are running.*wait for one or cancel one/);
    a.release();
    expect(await pa).toBe('done');
    // The slot and the id are free again.
    const again = held();
    const pc = jobs.start(1, again.work);
    again.release();
    b.release();
    expect(await Promise.all([pb, pc])).toEqual(['done', 'done']);
  });

  it('close cancels every job and refuses new ones', async () => {
    const { jobs } = runner({ t: 0 });
    const a = held();
    const b = held();
    const pa = jobs.start(1, a.work);
    const pb = jobs.start(2, b.work);
    await jobs.close();
    await expect(pa).rejects.toBeInstanceOf(CancelledError);
    await expect(pb).rejects.toBeInstanceOf(CancelledError);
    await expect(jobs.start(3, a.work)).rejects.toBeInstanceOf(CancelledError);
  });
});
