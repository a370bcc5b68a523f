// Runs the real `phasor` CLI (bin/phasor.js → dist/, built by `npm test` before the tests run), or the
// `phasor` command as installed (bin/phasor: the native client where built, see buildNativeClient).
import { spawn, spawnSync, type ChildProcessByStdio } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../..', import.meta.url));
export const phasorBin = join(root, 'bin', 'phasor.js');
/** The installed command's launcher: the native client when it is built, else Node. */
export const phasorCommand = join(root, 'bin', 'phasor');

/** Builds the native client (native/build/client, as npm install does) for tests that run bin/phasor. */
export function buildNativeClient(): void {
  const r = spawnSync(process.execPath, [join(root, 'native', 'client', 'build.mjs')], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`native/client/build.mjs failed: ${r.stderr}${r.stdout}`);
}

/** How a test starts phasor: `node` runs bin/phasor.js with this Node; `native`, bin/phasor with this Node
 * first on PATH (the native client runs the `node` on PATH, and names its standby after it). */
export type Launcher = 'node' | 'native';

/** Spawns phasor with pipes for stdout and stderr (a standby the developer started is not used unless the
 * test's environment asks for it). */
export function spawnCli(
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; launcher?: Launcher } = {},
): ChildProcessByStdio<null, Readable, Readable> {
  const env: NodeJS.ProcessEnv = { ...process.env, PHASOR_STANDBY: 'off', ...options.env };
  const native = options.launcher === 'native';
  const bin = dirname(process.execPath);
  if (native && !env.PATH?.startsWith(bin + delimiter)) env.PATH = `${bin}${delimiter}${env.PATH ?? ''}`;
  return spawn(native ? phasorCommand : process.execPath, native ? args : [phasorBin, ...args], {
    cwd: options.cwd ?? root,
    env,
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
  options: { cwd?: string; env?: NodeJS.ProcessEnv; launcher?: Launcher } = {},
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
