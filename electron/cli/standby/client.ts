// The client side of a standby: a file job's command line goes to the waiting standby process, whose
// output comes back here as it is written, with its exit status; Ctrl-C and SIGTERM are passed on. When no
// standby waits (or it refuses the job: busy, another environment), the caller runs the job itself.

import { existsSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { dirname } from 'node:path';
import { Frame, readFrames, writeFrame, type JobRequest, type StandbyInfo } from './protocol.js';
import {
  jobEnvironment,
  privateDirProblem,
  STANDBY_COMMANDS,
  standbyMode,
  standbySocket,
  startingStandby,
} from './paths.js';

/** Whether this command line may go to a standby: a file job, a plain `node main.js` and not turned off (a
 * PHASOR_STANDBY it does not know runs here, where the job says so). */
function wanted(argv: readonly string[]): boolean {
  const mode = standbyMode();
  if (mode === undefined || mode === 'off') return false;
  if (process.execArgv.length > 0) return false; // profiling or loader flags apply to this process only
  const command = argv.find((a) => !a.startsWith('-'));
  return command !== undefined && STANDBY_COMMANDS.has(command);
}

/** Connects to the socket, or undefined when nothing listens there. */
export function connectTo(path: string, timeoutMs = 1000): Promise<Socket | undefined> {
  return new Promise((resolve) => {
    const socket = connect(path);
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(undefined);
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      resolve(socket);
    });
    socket.once('error', () => {
      clearTimeout(timer);
      resolve(undefined);
    });
  });
}

/** Asks the standby on the socket who it is (a ping) or tells it to stop (`why`: for its log); its answer,
 * or undefined when none answers within timeoutMs. */
export async function askStandby(
  path: string,
  kind: number = Frame.ping,
  { timeoutMs = 2000, why = '' }: { timeoutMs?: number; why?: string } = {},
): Promise<StandbyInfo | undefined> {
  if (!existsSync(path)) return undefined;
  const socket = await connectTo(path);
  if (!socket) return undefined;
  return new Promise((resolve) => {
    let info: StandbyInfo | undefined;
    const timer = setTimeout(() => socket.destroy(), timeoutMs);
    readFrames(socket, (k, payload) => {
      if (k === Frame.hello) info = JSON.parse(payload.toString()) as StandbyInfo;
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(info);
    });
    writeFrame(socket, kind, why);
  });
}

/** Waits (up to 3 s) for a standby that is starting (`phasor standby start` run a moment ago): starting Node
 * and a GPU here would take as long, and open a second context beside it. */
async function startedSoon(path: string): Promise<boolean> {
  const deadline = Date.now() + 3000;
  while (startingStandby(path) !== undefined && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 10));
    if (existsSync(path)) return true;
  }
  return existsSync(path);
}

/** Runs the job on this user's standby for this build: its exit status, or undefined to run it here. */
export async function viaStandby(argv: string[]): Promise<number | undefined> {
  if (!wanted(argv)) return undefined;
  const path = standbySocket();
  if (!existsSync(path) && !(await startedSoon(path))) return undefined;
  const problem = privateDirProblem(dirname(path), false);
  if (problem) {
    process.stderr.write(`phasor: warning: ${dirname(path)} ${problem}; its standby is not used\n`);
    return undefined;
  }
  const socket = await connectTo(path);
  if (!socket) return undefined;
  const request: JobRequest = {
    argv,
    cwd: process.cwd(),
    env: jobEnvironment(process.env),
    umask: process.umask(),
    stdoutIsTTY: !!process.stdout.isTTY,
    stderrIsTTY: !!process.stderr.isTTY,
    ...(process.stderr.columns ? { columns: process.stderr.columns } : {}),
  };
  return relay(socket, request);
}

function relay(socket: Socket, request: JobRequest): Promise<number | undefined> {
  return new Promise((resolve) => {
    let accepted = false;
    let signals = 0;
    let settled = false;
    const forward = () => {
      signals++;
      writeFrame(socket, Frame.signal, 'SIGINT');
    };
    const done = (code: number | undefined) => {
      if (settled) return;
      settled = true;
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      process.off('SIGHUP', forward);
      socket.destroy();
      // what was written to stdout and stderr is out before the caller exits
      process.stdout.write('', () => process.stderr.write('', () => resolve(code)));
    };
    const out = (stream: NodeJS.WriteStream, bytes: Buffer) => {
      if (stream.destroyed) return; // its reader went away (main.ts): the rest is dropped
      if (!stream.write(bytes)) {
        socket.pause();
        stream.once('drain', () => socket.resume());
        stream.once('close', () => socket.resume());
      }
    };
    readFrames(socket, (kind, payload) => {
      if (kind === Frame.accept) accepted = true;
      else if (kind === Frame.stdout) out(process.stdout, payload);
      else if (kind === Frame.stderr) out(process.stderr, payload);
      else if (kind === Frame.exit) done((JSON.parse(payload.toString()) as { code: number }).code);
      else if (kind === Frame.refuse && !accepted) {
        // one busy with another job is as if there were none; one of another environment is not what the
        // user who started it expects: say why this job runs without it
        const { reason, warn } = JSON.parse(payload.toString()) as { reason: string; warn: boolean };
        if (warn) process.stderr.write(`phasor: warning: the standby was not used: ${reason}\n`);
        done(undefined);
      }
    });
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    process.on('SIGHUP', forward);
    socket.on('close', () => {
      if (settled) return;
      if (!accepted) return done(undefined); // it ended before taking the job (its idle time was up)
      if (signals > 0) return done(130);
      process.stderr.write(
        'phasor: the standby process ended before the job did (its log is beside its socket)\n',
      );
      done(1);
    });
    writeFrame(socket, Frame.job, JSON.stringify(request));
  });
}
