// Benchmark rows as chart series: one line per backend (and per backend of a compared run) over the sizes
// measured for one operation, with gaps where a backend has no measurement; the device-timed kernel rows
// the same way, one line per backend, reference and variant.

import type { BenchRowInfo, DeviceBenchRowInfo } from '../../../electron/engine/protocol/messages.js';

export type Metric = 'throughput' | 'speedup' | 'error';

export interface SeriesSet {
  sizes: number[];
  series: Array<{ label: string; run: 'a' | 'b'; backend: string; values: Array<number | null> }>;
}

function value(r: BenchRowInfo, metric: Metric): number | null {
  const v = metric === 'throughput' ? r.samplesPerSecond / 1e6 : metric === 'speedup' ? r.vsCpu : r.relError;
  // Log axes cannot show 0 or ∞: an exact result (error 0) is drawn at the floor instead of vanishing.
  if (v === undefined || !Number.isFinite(v)) return null;
  if (metric === 'error' && v <= 0) return 1e-17;
  return v > 0 ? v : null;
}

export function benchSeries(
  op: string,
  metric: Metric,
  a: BenchRowInfo[],
  b: BenchRowInfo[] = [],
  labels: [string, string] = ['', ''],
): SeriesSet {
  const rowsA = a.filter((r) => r.op === op);
  const rowsB = b.filter((r) => r.op === op);
  const sizes = [...new Set([...rowsA, ...rowsB].map((r) => r.size))].sort((x, y) => x - y);
  const series: SeriesSet['series'] = [];
  const add = (rows: BenchRowInfo[], run: 'a' | 'b') => {
    const backends = [...new Set(rows.map((r) => r.backend))];
    for (const backend of backends) {
      // CPU over CPU is 1 everywhere: the speedup chart leaves it out.
      if (metric === 'speedup' && backend === 'cpu') continue;
      const values = sizes.map((s) => {
        const r = rows.find((x) => x.backend === backend && x.size === s);
        return r ? value(r, metric) : null;
      });
      const suffix = labels[run === 'a' ? 0 : 1];
      series.push({ label: suffix ? `${backend} · ${suffix}` : backend, run, backend, values });
    }
  };
  add(rowsA, 'a');
  add(rowsB, 'b');
  return { sizes, series };
}

/** The label of a device-timed row's line: its backend (or reference) and variant. */
export function deviceLineLabel(r: DeviceBenchRowInfo): string {
  const variant = r.note && !r.note.startsWith('no reference') ? r.note.split(';')[0] : '';
  return variant && variant !== r.op ? `${r.backend} ${variant}` : r.backend;
}

/** Device-timed kernel throughput (Msamples/s) against size for one operation: one line per backend,
 * reference and variant (e.g. 'webgpu spectrogram-i16', 'webgpu-unfused', 'cufft'). */
export function deviceSeries(op: string, rows: DeviceBenchRowInfo[]): SeriesSet {
  const kernel = rows.filter((r) => r.op === op && r.timing === 'kernel');
  const sizes = [...new Set(kernel.map((r) => r.size))].sort((x, y) => x - y);
  const series: SeriesSet['series'] = [];
  for (const label of [...new Set(kernel.map(deviceLineLabel))]) {
    const mine = kernel.filter((r) => deviceLineLabel(r) === label);
    const values = sizes.map((s) => {
      const r = mine.find((x) => x.size === s);
      const v = r ? r.samplesPerSecond / 1e6 : NaN;
      return Number.isFinite(v) && v > 0 ? v : null;
    });
    series.push({ label, run: 'a', backend: mine[0].backend, values });
  }
  return { sizes, series };
}
