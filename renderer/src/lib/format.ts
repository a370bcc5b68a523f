// Number formatting for the status bar and readouts.

export function formatLevel(db: number): string {
  return Number.isFinite(db) ? `${db.toFixed(1)} dB` : '—';
}

export function formatRate(hz: number): string {
  if (!Number.isFinite(hz)) return '—';
  if (hz >= 1e6) return `${+(hz / 1e6).toFixed(3)} MS/s`;
  if (hz >= 1e3) return `${+(hz / 1e3).toFixed(3)} kS/s`;
  return `${+hz.toFixed(1)} S/s`;
}

export function formatSeconds(s: number): string {
  if (!Number.isFinite(s)) return '—';
  const a = Math.abs(s);
  if (a >= 60) {
    const m = Math.floor(a / 60);
    return `${s < 0 ? '−' : ''}${m}:${(a - 60 * m).toFixed(2).padStart(5, '0')}`;
  }
  if (a >= 1) return `${s.toFixed(3)} s`;
  return `${(s * 1000).toFixed(1)} ms`;
}

export function formatCount(n: number): string {
  if (!Number.isFinite(n)) return '—';
  if (n >= 1e6) return `${(n / 1e6).toFixed(2)} M`;
  if (n >= 1e4) return `${(n / 1e3).toFixed(1)} k`;
  return String(Math.round(n));
}

/** YYYYMMDD-HHMMSS of `date` (local time), for file names. */
function stamp(date: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return (
    `${date.getFullYear()}${p(date.getMonth() + 1)}${p(date.getDate())}-` +
    `${p(date.getHours())}${p(date.getMinutes())}${p(date.getSeconds())}`
  );
}

/** File name for a snapshot taken at `date`: phasor-YYYYMMDD-HHMMSS.png (local time). */
export function snapshotName(date: Date): string {
  return `phasor-${stamp(date)}.png`;
}

/** File name for a recording started at `date`: rec-YYYYMMDD-HHMMSS.<extension> (local time). */
export function recordingName(date: Date, extension: 'sigmf-meta' | 'wav'): string {
  return `rec-${stamp(date)}.${extension}`;
}

/** Elapsed time as m:ss (h:mm:ss from an hour). */
export function formatElapsed(s: number): string {
  if (!Number.isFinite(s) || s < 0) return '—';
  const t = Math.floor(s);
  const h = Math.floor(t / 3600);
  const m = Math.floor((t % 3600) / 60);
  const sec = String(t % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}
