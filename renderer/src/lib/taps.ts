// FIR taps in and out of files: text (one number per line; commas, spaces and # comments also taken, as
// `phasor filter --taps` reads them) and JSON (an array, or an object with `taps`, as exported here).

export class TapsError extends Error {
  override name = 'TapsError';
}

/** Most taps the engine takes (applyFilter). */
export const MAX_TAPS = 65535;

/** Parses taps from the text of a file called `name` (JSON when it looks like JSON). */
export function parseTaps(text: string, name = 'taps'): number[] {
  const trimmed = text.replace(/^\uFEFF/, '').trim();
  if (!trimmed) throw new TapsError(`${name}: the file is empty; expected one tap per line or JSON`);
  let values: unknown[];
  if (trimmed.startsWith('[') || trimmed.startsWith('{')) {
    let json: unknown;
    try {
      json = JSON.parse(trimmed);
    } catch (e) {
      throw new TapsError(`${name}: not valid JSON (${e instanceof Error ? e.message : String(e)})`);
    }
    const list = Array.isArray(json) ? json : (json as { taps?: unknown } | null)?.taps;
    if (!Array.isArray(list)) {
      throw new TapsError(`${name}: expected a JSON array of taps or an object {"taps": [...]}`);
    }
    values = list;
  } else {
    values = trimmed
      .split(/\r?\n/)
      .map((line) => line.replace(/#.*/, ''))
      .join(' ')
      .split(/[\s,;]+/)
      .filter((s) => s.length > 0);
  }
  if (values.length === 0) throw new TapsError(`${name}: no taps found`);
  if (values.length > MAX_TAPS) {
    throw new TapsError(`${name}: ${values.length} taps; at most ${MAX_TAPS} can be applied`);
  }
  return values.map((v, i) => {
    const x = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
    if (!Number.isFinite(x)) {
      throw new TapsError(`${name}: tap ${i + 1} is not a finite number (${JSON.stringify(v)})`);
    }
    return x;
  });
}

/** Text export: one tap per line, full float64 precision (round-trips exactly). */
export function tapsToText(taps: readonly number[], comment?: string): string {
  const head = comment
    ? comment
        .split('\n')
        .map((l) => `# ${l}\n`)
        .join('')
    : '';
  return head + taps.map((t) => String(t)).join('\n') + '\n';
}

/** JSON export: the taps with what made them, re-importable here and by `phasor filter --taps`. */
export function tapsToJson(taps: readonly number[], meta: Record<string, unknown> = {}): string {
  return JSON.stringify({ ...meta, numtaps: taps.length, taps: [...taps] }, null, 2) + '\n';
}
