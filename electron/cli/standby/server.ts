// A standby process: Node started, the file jobs' modules loaded and `auto`'s backend opened (for CUDA, the
// driver and its context, 0.3–0.5 s of every job's start otherwise), waiting on its socket for one job. It
// takes the first job whose environment is its own, stops listening, starts its successor, and runs the
// job as the CLI would in its own process — output relayed to the client, Ctrl-C from it, the client gone
// taken as a cancel (so the job's outputs are removed) — then sends the exit status and exits itself.

import { readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { availableParallelism } from 'node:os';
import { dirname } from 'node:path';
import type * as RunModule from '../run.js';
import { connectTo } from './client.js';
import { DEFAULT_IDLE_MS, startSuccessor } from './launch.js';
import { Frame, FrameReader, writeFrame, type JobRequest, type StandbyInfo } from './protocol.js';
import {
  differingVariables,
  environmentDigest,
  jobEnvironment,
  privateDirProblem,
  standbySocket,
  stoppedFile,
  warmingFile,
} from './paths.js';

/** When the next standby starts: while the job runs (ready sooner for the job after it), or once the job
 * has answered its client (so the two do not share the cores). PHASOR_STANDBY_NEXT=during|after; by
 * default during with 4 or more cores. */
function successorDuringJob(): boolean {
  const asked = process.env.PHASOR_STANDBY_NEXT;
  if (asked === 'during' || asked === 'after') return asked === 'during';
  return availableParallelism() >= 4;
}

/** Whether `phasor standby stop` ran since `since` (ms since the epoch): when `standby start` asked for this
 * standby, or when its predecessor took the job that started it. */
function stoppedSince(socketPath: string, since: number): boolean {
  try {
    return statSync(stoppedFile(socketPath)).mtimeMs >= since;
  } catch {
    return false;
  }
}

function log(line: string): void {
  process.stderr.write(`${new Date().toISOString()} standby ${process.pid}: ${line}\n`);
}

export async function serveStandby(args: string[]): Promise<void> {
  const arg = (name: string) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : undefined);
  const idleMs = arg('--idle') ?? DEFAULT_IDLE_MS;
  const since = arg('--since') ?? Date.now();
  const socketPath = standbySocket();
  const problem = privateDirProblem(dirname(socketPath), true);
  if (problem) {
    log(`${dirname(socketPath)} ${problem}`);
    process.exit(1);
  }
  const warming = warmingFile(socketPath);
  writeFileSync(warming, String(process.pid), { mode: 0o600 });
  const env = jobEnvironment(process.env);

  const run = await import('../run.js');
  await run.preloadJobs();
  let backend: string;
  try {
    const { prepareBackend } = await import('../../engine/backends/registry.js');
    const { jobBackend } = await import('../util.js');
    const { defaultCpuPrecision } = await import('../../engine/backends/cpu/precision.js');
    // what a job with the default --backend and --precision opens
    const [choice, options] = jobBackend({ backend: 'auto', precision: defaultCpuPrecision });
    const b = await prepareBackend(choice, options);
    backend = `${b.name} (${b.device})`;
  } catch (e) {
    backend = `none (${e instanceof Error ? e.message : String(e)})`;
  }

  if (stoppedSince(socketPath, since)) {
    log('`phasor standby stop` ran while it started; exiting');
    removeIfMine(warming);
    process.exit(0);
  }
  const server = createServer();
  if (!(await listenOnce(server, socketPath))) {
    log('another standby is waiting on the socket; exiting');
    removeIfMine(warming);
    process.exit(0);
  }
  const ino = statSync(socketPath).ino;
  removeIfMine(warming);
  if (stoppedSince(socketPath, since)) {
    // a stop between the check above and the listen: it found no socket to tell
    log('`phasor standby stop` ran while it started; exiting');
    server.close();
    unlinkSync(socketPath);
    process.exit(0);
  }
  const readySince = Date.now();
  const idleUntil = readySince + idleMs;
  const info = (): StandbyInfo => ({
    pid: process.pid,
    readySince,
    idleUntil,
    backend,
    env: environmentDigest(env),
  });
  log(`ready: ${backend}`);

  let taken = false;
  // closes the listening socket at once (server.close's callback would wait for the open connections)
  const stopListening = () => {
    server.close();
    // the path is unlinked only while it is still this standby's socket, never a successor's
    try {
      if (statSync(socketPath).ino === ino) unlinkSync(socketPath);
    } catch {
      /* gone already */
    }
  };
  const idle = setTimeout(() => {
    log('idle time is up; exiting');
    stopListening();
    process.exit(0);
  }, idleMs);

  server.on('connection', (socket: Socket) => {
    let job: ((kind: number) => void) | undefined;
    const reader = new FrameReader((kind, payload) => {
      if (job) return job(kind);
      if (kind === Frame.ping) {
        writeFrame(socket, Frame.hello, JSON.stringify(info()));
        socket.end();
      } else if (kind === Frame.stop) {
        taken = true;
        clearTimeout(idle);
        writeFrame(socket, Frame.hello, JSON.stringify(info()));
        log('stopped by `phasor standby stop`');
        stopListening();
        socket.end(() => process.exit(0));
      } else if (kind === Frame.job) {
        const request = JSON.parse(payload.toString()) as JobRequest;
        const differ = differingVariables(request.env, env);
        const why = taken
          ? 'it has taken another job'
          : differ.length
            ? `its environment differs in ${differ.slice(0, 8).join(', ')}${differ.length > 8 ? ', …' : ''}`
            : undefined;
        if (why) {
          writeFrame(socket, Frame.refuse, why);
          socket.end();
          return;
        }
        taken = true;
        clearTimeout(idle);
        stopListening();
        const takenAt = Date.now();
        const next = () => startSuccessor(idleMs, socketPath, takenAt);
        if (successorDuringJob()) next();
        job = runJob(request, socket, run, successorDuringJob() ? undefined : next);
      } else socket.destroy();
    });
    socket.on('data', (chunk: Buffer) => {
      try {
        reader.push(chunk);
      } catch {
        socket.destroy();
      }
    });
    socket.on('error', () => {});
  });
}

/** Listens on the path; a socket file left by a standby that died is replaced, a live one is not. */
async function listenOnce(server: Server, path: string): Promise<boolean> {
  const listen = () =>
    new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
      server.once('error', resolve);
      server.listen(path, () => {
        server.off('error', resolve);
        resolve(undefined);
      });
    });
  let err = await listen();
  if (err?.code === 'EADDRINUSE') {
    const live = await connectTo(path, 500);
    if (live) {
      live.destroy();
      return false;
    }
    unlinkSync(path);
    err = await listen();
  }
  if (err) throw err;
  return true;
}

function removeIfMine(path: string): void {
  try {
    if (readFileSync(path, 'utf8') === String(process.pid)) unlinkSync(path);
  } catch {
    /* gone already */
  }
}

type Run = typeof RunModule;

/** Runs the request as this process's only job, then `after` (once the client has its answer); returns the
 * handler of the frames that come during the job. */
function runJob(request: JobRequest, socket: Socket, run: Run, after?: () => void): (kind: number) => void {
  let finished = false;
  const relay =
    (kind: number) =>
    (
      chunk: string | Uint8Array,
      encoding?: BufferEncoding | ((e?: Error) => void),
      cb?: (e?: Error) => void,
    ) => {
      const bytes =
        typeof chunk === 'string'
          ? Buffer.from(chunk, typeof encoding === 'string' ? encoding : 'utf8')
          : chunk;
      if (bytes.length) writeFrame(socket, kind, bytes);
      (typeof encoding === 'function' ? encoding : cb)?.();
      return true;
    };
  process.stdout.write = relay(Frame.stdout) as typeof process.stdout.write;
  process.stderr.write = relay(Frame.stderr) as typeof process.stderr.write;
  Object.defineProperty(process.stdout, 'isTTY', { value: request.stdoutIsTTY, configurable: true });
  Object.defineProperty(process.stderr, 'isTTY', { value: request.stderrIsTTY, configurable: true });
  if (request.columns)
    Object.defineProperty(process.stderr, 'columns', { value: request.columns, configurable: true });
  // a client that goes away (killed, its terminal closed) cancels the job, as Ctrl-C would
  socket.on('close', () => {
    if (!finished) run.onSignal();
  });
  void (async () => {
    let code: number;
    try {
      process.chdir(request.cwd);
      process.umask(request.umask);
      writeFrame(socket, Frame.accept);
      code = await run.main(request.argv);
    } catch (e) {
      process.stderr.write(`phasor: ${e instanceof Error ? e.message : String(e)}\n`);
      code = 1;
    }
    run.cleanup();
    finished = true;
    writeFrame(socket, Frame.exit, JSON.stringify({ code }));
    socket.end();
    after?.();
    // this process's own teardown (the GPU's context, Node) happens after the client has its answer
    socket.once('close', () => process.exit(code));
    setTimeout(() => process.exit(code), 5000).unref();
  })();
  return (kind) => {
    if (kind === Frame.signal) run.onSignal();
  };
}
