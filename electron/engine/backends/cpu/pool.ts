// A pool of worker threads for the CPU backend. One job at a time uses every worker: the job's arrays are
// backed by SharedArrayBuffers (shared, not copied, by postMessage), and the workers take chunks of its
// tasks from a shared atomic counter until none are left, so a slow worker never holds the others up.
// Workers are kept referenced only while a job runs, so an idle pool never keeps a CLI alive.

import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { BackendFailedError } from '../../errors.js';
import type { Job } from './jobs.js';
import { simdModule } from './simd.js';

/** The worker script, and for TypeScript sources the loader that must be registered before it. */
export interface WorkerSpec {
  url: URL;
  /** A module whose register() installs a TypeScript loader in the worker (tsx's ESM API). */
  tsLoader?: URL;
}

/**
 * Finds the worker script beside this module: the compiled .js sibling when running from dist/, or the
 * .ts sibling when running from sources (e.g. under vitest), loaded through tsx (a devDependency). A
 * worker does not inherit the parent's loader hooks, and `--import tsx` in a worker's execArgv does not
 * install them either (Node 20), so the worker starts with a tiny bootstrap that registers tsx first.
 */
export function defaultWorkerSpec(): WorkerSpec {
  const here = import.meta.url;
  if (!here.endsWith('.ts')) return { url: new URL('./worker.js', here) };
  const url = new URL('./worker.ts', here);
  const req = createRequire(here);
  let tsLoader: URL;
  try {
    const pkg = req.resolve('tsx/package.json');
    const esm = path.join(path.dirname(pkg), 'dist/esm/api/index.mjs');
    tsLoader = pathToFileURL(existsSync(esm) ? esm : req.resolve('tsx/esm/api'));
  } catch {
    throw new BackendFailedError(
      'cpu',
      'running from TypeScript sources needs tsx (npm install --save-dev tsx)',
      {
        sticky: true,
      },
    );
  }
  return { url, tsLoader };
}

export interface WorkerRequest {
  id: number;
  job: Job;
  tasks: number;
  chunk: number;
  /** Int32Array over a SharedArrayBuffer: the next task to take. */
  counter: Int32Array;
  /** Report the thread's CPU time spent on the job (benchmarks). */
  measure: boolean;
  /** The float32 kernels' compiled module, sent with a worker's first job (see simd.ts). */
  simdModule?: object;
}

export type WorkerReply =
  { id: number; ok: true; tasks: number; cpuNs?: number } | { id: number; ok: false; message: string };

/** CPU time the workers spent on jobs since the last reset (collected only when measuring). */
export interface PoolStats {
  jobs: number;
  /** Per worker: tasks done and thread CPU time in ms (NaN where the platform gives no per-thread time). */
  workers: Array<{ tasks: number; cpuMs: number }>;
}

/** Zeros in shared memory for warm()'s do-nothing job (n = 1, one task per worker, up to 1024 workers). */
const SHARED_ZERO = new Float32Array(new SharedArrayBuffer(8 * 1024));

interface Pending {
  job: Job;
  tasks: number;
  /** Tasks per grab from the counter (default: about four grabs per worker). */
  chunk?: number;
  resolve: () => void;
  reject: (e: unknown) => void;
}

export class WorkerPool {
  private readonly workers: Array<Worker | undefined>;
  /** Workers that were sent the SIMD module. */
  private readonly hasModule = new WeakSet<Worker>();
  private readonly queue: Pending[] = [];
  private running: { pending: Pending; id: number; waiting: Set<number> } | null = null;
  private nextId = 1;
  private disposed = false;
  private measuring = false;
  private stats: PoolStats;

  constructor(
    readonly size: number,
    private readonly spec: WorkerSpec,
  ) {
    this.workers = new Array<Worker | undefined>(size).fill(undefined);
    this.stats = { jobs: 0, workers: Array.from({ length: size }, () => ({ tasks: 0, cpuMs: 0 })) };
    if (spec.url.protocol === 'file:' && !existsSync(fileURLToPath(spec.url))) {
      throw new BackendFailedError('cpu', `worker script not found: ${fileURLToPath(spec.url)}`, {
        sticky: true,
      });
    }
  }

  /** Starts collecting per-worker CPU time (cleared), or stops. Costs two reads of /proc per job and worker. */
  measure(on: boolean): void {
    this.measuring = on;
    this.stats = { jobs: 0, workers: this.stats.workers.map(() => ({ tasks: 0, cpuMs: 0 })) };
  }

  /** What the workers reported since measure(true). */
  collected(): PoolStats {
    return { jobs: this.stats.jobs, workers: this.stats.workers.map((w) => ({ ...w })) };
  }

  /** Starts every worker and waits until each has loaded its script (so that a benchmark times work only). */
  async warm(): Promise<void> {
    await this.run(
      { kind: 'fft', n: 1, inverse: false, input: SHARED_ZERO, output: SHARED_ZERO },
      this.size,
      1,
    );
  }

  /** Runs every task of the job on the workers. Every typed array of the job must be backed by a
   * SharedArrayBuffer (results are written there). */
  run(job: Job, tasks: number, chunk?: number): Promise<void> {
    if (this.disposed) return Promise.reject(new BackendFailedError('cpu', 'the backend was disposed'));
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ job, tasks, chunk, resolve, reject });
      this.pump();
    });
  }

  private worker(i: number): Worker {
    let w = this.workers[i];
    if (w !== undefined) return w;
    const { url, tsLoader } = this.spec;
    w =
      tsLoader === undefined
        ? new Worker(url)
        : new Worker(
            `import(${JSON.stringify(tsLoader.href)})` +
              `.then((m) => { (m.register ?? m.default.register)(); return import(${JSON.stringify(url.href)}); })`,
            { eval: true },
          );
    w.unref();
    w.on('message', (reply: WorkerReply) => this.onReply(i, reply));
    w.on('error', (err) => this.onFailure(i, err));
    w.on('exit', (code) => {
      if (this.workers[i] === w) {
        this.workers[i] = undefined;
        if (!this.disposed) this.onFailure(i, new Error(`worker exited with code ${code}`));
      }
    });
    this.workers[i] = w;
    return w;
  }

  private pump(): void {
    if (this.running !== null || this.queue.length === 0) return;
    const pending = this.queue.shift()!;
    const { job, tasks } = pending;
    if (tasks <= 0) {
      pending.resolve();
      this.pump();
      return;
    }
    // About four chunks per worker balance the load; never wake more workers than there are chunks.
    const chunk = pending.chunk ?? Math.max(1, Math.ceil(tasks / (4 * this.size)));
    const used = Math.min(this.size, Math.ceil(tasks / chunk));
    const id = this.nextId++;
    const counter = new Int32Array(new SharedArrayBuffer(4));
    const waiting = new Set<number>();
    this.running = { pending, id, waiting };
    try {
      for (let i = 0; i < used; i++) {
        const w = this.worker(i);
        w.ref();
        waiting.add(i);
        const req: WorkerRequest = { id, job, tasks, chunk, counter, measure: this.measuring };
        if (!this.hasModule.has(w)) {
          const module = simdModule();
          if (module !== null) req.simdModule = module;
          this.hasModule.add(w);
        }
        w.postMessage(req);
      }
    } catch (err) {
      this.finish(
        new BackendFailedError('cpu', `could not start a worker: ${(err as Error).message}`, { cause: err }),
      );
    }
  }

  private onReply(i: number, reply: WorkerReply): void {
    const run = this.running;
    if (run === null || reply.id !== run.id) return;
    run.waiting.delete(i);
    this.workers[i]?.unref();
    if (!reply.ok) {
      this.finish(new BackendFailedError('cpu', reply.message));
      return;
    }
    if (this.measuring) {
      const w = this.stats.workers[i];
      w.tasks += reply.tasks;
      w.cpuMs += reply.cpuNs === undefined ? NaN : reply.cpuNs / 1e6;
      if (run.waiting.size === 0) this.stats.jobs++;
    }
    if (run.waiting.size === 0) this.finish(null);
  }

  private onFailure(i: number, err: unknown): void {
    const w = this.workers[i];
    this.workers[i] = undefined;
    if (w !== undefined) void w.terminate();
    const run = this.running;
    if (run !== null && run.waiting.has(i)) {
      this.finish(
        new BackendFailedError('cpu', `worker failed: ${(err as Error)?.message ?? String(err)}`, {
          cause: err,
        }),
      );
    }
  }

  private finish(error: BackendFailedError | null): void {
    const run = this.running;
    if (run === null) return;
    this.running = null;
    for (const i of run.waiting) this.workers[i]?.unref();
    if (error) {
      // Workers still busy on the failed job finish into memory nobody reads; restart them to be safe.
      for (const i of run.waiting) {
        const w = this.workers[i];
        this.workers[i] = undefined;
        if (w !== undefined) void w.terminate();
      }
      run.pending.reject(error);
    } else run.pending.resolve();
    this.pump();
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    const err = new BackendFailedError('cpu', 'the backend was disposed');
    for (const p of this.queue.splice(0)) p.reject(err);
    if (this.running) {
      this.running.pending.reject(err);
      this.running = null;
    }
    const ws = this.workers.splice(0).filter((w): w is Worker => w !== undefined);
    await Promise.all(ws.map((w) => w.terminate()));
  }
}
