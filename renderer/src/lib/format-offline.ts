// Number formatting for the offline views (file sizes, durations, rates, frequencies in tables).

export function formatBytes(n: number): string {
  if (!Number.isFinite(n)) return '—';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  let v = n;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${n} B` : `${v.toFixed(v < 10 ? 2 : v < 100 ? 1 : 0)} ${units[i]}`;
}

/** h:mm:ss.sss for long spans, s with ms below a minute. */
export function formatDuration(s: number): string {
  if (!Number.isFinite(s)) return '—';
  if (s < 60) return `${s.toFixed(s < 1 ? 4 : 3)} s`;
  const h = Math.floor(s / 3600);
  const m = Math.floor((s - 3600 * h) / 60);
  const sec = s - 3600 * h - 60 * m;
  const ss = sec.toFixed(3).padStart(6, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

/** Significant digits without exponent noise: 3 digits, thousands kept whole. */
export function formatNumber(v: number | undefined, digits = 3): string {
  if (v === undefined || !Number.isFinite(v)) return '—';
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 10 ** digits) return Math.round(v).toLocaleString('en-US');
  return String(+v.toPrecision(digits));
}

/** Relative errors: 1.2e-7 style. */
export function formatError(v: number | undefined): string {
  if (v === undefined || Number.isNaN(v)) return '—';
  if (!Number.isFinite(v)) return '∞';
  if (v === 0) return '0';
  return v.toExponential(1);
}

/** A frequency or rate typed by a person: "2.048M", "100 MHz", "48k", "1e6" (Hz); NaN when not one. */
export function parseHz(text: string): number {
  const m = /^\s*([-+]?\d*\.?\d+(?:e[-+]?\d+)?)\s*([kKmMgG]?)\s*(?:hz|s\/s|sps)?\s*$/i.exec(text);
  if (!m) return NaN;
  const scale = { '': 1, k: 1e3, m: 1e6, g: 1e9 }[m[2].toLowerCase() as '' | 'k' | 'm' | 'g'];
  return Number(m[1]) * scale;
}
