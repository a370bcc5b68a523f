// Worker thread of the CPU backend's pool: takes chunks of a job's tasks from the shared counter and runs
// them on the job's shared arrays. FFT plans are cached per worker (the fft module's cache).
import { openSync, readSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { runTasks } from './kernels.js';
import { useSimdModule } from './simd.js';
import type { WorkerReply, WorkerRequest } from './pool.js';

const port = parentPort;
if (port === null) throw new Error('the CPU backend worker must run in a worker thread');

/** This thread's CPU time in ns (Linux: /proc/thread-self/schedstat, kept open), or undefined elsewhere. */
let statFd: number | null | undefined;
const statBuf = Buffer.alloc(96);
function threadCpuNs(): number | undefined {
  if (statFd === undefined) {
    try {
      statFd = openSync('/proc/thread-self/schedstat', 'r');
    } catch {
      statFd = null;
    }
  }
  if (statFd === null) return undefined;
  const len = readSync(statFd, statBuf, 0, statBuf.length, 0);
  return Number(statBuf.toString('latin1', 0, len).split(' ')[0]);
}

port.on('message', (req: WorkerRequest) => {
  let reply: WorkerReply;
  try {
    if (req.simdModule !== undefined) useSimdModule(req.simdModule);
    const c0 = req.measure ? threadCpuNs() : undefined;
    let done = 0;
    for (;;) {
      const start = Atomics.add(req.counter, 0, req.chunk);
      if (start >= req.tasks) break;
      const end = Math.min(req.tasks, start + req.chunk);
      runTasks(req.job, start, end);
      done += end - start;
    }
    const c1 = c0 === undefined ? undefined : threadCpuNs();
    reply = {
      id: req.id,
      ok: true,
      tasks: done,
      cpuNs: c0 === undefined || c1 === undefined ? undefined : c1 - c0,
    };
  } catch (err) {
    reply = { id: req.id, ok: false, message: err instanceof Error ? err.message : String(err) };
  }
  port.postMessage(reply);
});
