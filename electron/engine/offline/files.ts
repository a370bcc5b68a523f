// The files one connection has open: a handle number per openFile, the source behind it, and who is using
// it. Closing a file cancels the jobs reading it and releases the source once the last of them has stopped.

import { stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { InvalidArgumentError, PhasorError, type WarningHandler } from '../errors.js';
import { openSource } from '../io/index.js';
import { recordingStartTime } from '../io/start-time.js';
import type { Annotation, FileInfo } from '../protocol/messages.js';
import type { OpenOptions, SampleSource, SigmfMetadata } from '../sources/source.js';

/** Files one connection may hold open at once. */
export const MAX_OPEN_FILES = 64;
/** SigMF annotations passed to the view (a recording may carry millions). */
export const MAX_ANNOTATIONS = 10000;

export interface OpenFileParams {
  path: string;
  format?: string;
  rate?: number;
  center?: number;
  iq?: boolean;
}

interface Entry {
  readonly id: number;
  readonly source: SampleSource;
  readonly info: FileInfo;
  users: number;
  closed: boolean;
  /** Cancels the jobs using the file (closeFile while they run). */
  readonly cancels: Set<() => void>;
}

/** A file in use by a job: release it when the job ends. */
export interface FileLease {
  readonly source: SampleSource;
  readonly info: FileInfo;
  release(): void;
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** SigMF annotations (core:sample_start, core:sample_count, core:freq_lower_edge…) as the view draws them,
 * each with its place in the list as id. */
export function mapAnnotations(sigmf: SigmfMetadata | undefined, warnings: string[]): Annotation[] {
  const list = sigmf?.annotations ?? [];
  const out: Annotation[] = [];
  let skipped = 0;
  for (let id = 0; id < list.length; id++) {
    const a = list[id];
    const start = num(a['core:sample_start']);
    if (start === undefined || start < 0) {
      skipped++;
      continue;
    }
    if (out.length === MAX_ANNOTATIONS) {
      warnings.push(`only the first ${MAX_ANNOTATIONS} of ${list.length} annotations are shown`);
      break;
    }
    const x: Annotation = { id, start };
    const count = num(a['core:sample_count']);
    const lo = num(a['core:freq_lower_edge']);
    const hi = num(a['core:freq_upper_edge']);
    const label = str(a['core:label']);
    const comment = str(a['core:comment']) ?? str(a['core:description']);
    if (count !== undefined && count >= 0) x.count = count;
    if (lo !== undefined) x.freqLower = lo;
    if (hi !== undefined) x.freqUpper = hi;
    if (label !== undefined) x.label = label;
    if (comment !== undefined) x.comment = comment;
    out.push(x);
  }
  if (skipped > 0) {
    warnings.push(
      `${skipped} annotation${skipped === 1 ? '' : 's'} without a valid core:sample_start ignored`,
    );
  }
  out.sort((a, b) => a.start - b.start);
  return out;
}

/** Paths from the view: absolute, or relative to the user's home folder. */
export function resolveUserPath(p: string): string {
  if (p === '~') return os.homedir();
  if (p.startsWith('~/')) return path.join(os.homedir(), p.slice(2));
  return path.resolve(os.homedir(), p);
}

export class FileRegistry {
  readonly #files = new Map<number, Entry>();
  readonly #onWarning: WarningHandler | undefined;
  #next = 1;

  constructor(onWarning?: WarningHandler) {
    this.#onWarning = onWarning;
  }

  get size(): number {
    return this.#files.size;
  }

  async open(params: OpenFileParams): Promise<FileInfo> {
    if (this.#files.size >= MAX_OPEN_FILES) {
      throw new InvalidArgumentError(
        `${MAX_OPEN_FILES} files are open on this connection, the most allowed: close one first`,
      );
    }
    const file = resolveUserPath(params.path);
    const warnings: string[] = [];
    const options: OpenOptions = {
      onWarning: (w) => {
        warnings.push(w.message);
        this.#onWarning?.(w);
      },
    };
    if (params.format !== undefined) options.format = params.format;
    if (params.rate !== undefined) options.rate = params.rate;
    if (params.center !== undefined) options.center = params.center;
    if (params.iq !== undefined) options.iq = params.iq;
    const source = await openSource(file, options);
    try {
      const i = source.info;
      const dataPath = i.path ?? file;
      let bytes = 0;
      try {
        bytes = (await stat(dataPath)).size;
      } catch {
        // The file was opened a moment ago; its size is only informative.
      }
      const samples = i.samples ?? 0;
      const id = this.#next++;
      const info: FileInfo = {
        file: id,
        path: file,
        name: path.basename(file),
        container: i.container,
        encoding: i.encoding,
        sampleRate: i.sampleRate,
        channels: i.channels,
        complex: i.complex,
        samples,
        duration: samples / i.sampleRate,
        bytes,
        annotations: mapAnnotations(i.sigmf, warnings),
        warnings,
      };
      if (i.centerFrequency !== undefined) info.centerFrequency = i.centerFrequency;
      if (i.promisedSamples !== undefined) info.promisedSamples = i.promisedSamples;
      const startTime = recordingStartTime(i);
      if (startTime !== undefined) info.startTime = startTime;
      this.#files.set(id, { id, source, info, users: 0, closed: false, cancels: new Set() });
      return info;
    } catch (err) {
      await source.close().catch(() => undefined);
      throw err;
    }
  }

  #entry(id: number): Entry {
    const e = this.#files.get(id);
    if (!e) {
      throw new InvalidArgumentError(
        `file ${id} is not open on this connection (closed, or never opened): open it again`,
      );
    }
    return e;
  }

  info(id: number): FileInfo {
    return this.#entry(id).info;
  }

  /** Uses file `id` until release(); `cancel` is called if the file is closed meanwhile. */
  acquire(id: number, cancel: () => void): FileLease {
    const e = this.#entry(id);
    e.users++;
    e.cancels.add(cancel);
    let released = false;
    return {
      source: e.source,
      info: e.info,
      release: () => {
        if (released) return;
        released = true;
        e.cancels.delete(cancel);
        e.users--;
        if (e.closed && e.users === 0) void e.source.close().catch(() => undefined);
      },
    };
  }

  /** Closes file `id`: jobs reading it are cancelled, the source is released when they stop. */
  async close(id: number): Promise<void> {
    const e = this.#entry(id);
    this.#files.delete(id);
    e.closed = true;
    for (const c of [...e.cancels]) c();
    if (e.users === 0) await e.source.close();
  }

  async closeAll(): Promise<void> {
    const ids = [...this.#files.keys()];
    await Promise.all(ids.map((id) => this.close(id).catch(() => undefined)));
  }
}

/** The error for a path that cannot be listed, naming it. */
export function folderError(p: string, err: unknown): PhasorError {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const reasons: Record<string, string> = {
    ENOENT: 'no such folder',
    ENOTDIR: 'not a folder',
    EACCES: 'permission denied',
    EPERM: 'permission denied',
    ELOOP: 'too many symbolic links',
  };
  const reason = (code && reasons[code]) ?? (err instanceof Error ? err.message : String(err));
  return new PhasorError('io', reason, { file: p, cause: err });
}
