// Shared pieces of the CLI: option parsing, output helpers, the progress bar, cancellation.

import { InvalidArgumentError, oneLine, type PhasorWarning } from '../engine/errors.js';
import { openSource } from '../engine/io/index.js';
import type { SampleSource } from '../engine/sources/source.js';
import { openBackend } from '../engine/backends/registry.js';
import type { CpuPrecision } from '../engine/backends/cpu/precision.js';
import type { Backend, BackendName } from '../engine/backends/backend.js';

/** Options every file command accepts. */
export interface FileOptions {
  format?: string;
  rate?: number;
  center?: number;
  iq?: boolean;
  backend: string;
  /** The CPU backend's arithmetic (--precision). */
  precision?: CpuPrecision;
  json?: boolean;
}

const SI: Record<string, number> = { k: 1e3, K: 1e3, M: 1e6, G: 1e9 };

/** A frequency or rate: plain number or with an SI suffix (48k, 2.4M, 100.1MHz). */
export function parseHz(text: string, name: string): number {
  const m = /^\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*([kKMG])?\s*(?:Hz)?\s*$/.exec(text);
  if (!m) throw new InvalidArgumentError(`${name} must be a number in Hz (e.g. 48000, 2.4M), got "${text}"`);
  return Number(m[1]) * (m[2] ? SI[m[2]] : 1);
}

export function parseIntOption(text: string, name: string, min: number): number {
  const v = Number(text);
  if (!Number.isInteger(v) || v < min)
    throw new InvalidArgumentError(`${name} must be a whole number ≥ ${min}, got "${text}"`);
  return v;
}

export function parseNumber(text: string, name: string): number {
  const v = Number(text);
  if (text.trim() === '' || !Number.isFinite(v))
    throw new InvalidArgumentError(`${name} must be a number, got "${text}"`);
  return v;
}

/** "F1:F2" → [F1, F2] (each with optional SI suffix). */
export function parsePair(text: string, name: string): [number, number] {
  const parts = text.split(':');
  if (parts.length !== 2)
    throw new InvalidArgumentError(`${name} takes two values as LOW:HIGH, got "${text}"`);
  return [parseHz(parts[0], name), parseHz(parts[1], name)];
}

/** A warning on one escaped line, as errors are (formatError). */
export function warn(w: PhasorWarning): void {
  process.stderr.write(`phasor: warning: ${w.file ? `${oneLine(w.file)}: ` : ''}${oneLine(w.message)}\n`);
}

export async function openInput(path: string, opts: FileOptions): Promise<SampleSource> {
  if (opts.rate !== undefined && !(opts.rate > 0)) {
    throw new InvalidArgumentError(`--rate must be a positive number of Hz, got ${opts.rate}`);
  }
  return openSource(path, {
    ...(opts.format !== undefined ? { format: opts.format } : {}),
    ...(opts.rate !== undefined ? { rate: opts.rate } : {}),
    ...(opts.center !== undefined ? { center: opts.center } : {}),
    ...(opts.iq ? { iq: true } : {}),
    onWarning: warn,
  });
}

/** The backend the last job of this process opened (each job opens one). */
let lastBackend: Backend | undefined;

/** The backend the last job ran on at its end (after a failover, the one the work moved to), with the
 * GPU's compute mode for CUDA: whether a job leaves a standby behind (standby/auto.ts). */
export function jobBackendUsed(): { name: BackendName; computeMode?: string } | undefined {
  if (!lastBackend) return undefined;
  const mode = lastBackend.details?.computeMode;
  return { name: lastBackend.name, ...(mode !== undefined ? { computeMode: String(mode) } : {}) };
}

/** The backend for a job on inputs already open: when it cannot be opened (unavailable, a refused
 * --precision), the inputs are closed before the error goes up, so no file handle is left to the GC. */
export async function getBackend(opts: FileOptions, ...inputs: SampleSource[]): Promise<Backend> {
  // the inputs are read into the OS's cache while the backend starts (a GPU's driver and context take a
  // few hundred ms) and then ahead of the job until it closes them: a file not cached yet is already
  // being read when the job starts, and the disk keeps reading while the job computes what is cached
  const started = new AbortController();
  for (const s of inputs) void s.prefetch?.(started.signal);
  try {
    lastBackend = await openBackend(...jobBackend(opts));
    return lastBackend;
  } catch (e) {
    started.abort();
    await Promise.all(inputs.map((s) => s.close()));
    throw e;
  }
}

/** What a job opens for its --backend and --precision (a standby opens the default ahead of its job). */
export function jobBackend(
  opts: Pick<FileOptions, 'backend' | 'precision'>,
): [string, { onWarning: typeof warn; cpuPrecision?: CpuPrecision }] {
  return [
    backendForPrecision(opts.backend, opts.precision),
    { onWarning: warn, ...(opts.precision ? { cpuPrecision: opts.precision } : {}) },
  ];
}

/** The backend to open for --backend and --precision: double precision exists on the CPU backend only. */
export function backendForPrecision(backend: string, precision: CpuPrecision | undefined): string {
  if (precision !== 'double') return backend;
  if (backend === 'auto' || backend === 'cpu') return 'cpu';
  throw new InvalidArgumentError(
    `--precision double needs the cpu backend; ${backend} computes in float32 (use --backend cpu or leave --backend out)`,
  );
}

/** Writes JSON to stdout (the only thing --json prints there). */
export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + '\n');
}

export { interrupt } from './interrupt.js';

/** A progress bar on stderr, drawn only when stderr is a terminal. */
export class Progress {
  private readonly enabled = !!process.stderr.isTTY;
  private readonly started = performance.now();
  private last = 0;

  constructor(
    private readonly label: string,
    private readonly bytesPerFrame = 0,
  ) {}

  update(done: number, total: number | undefined): void {
    if (!this.enabled) return;
    const now = performance.now();
    if (now - this.last < 100 && done !== total) return;
    this.last = now;
    const secs = (now - this.started) / 1000;
    const rate = secs > 0 ? done / secs : 0;
    const width = 30;
    let line = `${this.label} `;
    if (total && total > 0) {
      const frac = Math.min(1, done / total);
      const filled = Math.round(frac * width);
      const eta = rate > 0 ? (total - done) / rate : 0;
      line += `[${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${(frac * 100).toFixed(0).padStart(3)}%`;
      line += `  ${formatRate(rate, this.bytesPerFrame)}  ETA ${formatSeconds(eta)}`;
    } else {
      line += `${done} frames  ${formatRate(rate, this.bytesPerFrame)}`;
    }
    process.stderr.write(`\r${line}\x1b[K`);
  }

  done(): void {
    if (this.enabled) process.stderr.write('\r\x1b[K');
  }
}

function formatRate(framesPerSecond: number, bytesPerFrame: number): string {
  if (bytesPerFrame > 0) return `${((framesPerSecond * bytesPerFrame) / 1e6).toFixed(1)} MB/s`;
  return `${(framesPerSecond / 1e6).toFixed(2)} Msamples/s`;
}

function formatSeconds(s: number): string {
  if (!Number.isFinite(s)) return '?';
  if (s < 60) return `${s.toFixed(0)} s`;
  return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
}

/** Pads columns of a small table for people. */
export function table(header: string[], rows: Array<Array<string | number>>): string {
  const cells = [header, ...rows.map((r) => r.map(String))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => r[i]?.length ?? 0)));
  return (
    cells
      .map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  '))
      .join('\n') + '\n'
  );
}

/** "key   value" lines for people. */
export function keyValues(rows: Array<[string, string]>): string {
  const w = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${k.padEnd(w)}  ${v}`).join('\n') + '\n';
}
