// CSV of spectrum traces: '#' comment lines (key: value), a header naming each column with its unit,
// then one line per frequency — frequency in Hz, then each trace's level. Levels that are not finite
// (a hold before any row) are left empty.

export interface CsvTrace {
  /** Column name, e.g. "max hold". */
  name: string;
  unit: string;
  levels: ArrayLike<number>;
  /** dB added to every level (a unit offset), 0 when omitted. */
  offset?: number;
}

export function spectrumCsv(
  frequencies: ArrayLike<number>,
  traces: readonly CsvTrace[],
  comments: ReadonlyArray<[string, string | number]> = [],
): string {
  const lines: string[] = [];
  for (const [k, v] of comments) lines.push(`# ${k}: ${v}`);
  lines.push(['frequency (Hz)', ...traces.map((t) => `${t.name} (${t.unit})`)].map(quote).join(','));
  for (let i = 0; i < frequencies.length; i++) {
    const row = [String(+frequencies[i].toFixed(3))];
    for (const t of traces) {
      const v = t.levels[i] + (t.offset ?? 0);
      row.push(Number.isFinite(v) ? String(+v.toFixed(3)) : '');
    }
    lines.push(row.join(','));
  }
  return lines.join('\n') + '\n';
}

function quote(s: string): string {
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}
