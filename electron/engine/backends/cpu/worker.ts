// Worker thread of the CPU backend's pool: takes chunks of a job's tasks from the shared counter and runs
// them on the job's shared arrays. FFT plans are cached per worker (the fft module's cache).
import { parentPort } from 'node:worker_threads';
import { runTasks } from './kernels.js';
import type { WorkerReply, WorkerRequest } from './pool.js';

const port = parentPort;
if (port === null) throw new Error('the CPU backend worker must run in a worker thread');

port.on('message', (req: WorkerRequest) => {
  let reply: WorkerReply;
  try {
    for (;;) {
      const start = Atomics.add(req.counter, 0, req.chunk);
      if (start >= req.tasks) break;
      runTasks(req.job, start, Math.min(req.tasks, start + req.chunk));
    }
    reply = { id: req.id, ok: true };
  } catch (err) {
    reply = { id: req.id, ok: false, message: err instanceof Error ? err.message : String(err) };
  }
  port.postMessage(reply);
});
