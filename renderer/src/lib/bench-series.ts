// Benchmark rows as chart series: one line per backend (and per backend of a compared run) over the sizes
// measured for one operation, with gaps where a backend has no measurement.

import type { BenchRowInfo } from '../../../electron/engine/protocol/messages.js';

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
