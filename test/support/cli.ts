// Runs the real `phasor` CLI (bin/phasor.js → dist/, built by `npm test` before the tests run).
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../..', import.meta.url));
export const phasorBin = join(root, 'bin', 'phasor.js');

/** Spawns phasor with pipes for stdout and stderr (a standby the developer started is not used unless the
 * test's environment asks for it). */
export function spawnCli(
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): ChildProcessByStdio<null, Readable, Readable> {
  return spawn(process.execPath, [phasorBin, ...args], {
    cwd: options.cwd ?? root,
    env: { ...process.env, PHASOR_STANDBY: 'off', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export function runCli(
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawnCli(args, options);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** A fresh temporary folder, removed by the returned function. */
export function tempDir(prefix = 'phasor-test-'): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Waits (up to 20 s) until a job's temporary output appears in the folder: the job is writing. */
export async function untilWriting(dir: string): Promise<void> {
  const started = Date.now();
  while (!readdirSync(dir).some((e) => e.endsWith('.tmp')) && Date.now() - started < 20000) {
    await new Promise((r) => setTimeout(r, 5));
  }
}
