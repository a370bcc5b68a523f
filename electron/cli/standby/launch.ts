// Starting a standby process (server.ts is what runs in it), for `phasor standby start`.

import { closeSync, openSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { dirname } from 'node:path';
import { logFile, mainScript, STANDBY_SERVE } from './paths.js';

/** How long a standby waits for a job before it exits, unless `phasor standby start --idle` says. */
export const DEFAULT_IDLE_MS = 15 * 60_000;

/** Starts a standby, detached, writing to the shared log; a `phasor standby stop` after `since` (ms since
 * the epoch) ends it before it listens. */
export function startStandby(idleMs: number, socketPath: string, since: number): number | undefined {
  const out = openSync(logFile(socketPath), 'a', 0o600);
  try {
    const child = spawn(
      process.execPath,
      [mainScript, STANDBY_SERVE, '--idle', String(idleMs), '--since', String(since)],
      {
        detached: true,
        stdio: ['ignore', out, out],
        cwd: dirname(socketPath),
        env: process.env,
      },
    );
    child.unref();
    return child.pid;
  } finally {
    closeSync(out);
  }
}
