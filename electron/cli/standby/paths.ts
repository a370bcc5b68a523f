// Where a standby process waits for jobs: a Unix socket in a folder only this user may enter, named after
// the build and the Node that run it, so a job never reaches a standby of another build or another user.
// The native client (native/client/phasor-client.c) finds the same socket the same way.

import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The hidden first argument that makes main.js a standby process. */
export const STANDBY_SERVE = '__standby';

/** The commands a standby runs; the others (serve, monitor, bench, standby) always run in their own process. */
export const STANDBY_COMMANDS: ReadonlySet<string> = new Set([
  'info',
  'peaks',
  'measure',
  'spectrogram',
  'psd',
  'filter',
  'correlate',
  'extract',
]);

/** PHASOR_STANDBY: `auto` (unset: the default) — file jobs go to a waiting standby, and a job that ran on
 * CUDA in its own process leaves one behind (auto.ts); `manual` — a standby is used when one waits, never
 * started by a job; `off` (or `0`) — never used. */
export type StandbyMode = 'auto' | 'manual' | 'off';

/** The PHASOR_STANDBY setting, or undefined for a value it does not know (an error of the job: run.ts). */
export function standbyMode(env: NodeJS.ProcessEnv = process.env): StandbyMode | undefined {
  const v = env.PHASOR_STANDBY;
  if (v === undefined || v === '' || v === 'auto') return 'auto';
  if (v === 'manual') return 'manual';
  if (v === 'off' || v === '0') return 'off';
  return undefined;
}

export const STANDBY_MODE_HELP = 'PHASOR_STANDBY must be auto (the default), manual or off';

/** Set by the native client when it runs the Node CLI in its place: the standby was asked already (or could
 * not be), so main.js does not ask again. */
export const STANDBY_TRIED = 'PHASOR_STANDBY_TRIED';

/** Environment variables that differ between shells without changing what a job does, and the clients'
 * switches (PHASOR_STANDBY, PHASOR_STANDBY_TRIED). */
const VOLATILE_ENV = new Set([
  'PWD',
  'OLDPWD',
  '_',
  'SHLVL',
  'COLUMNS',
  'LINES',
  'PHASOR_STANDBY',
  STANDBY_TRIED,
]);

/** The environment a job's result may depend on, as compared between a client and a standby. */
export function jobEnvironment(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of Object.keys(env).sort()) {
    const v = env[k];
    if (v !== undefined && !VOLATILE_ENV.has(k)) out[k] = v;
  }
  return out;
}

/** A digest of a job environment, to compare without sending it. */
export function environmentDigest(env: Record<string, string>): string {
  return createHash('sha256').update(JSON.stringify(env)).digest('hex').slice(0, 16);
}

/** The names of the variables set differently in two job environments (never their values). */
export function differingVariables(a: Record<string, string>, b: Record<string, string>): string[] {
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => a[k] !== b[k]).sort();
}

/** The CLI's compiled entry (dist/electron/cli/main.js). */
export const mainScript = fileURLToPath(new URL('../main.js', import.meta.url));

/** The folder of this user's standby sockets: $XDG_RUNTIME_DIR/phasor, else phasor-<uid> in the temporary
 * folder. */
export function standbyDir(env: NodeJS.ProcessEnv = process.env): string {
  const runtime = env.XDG_RUNTIME_DIR;
  if (runtime) return join(runtime, 'phasor');
  return join(tmpdir(), `phasor-${process.getuid?.() ?? 'user'}`);
}

/** FNV-1a (64 bits) of a text's UTF-8 bytes, as 16 hex digits: a key the native client computes alike
 * (what it names is private to the user; it only has to tell builds apart). */
export function fnv1a64(text: string): string {
  let h = 0xcbf29ce484222325n;
  for (const b of Buffer.from(text, 'utf8')) h = ((h ^ BigInt(b)) * 0x100000001b3n) & 0xffffffffffffffffn;
  return h.toString(16).padStart(16, '0');
}

/** The socket of the standby for this build and this Node (its binary: a new Node is another file). */
export function standbySocket(env: NodeJS.ProcessEnv = process.env): string {
  const built = statSync(mainScript, { bigint: true });
  const node = statSync(process.execPath, { bigint: true });
  const key = fnv1a64(
    [mainScript, built.mtimeNs, built.ino, process.execPath, node.mtimeNs, node.ino].join('\0'),
  );
  return join(standbyDir(env), `standby-${key}.sock`);
}

/** A file beside the socket holding the pid of a standby that is starting (not listening yet). */
export const warmingFile = (socketPath: string) => `${socketPath}.starting`;
/** The standbys' shared log (their own errors; a job's output goes to its client). */
export const logFile = (socketPath: string) => `${socketPath}.log`;
/** Written by `phasor standby stop`: a standby that started before it exits instead of listening. */
export const stoppedFile = (socketPath: string) => `${socketPath}.stopped`;

/** The pid of a standby that is starting (not listening yet), if one is. */
export function startingStandby(socketPath: string): number | undefined {
  try {
    const pid = Number(readFileSync(warmingFile(socketPath), 'utf8'));
    // a pid left by a standby that was killed may belong to another process by now
    if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(STANDBY_SERVE)) return undefined;
    return pid;
  } catch {
    return undefined;
  }
}

/** Why the folder may not hold a standby's socket (another owner, open to others, a link), or undefined if
 * it is fine; `create` makes it (mode 0700) when missing. */
export function privateDirProblem(dir: string, create: boolean): string | undefined {
  if (create) mkdirSync(dir, { recursive: true, mode: 0o700 });
  let st;
  try {
    st = lstatSync(dir);
  } catch {
    return 'does not exist';
  }
  if (!st.isDirectory()) return 'is not a folder';
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) return `belongs to user ${st.uid}, not to this user (${uid})`;
  if ((st.mode & 0o077) !== 0) return `may be entered by other users (mode ${(st.mode & 0o777).toString(8)})`;
  return undefined;
}
