// Raw I/Q recordings carry no header: the user says their format, rate and centre once, and the answer is
// remembered per file path (localStorage) so the file opens without asking next time.

/** Extensions the engine reads as raw I/Q (the format named by the extension, or asked for). */
export const RAW_NAMED_EXTENSIONS = ['cu8', 'cs8', 'cs16', 'cf32', 'cfile'] as const;
export const RAW_UNNAMED_EXTENSIONS = ['raw', 'iq', 'bin', 'dat'] as const;

/** Formats offered in the prompt (the engine also takes SigMF datatypes such as ci16_le). */
export const RAW_FORMATS: Array<{ value: string; label: string }> = [
  { value: 'cu8', label: 'cu8 — unsigned 8-bit I/Q (RTL-SDR)' },
  { value: 'cs8', label: 'cs8 — signed 8-bit I/Q (HackRF)' },
  { value: 'cs16', label: 'cs16 — signed 16-bit I/Q' },
  { value: 'cf32', label: 'cf32 — float32 I/Q (GNU Radio)' },
  { value: 'ci16_be', label: 'ci16_be — signed 16-bit I/Q, big-endian' },
  { value: 'cf32_be', label: 'cf32_be — float32 I/Q, big-endian' },
  { value: 'ri16_le', label: 'ri16_le — signed 16-bit real' },
  { value: 'rf32_le', label: 'rf32_le — float32 real' },
];

export const OPENABLE_EXTENSIONS = [
  'wav',
  'wave',
  'rf64',
  'bw64',
  'sigmf',
  'sigmf-meta',
  'sigmf-data',
  ...RAW_NAMED_EXTENSIONS,
  ...RAW_UNNAMED_EXTENSIONS,
];

export interface RawParams {
  format: string;
  /** Sample rate (Hz). */
  rate: number;
  /** Centre frequency (Hz), when known. */
  center?: number;
}

export const RAW_MEMORY_KEY = 'phasor.rawFormats';
/** Paths remembered at most (the least recently used are forgotten first). */
export const RAW_MEMORY_LIMIT = 200;

/** The extension of a path, lower case, without the dot ('' when none). */
export function extensionOf(path: string): string {
  const name = path.split(/[\\/]/).pop() ?? '';
  if (name.toLowerCase().endsWith('.sigmf-meta')) return 'sigmf-meta';
  if (name.toLowerCase().endsWith('.sigmf-data')) return 'sigmf-data';
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
}

export function baseName(path: string): string {
  return path.split(/[\\/]/).pop() ?? path;
}

/** Whether the engine needs a format and a rate to open this path. */
export function isRawPath(path: string): boolean {
  const ext = extensionOf(path);
  return (
    (RAW_NAMED_EXTENSIONS as readonly string[]).includes(ext) ||
    (RAW_UNNAMED_EXTENSIONS as readonly string[]).includes(ext)
  );
}

/** The format an extension names (cfile is GNU Radio's cf32), else cu8. */
export function defaultRawFormat(path: string): string {
  const ext = extensionOf(path);
  if (ext === 'cfile') return 'cf32';
  return (RAW_NAMED_EXTENSIONS as readonly string[]).includes(ext) ? ext : 'cu8';
}

/** Whether an engine error says that a file needs raw parameters to open. */
export function needsRawParams(message: string): boolean {
  return /raw IQ needs|for raw IQ pass/i.test(message);
}

interface Stored {
  version: 1;
  /** Most recently used last. */
  entries: Array<[string, RawParams]>;
}

function storage(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null;
  }
}

function validParams(v: unknown): v is RawParams {
  if (!v || typeof v !== 'object') return false;
  const p = v as Record<string, unknown>;
  return (
    typeof p.format === 'string' &&
    p.format.length > 0 &&
    p.format.length <= 16 &&
    typeof p.rate === 'number' &&
    Number.isFinite(p.rate) &&
    p.rate > 0 &&
    (p.center === undefined || (typeof p.center === 'number' && Number.isFinite(p.center)))
  );
}

function load(): Array<[string, RawParams]> {
  const raw = storage()?.getItem(RAW_MEMORY_KEY);
  if (!raw) return [];
  try {
    const parsed = JSON.parse(raw) as Stored;
    if (parsed?.version !== 1 || !Array.isArray(parsed.entries)) return [];
    return parsed.entries.filter(
      (e): e is [string, RawParams] => Array.isArray(e) && typeof e[0] === 'string' && validParams(e[1]),
    );
  } catch {
    return [];
  }
}

/** What the user said about this path last time, if anything. */
export function recallRawParams(path: string): RawParams | null {
  const hit = load().find((e) => e[0] === path);
  return hit ? { ...hit[1] } : null;
}

/** Remembers the answer for this path (most recent first to stay when the list is full). */
export function rememberRawParams(path: string, params: RawParams): void {
  if (!validParams(params)) return;
  const entries = load().filter((e) => e[0] !== path);
  const clean: RawParams = { format: params.format, rate: params.rate };
  if (params.center !== undefined) clean.center = params.center;
  entries.push([path, clean]);
  while (entries.length > RAW_MEMORY_LIMIT) entries.shift();
  try {
    storage()?.setItem(RAW_MEMORY_KEY, JSON.stringify({ version: 1, entries } satisfies Stored));
  } catch {
    // Quota or privacy mode: remembered for this run only (the caller keeps its copy).
  }
}
