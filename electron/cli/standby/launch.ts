// Starting a standby process (server.ts is what runs in it), for `phasor standby start` and after a job
// (auto.ts).

import { closeSync, openSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { dirname } from 'node:path';
import { logFile, mainScript, STANDBY_SERVE, warmingFile } from './paths.js';

/** How long a standby waits for a job before it exits, unless `phasor standby start --idle` says. */
export const DEFAULT_IDLE_MS = 15 * 60_000;

/** Starts a standby, detached, writing to the shared log, and returns at once (it is ready 0.1–1 s later);
 * a `phasor standby stop` after `since` (ms since the epoch) ends it before it listens. `auto`: started by
 * a job, not by the user (its status says so; a job of another environment replaces it without a word). */
export function startStandby(
  idleMs: number,
  socketPath: string,
  since: number,
  auto = false,
): number | undefined {
  const out = openSync(logFile(socketPath), 'a', 0o600);
  try {
    const child = spawn(
      process.execPath,
      [
        mainScript,
        STANDBY_SERVE,
        '--idle',
        String(idleMs),
        '--since',
        String(since),
        ...(auto ? ['--auto', '--after', String(process.pid)] : []),
      ],
      {
        detached: true,
        stdio: ['ignore', out, out],
        cwd: dirname(socketPath),
        env: process.env,
      },
    );
    child.on('error', () => undefined); // one that did not start is not there: the caller finds none
    child.unref();
    // it says so itself once Node has started; written here too, a job that starts meanwhile waits for it
    // rather than starting a GPU beside it
    if (child.pid !== undefined) writeFileSync(warmingFile(socketPath), String(child.pid), { mode: 0o600 });
    return child.pid;
  } finally {
    closeSync(out);
  }
}
