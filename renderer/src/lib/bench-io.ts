// Benchmark runs out of the app and back in: JSON (the engine's BenchResult as is) and CSV (one row per
// measurement, the machine in `#` comment lines), and two runs joined by (backend, op, size) to compare
// machines side by side.

import type {
  BenchResult,
  BenchRowInfo,
  DeviceBenchRowInfo,
  DeviceTimerInfo,
} from '../../../electron/engine/protocol/messages.js';

export class BenchFileError extends Error {
  override name = 'BenchFileError';
}

export const CSV_COLUMNS = [
  'backend',
  'op',
  'size',
  'batch',
  'samples',
  'median_ms',
  'msamples_per_s',
  'gflops',
  'rel_error',
  'vs_cpu',
] as const;

const MACHINE_KEYS = ['date', 'cpu', 'threads', 'node', 'platform'] as const;

function csvField(v: string | number | undefined): string {
  if (v === undefined || (typeof v === 'number' && !Number.isFinite(v))) return '';
  const s = String(v);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function benchToCsv(run: BenchResult): string {
  const lines = ['# phasor bench'];
  for (const k of MACHINE_KEYS) lines.push(`# ${k}: ${String(run.machine[k]).replace(/\n/g, ' ')}`);
  lines.push(CSV_COLUMNS.join(','));
  for (const r of run.rows) {
    lines.push(
      [
        r.backend,
        r.op,
        r.size,
        r.batch,
        r.samples,
        r.medianMs,
        r.samplesPerSecond / 1e6,
        r.gflops,
        r.relError,
        r.vsCpu,
      ]
        .map(csvField)
        .join(','),
    );
  }
  return lines.join('\n') + '\n';
}

export function benchToJson(run: BenchResult): string {
  return JSON.stringify(run, null, 2) + '\n';
}

/** Splits one CSV line (quotes with doubled quotes inside). */
function splitCsv(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cur += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out;
}

function num(v: unknown, what: string, optional: true): number | undefined;
function num(v: unknown, what: string, optional?: false): number;
function num(v: unknown, what: string, optional = false): number | undefined {
  if ((v === undefined || v === '' || v === null) && optional) return undefined;
  const x = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : NaN;
  // JSON has no Infinity: an error that overflowed comes back as null (optional) or a string.
  if (Number.isNaN(x)) throw new BenchFileError(`${what} is not a number (${JSON.stringify(v)})`);
  return x;
}

function checkRow(r: unknown, i: number): BenchRowInfo {
  if (!r || typeof r !== 'object') throw new BenchFileError(`row ${i + 1} is not an object`);
  const o = r as Record<string, unknown>;
  if (typeof o.backend !== 'string' || typeof o.op !== 'string') {
    throw new BenchFileError(`row ${i + 1} has no backend or op`);
  }
  const row: BenchRowInfo = {
    backend: o.backend,
    op: o.op,
    size: num(o.size, `row ${i + 1} size`),
    batch: num(o.batch ?? 1, `row ${i + 1} batch`),
    samples: num(o.samples ?? 0, `row ${i + 1} samples`),
    medianMs: num(o.medianMs, `row ${i + 1} medianMs`, true) ?? NaN,
    samplesPerSecond: num(o.samplesPerSecond, `row ${i + 1} samplesPerSecond`),
    relError: num(o.relError ?? Infinity, `row ${i + 1} relError`),
  };
  const g = num(o.gflops, `row ${i + 1} gflops`, true);
  if (g !== undefined) row.gflops = g;
  const v = num(o.vsCpu, `row ${i + 1} vsCpu`, true);
  if (v !== undefined) row.vsCpu = v;
  return row;
}

const DEVICE_OPTIONAL = ['gbPerSecond', 'ofCopy', 'ofHostToDevice', 'vsReference', 'vsCuda'] as const;

function checkDeviceRow(r: unknown, i: number): DeviceBenchRowInfo {
  const what = `device row ${i + 1}`;
  if (!r || typeof r !== 'object') throw new BenchFileError(`${what} is not an object`);
  const o = r as Record<string, unknown>;
  if (typeof o.backend !== 'string' || typeof o.op !== 'string') {
    throw new BenchFileError(`${what} has no backend or op`);
  }
  const row: DeviceBenchRowInfo = {
    backend: o.backend,
    op: o.op,
    size: num(o.size, `${what} size`),
    batch: num(o.batch ?? 1, `${what} batch`),
    timing: o.timing === 'end-to-end' ? 'end-to-end' : 'kernel',
    ms: num(o.ms, `${what} ms`),
    samplesPerSecond: num(o.samplesPerSecond, `${what} samplesPerSecond`),
    relError: num(o.relError ?? Infinity, `${what} relError`),
  };
  for (const k of DEVICE_OPTIONAL) {
    const v = num(o[k], `${what} ${k}`, true);
    if (v !== undefined) row[k] = v;
  }
  if (typeof o.note === 'string') row.note = o.note;
  return row;
}

function checkTimer(t: unknown): DeviceTimerInfo | null {
  if (!t || typeof t !== 'object') return null;
  const o = t as Record<string, unknown>;
  if (typeof o.backend !== 'string') return null;
  const info: DeviceTimerInfo = { backend: o.backend };
  if (typeof o.method === 'string') info.method = o.method;
  if (typeof o.missing === 'string') info.missing = o.missing;
  return info;
}

function parseJsonRun(text: string): BenchResult {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new BenchFileError(`not valid JSON (${e instanceof Error ? e.message : String(e)})`);
  }
  const o = json as Partial<BenchResult> | null;
  if (!o || typeof o !== 'object' || !Array.isArray(o.rows)) {
    throw new BenchFileError('not a Phasor benchmark: expected an object with "rows"');
  }
  const m = (o.machine ?? {}) as Partial<BenchResult['machine']>;
  const run: BenchResult = {
    machine: {
      date: String(m.date ?? ''),
      cpu: String(m.cpu ?? 'unknown'),
      threads: Number(m.threads ?? 0),
      node: String(m.node ?? ''),
      platform: String(m.platform ?? ''),
    },
    backends: Array.isArray(o.backends) ? o.backends : [],
    rows: o.rows.map(checkRow),
  };
  if (Array.isArray(o.deviceRows)) run.deviceRows = o.deviceRows.map(checkDeviceRow);
  if (Array.isArray(o.deviceTimers)) {
    run.deviceTimers = o.deviceTimers.map(checkTimer).filter((t): t is DeviceTimerInfo => t !== null);
  }
  return run;
}

function parseCsvRun(text: string): BenchResult {
  const machine: Record<string, string> = {};
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  let header: string[] | null = null;
  const rows: BenchRowInfo[] = [];
  for (const line of lines) {
    if (line.startsWith('#')) {
      const m = /^#\s*(\w+):\s*(.*)$/.exec(line);
      if (m) machine[m[1]] = m[2];
      continue;
    }
    const cells = splitCsv(line);
    if (!header) {
      header = cells.map((c) => c.trim());
      for (const need of ['backend', 'op', 'size', 'msamples_per_s']) {
        if (!header.includes(need)) throw new BenchFileError(`the CSV has no "${need}" column`);
      }
      continue;
    }
    const get = (k: string) => cells[header!.indexOf(k)];
    const i = rows.length;
    const mss = num(get('msamples_per_s'), `row ${i + 1} msamples_per_s`);
    rows.push(
      checkRow(
        {
          backend: get('backend'),
          op: get('op'),
          size: get('size'),
          batch: get('batch') || 1,
          samples: get('samples') || 0,
          medianMs: get('median_ms'),
          samplesPerSecond: mss * 1e6,
          gflops: get('gflops'),
          relError: get('rel_error') === '' ? Infinity : get('rel_error'),
          vsCpu: get('vs_cpu'),
        },
        i,
      ),
    );
  }
  if (!header) throw new BenchFileError('the CSV has no header line');
  return {
    machine: {
      date: machine.date ?? '',
      cpu: machine.cpu ?? 'unknown',
      threads: Number(machine.threads ?? 0),
      node: machine.node ?? '',
      platform: machine.platform ?? '',
    },
    backends: [],
    rows,
  };
}

/** Reads an exported run back (JSON or CSV, told apart by the first character). */
export function parseBenchFile(text: string): BenchResult {
  const t = text.replace(/^\uFEFF/, '').trim();
  if (!t) throw new BenchFileError('the file is empty');
  return t.startsWith('{') ? parseJsonRun(t) : parseCsvRun(t);
}

export function rowKey(r: Pick<BenchRowInfo, 'backend' | 'op' | 'size'>): string {
  return `${r.backend}|${r.op}|${r.size}`;
}

export interface ComparedRow {
  backend: string;
  op: string;
  size: number;
  a?: BenchRowInfo;
  b?: BenchRowInfo;
  /** b's throughput over a's, when both measured it. */
  ratio?: number;
}

const OP_ORDER = ['fft', 'rfft', 'spectrogram', 'fir', 'correlate'];

/** Rows of two runs joined by (backend, op, size), in backend, op and size order. */
export function compareRuns(a: BenchResult, b: BenchResult): ComparedRow[] {
  const map = new Map<string, ComparedRow>();
  const put = (r: BenchRowInfo, side: 'a' | 'b') => {
    const k = rowKey(r);
    let c = map.get(k);
    if (!c) map.set(k, (c = { backend: r.backend, op: r.op, size: r.size }));
    c[side] = r;
  };
  for (const r of a.rows) put(r, 'a');
  for (const r of b.rows) put(r, 'b');
  const out = [...map.values()];
  for (const c of out) {
    if (c.a && c.b && c.a.samplesPerSecond > 0) c.ratio = c.b.samplesPerSecond / c.a.samplesPerSecond;
  }
  return out.sort(
    (x, y) =>
      x.backend.localeCompare(y.backend) ||
      OP_ORDER.indexOf(x.op) - OP_ORDER.indexOf(y.op) ||
      x.op.localeCompare(y.op) ||
      x.size - y.size,
  );
}

/** A short name for a run: its CPU (or platform) and date. */
export function runLabel(run: BenchResult): string {
  const cpu = run.machine.cpu
    .replace(/\s+/g, ' ')
    .replace(/\(R\)|\(TM\)|CPU|Processor/gi, '')
    .trim();
  const date = run.machine.date ? run.machine.date.slice(0, 16).replace('T', ' ') : '';
  return [cpu || run.machine.platform || 'run', date].filter(Boolean).join(' · ');
}

/** Fills vsCpu where the run has a CPU row of the same op and size (imported runs may lack it). */
export function withSpeedups(rows: BenchRowInfo[]): BenchRowInfo[] {
  const cpu = new Map<string, number>();
  for (const r of rows) if (r.backend === 'cpu') cpu.set(`${r.op}|${r.size}`, r.samplesPerSecond);
  return rows.map((r) => {
    if (r.vsCpu !== undefined) return r;
    const base = cpu.get(`${r.op}|${r.size}`);
    return base ? { ...r, vsCpu: r.samplesPerSecond / base } : r;
  });
}
