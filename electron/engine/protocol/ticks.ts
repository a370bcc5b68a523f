// Nice tick values and their labels, shared by the renderer's axes and the CLI's framed PNG: steps of
// 1, 2 or 5 × 10^k, frequencies written in the unit that suits the range, times in seconds. Browser-safe.

/** 1, 2 or 5 × 10^k, the smallest at least `raw`. */
export function niceStep(raw: number): number {
  if (!(raw > 0) || !Number.isFinite(raw)) return 1;
  const k = Math.floor(Math.log10(raw));
  const base = Math.pow(10, k);
  for (const m of [1, 2, 5, 10]) if (m * base >= raw * (1 - 1e-9)) return m * base;
  return 10 * base;
}

/** Values k·step within [min, max]. */
export function linearTickValues(min: number, max: number, step: number): number[] {
  const out: number[] = [];
  const first = Math.ceil(min / step - 1e-9);
  const last = Math.floor(max / step + 1e-9);
  for (let k = first; k <= last && out.length < 1000; k++) out.push(k * step + 0); // + 0 turns −0 into 0
  return out;
}

const UNITS: Array<[number, string]> = [
  [1e9, 'GHz'],
  [1e6, 'MHz'],
  [1e3, 'kHz'],
  [1, 'Hz'],
];

/** The unit to write frequencies of this magnitude in. */
export function frequencyUnit(maxAbs: number): [number, string] {
  for (const u of UNITS) if (maxAbs >= u[0]) return u;
  return [1, 'Hz'];
}

/** "1.25 kHz": unit picked by `unitRef` (the largest value shown), decimals by `resolution` (Hz). */
export function formatFrequency(f: number, resolution: number, unitRef = Math.abs(f)): string {
  const [scale, name] = frequencyUnit(unitRef);
  const decimals = Math.min(6, Math.max(0, Math.ceil(-Math.log10(resolution / scale) - 1e-9)));
  let text = (f / scale).toFixed(decimals);
  if (/^-0\.?0*$/.test(text)) text = text.slice(1);
  return `${text} ${name}`;
}

/** Time label at a tick step: seconds with the decimals the step needs, m:ss past a minute. */
export function formatTime(t: number, step: number): string {
  const decimals = Math.min(6, Math.max(0, Math.ceil(-Math.log10(step) - 1e-9)));
  if (Math.abs(t) >= 60 && step >= 1) {
    const m = Math.floor(t / 60);
    const s = t - 60 * m;
    return `${m}:${s.toFixed(decimals).padStart(decimals ? 3 + decimals : 2, '0')}`;
  }
  return `${t.toFixed(decimals)}`;
}
