// A standby process: Node started, the file jobs' modules loaded and `auto`'s backend opened (for CUDA, the
// driver and its context, 0.3–0.5 s of every job's start otherwise), waiting on its socket for jobs. It runs
// one job at a time from clients of its own environment, as the CLI would in its own process — output
// relayed to the client, Ctrl-C from it, the client gone taken as a cancel (so the job's outputs are
// removed) — and opens the next job's backend while it waits again. It exits after its idle time, on
// `phasor standby stop`, or with a job that a second Ctrl-C ends at once.

import { readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { dirname } from 'node:path';
import type * as RunModule from '../run.js';
import { connectTo } from './client.js';
import { DEFAULT_IDLE_MS } from './launch.js';
import { Frame, readFrames, writeFrame, type JobRequest, type StandbyInfo } from './protocol.js';
import {
  differingVariables,
  environmentDigest,
  jobEnvironment,
  privateDirProblem,
  STANDBY_COMMANDS,
  standbySocket,
  stoppedFile,
  warmingFile,
} from './paths.js';

/** Whether `phasor standby stop` ran since `since` (ms since the epoch), when `standby start` asked for this
 * standby: one that is still starting then exits instead of listening. */
function stoppedSince(socketPath: string, since: number): boolean {
  try {
    return statSync(stoppedFile(socketPath)).mtimeMs >= since;
  } catch {
    return false;
  }
}

function log(line: string): void {
  original.stderr(`${new Date().toISOString()} standby ${process.pid}: ${line}\n`);
}

type Write = typeof process.stdout.write;
/** The process's own stdout and stderr (the standby's log); a job's output goes to its client instead. */
const original = {
  stdout: process.stdout.write.bind(process.stdout) as (s: string) => boolean,
  stderr: process.stderr.write.bind(process.stderr) as (s: string) => boolean,
};

export async function serveStandby(args: string[]): Promise<void> {
  const arg = (name: string) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : undefined);
  const idleMs = arg('--idle') ?? DEFAULT_IDLE_MS;
  const auto = args.includes('--auto');
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
  const { prepareBackend } = await import('../../engine/backends/registry.js');
  const { jobBackend } = await import('../util.js');
  const { defaultCpuPrecision } = await import('../../engine/backends/cpu/precision.js');
  let backend = 'none';
  // what a job with the default --backend and --precision opens, opened before the job comes
  const prepare = async () => {
    try {
      const b = await prepareBackend(...jobBackend({ backend: 'auto', precision: defaultCpuPrecision }));
      backend = `${b.name} (${b.device})`;
    } catch (e) {
      backend = `none (${e instanceof Error ? e.message : String(e)})`;
    }
  };
  // one a job started opens its GPU once that job's process is gone: the job's exit (its context's
  // teardown in the driver) does not wait behind this one's start
  const after = arg('--after');
  if (after !== undefined) await untilGone(after, 5000);
  let prepared = prepare();
  await prepared;

  const exit = (why: string, code = 0): never => {
    log(why);
    removeIfMine(warming);
    process.exit(code);
  };
  if (stoppedSince(socketPath, since)) exit('`phasor standby stop` ran while it started; exiting');
  const server = createServer();
  if (!(await listenOnce(server, socketPath))) exit('another standby is waiting on the socket; exiting');
  const ino = statSync(socketPath).ino;
  removeIfMine(warming);
  // closes the listening socket at once (server.close's callback would wait for the open connections)
  const stopListening = () => {
    server.close();
    // the path is unlinked only while it is still this standby's socket
    try {
      if (statSync(socketPath).ino === ino) unlinkSync(socketPath);
    } catch {
      /* gone already */
    }
  };
  // a stop between the check above and the listen found no socket to tell
  if (stoppedSince(socketPath, since)) {
    stopListening();
    exit('`phasor standby stop` ran while it started; exiting');
  }

  const readySince = Date.now();
  let idleUntil = 0;
  let idle: NodeJS.Timeout | undefined;
  const waitIdle = () => {
    idleUntil = Date.now() + idleMs;
    idle = setTimeout(() => {
      stopListening();
      exit('idle time is up; exiting');
    }, idleMs);
  };
  waitIdle();
  let jobs = 0;
  let busy = false;
  let stopping: string | undefined; // why it stops, once told to
  const info = (): StandbyInfo => ({
    pid: process.pid,
    readySince,
    idleUntil: busy ? 0 : idleUntil,
    backend,
    auto,
    env: environmentDigest(env),
    jobs,
    rssMiB: Math.round(process.memoryUsage().rss / 2 ** 20),
  });
  log(`ready: ${backend}${auto ? ' (started after a job)' : ''}`);

  server.on('connection', (socket: Socket) => {
    let onFrame: ((kind: number) => void) | undefined;
    readFrames(socket, (kind, payload) => {
      if (onFrame) return onFrame(kind);
      if (kind === Frame.ping) {
        writeFrame(socket, Frame.hello, JSON.stringify(info()));
        socket.end();
      } else if (kind === Frame.stop) {
        const why = payload.length ? payload.toString() : 'stopped by `phasor standby stop`';
        stopping = why;
        stopListening();
        writeFrame(socket, Frame.hello, JSON.stringify(info()));
        // a job it is running finishes first
        socket.end(() => {
          if (!busy) exit(why);
        });
      } else if (kind === Frame.job) {
        const request = JSON.parse(payload.toString()) as JobRequest;
        const differ = differingVariables(request.env, env);
        const refuse = (reason: string, warn: boolean) => {
          writeFrame(socket, Frame.refuse, JSON.stringify({ reason, warn }));
          socket.end();
        };
        if (busy) return refuse('it is running another job', false);
        const command = request.argv.find((a) => !a.startsWith('-'));
        if (command === undefined || !STANDBY_COMMANDS.has(command)) {
          return refuse(`it runs file jobs only (${[...STANDBY_COMMANDS].join(', ')})`, false);
        }
        if (differ.length) {
          // the user who started this one is told why it is not used; one a job started is replaced by the
          // client after its job, without a word (auto.ts)
          const names = `${differ.slice(0, 8).join(', ')}${differ.length > 8 ? ', …' : ''}`;
          return refuse(
            `its environment differs in ${names} (phasor standby start makes one for this environment)`,
            !auto,
          );
        }
        busy = true;
        clearTimeout(idle);
        onFrame = (k) => {
          if (k === Frame.signal) run.onSignal();
        };
        void (async () => {
          await prepared;
          await runJob(request, socket, run);
          jobs++;
          busy = false;
          if (stopping !== undefined) exit(stopping);
          prepared = prepare();
          waitIdle();
        })();
      } else socket.destroy();
    });
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

/** Resolves once process `pid` has exited (gone, or a zombie its parent has not reaped yet), or after
 * timeoutMs. */
async function untilGone(pid: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2))) return;
    } catch {
      return;
    }
    if (Date.now() > deadline) return;
    await new Promise((r) => setTimeout(r, 2));
  }
}

function removeIfMine(path: string): void {
  try {
    if (readFileSync(path, 'utf8') === String(process.pid)) unlinkSync(path);
  } catch {
    /* gone already */
  }
}

type Run = typeof RunModule;

/** Runs one job as the CLI would in a process of its own, its output relayed to the client. */
async function runJob(request: JobRequest, socket: Socket, run: Run): Promise<void> {
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
      if (bytes.length && !socket.destroyed) writeFrame(socket, kind, bytes);
      (typeof encoding === 'function' ? encoding : cb)?.();
      return true;
    };
  const tty = (stream: NodeJS.WriteStream, isTTY: boolean, columns?: number) => {
    Object.defineProperty(stream, 'isTTY', { value: isTTY, configurable: true, writable: true });
    Object.defineProperty(stream, 'columns', { value: columns, configurable: true, writable: true });
  };
  process.stdout.write = relay(Frame.stdout) as Write;
  process.stderr.write = relay(Frame.stderr) as Write;
  tty(process.stdout, request.stdoutIsTTY);
  tty(process.stderr, request.stderrIsTTY, request.columns);
  const { renewInterrupt } = await import('../interrupt.js');
  renewInterrupt();
  // a client that goes away (killed, its terminal closed) cancels the job, as Ctrl-C would
  const gone = () => {
    if (!finished) run.onSignal();
  };
  socket.on('close', gone);
  let code: number;
  try {
    process.chdir(request.cwd);
    process.umask(request.umask);
    writeFrame(socket, Frame.accept);
    code = await run.main(request.argv, { standby: true });
  } catch (e) {
    process.stderr.write(`phasor: ${e instanceof Error ? e.message : String(e)}\n`);
    code = 1;
  }
  run.cleanup();
  finished = true;
  socket.off('close', gone);
  process.stdout.write = original.stdout as Write;
  process.stderr.write = original.stderr as Write;
  tty(process.stdout, false);
  tty(process.stderr, false);
  process.chdir('/');
  writeFrame(socket, Frame.exit, JSON.stringify({ code }));
  socket.end();
}
