// The presets file in the user's config folder (protocol/presets.ts says what it holds), shared by every
// host of the engine: the desktop app, `phasor serve` and the tests.
//
//   const store = new PresetStore(presetsPath());          // $PHASOR_CONFIG_DIR or the platform's folder
//   await store.list();                                     // { file, presets, problem? }
//   await store.save('Audio', settings, 'refuse');          // refused when "Audio" exists
//   await store.rename('Audio', 'Voice'); await store.remove('Voice');
//
// Every change reads the file, edits the list and writes it whole through a temporary file renamed over it
// (io/temporary.ts), so a reader never sees half a file. Changes to one file run one at a time: in this
// process whatever store or connection makes them, and across processes (the desktop app and a server)
// under presets.json.lock, made with O_EXCL and holding its owner's host and pid, so a lock left by a killed
// process is taken over. A file that does not read as presets is never lost: reads report it in one line,
// and the next change keeps it aside as presets.json.bad (.bad.2, …).

import { mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CorruptFileError, InvalidArgumentError, PhasorError, errorInfo, ioError } from '../errors.js';
import {
  PRESETS_FILE_MAX_BYTES,
  PRESETS_FORMAT,
  PRESETS_MAX,
  PRESETS_VERSION,
  freePresetName,
  presetIssues,
  presetKey,
  presetSettingsSchema,
  presetsDocumentSchema,
  type Preset,
  type PresetConflict,
  type PresetSettings,
  type PresetsResult,
} from '../protocol/presets.js';
import { TemporaryFile, running } from './temporary.js';

export const PRESETS_FILE_NAME = 'presets.json';

/**
 * Phasor's folder for the user's settings: $PHASOR_CONFIG_DIR when set (tests, portable installs); else
 * %APPDATA%\Phasor on Windows, ~/Library/Application Support/Phasor on macOS (both where Electron's
 * userData lies), and $XDG_CONFIG_HOME/phasor (default ~/.config/phasor) elsewhere. The desktop app and
 * `phasor serve` compute the same folder, so they share their presets.
 */
export function configDir(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string = os.homedir(),
): string {
  if (env.PHASOR_CONFIG_DIR) return path.resolve(env.PHASOR_CONFIG_DIR);
  if (platform === 'win32') return path.join(env.APPDATA || path.join(home, 'AppData', 'Roaming'), 'Phasor');
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'Phasor');
  // XDG: a relative XDG_CONFIG_HOME is invalid and ignored.
  const xdg = env.XDG_CONFIG_HOME;
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(home, '.config'), 'phasor');
}

/** The presets file in configDir(). */
export function presetsPath(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(configDir(env), PRESETS_FILE_NAME);
}

/** What a read found: the presets, or why the file cannot be used (and whether it may be set aside). */
type Loaded =
  | { ok: true; presets: Preset[] }
  | { ok: false; presets: Preset[]; problem: PhasorError; keepAside: boolean };

/** How long a change waits for another process's lock before it gives up (ms). */
export const PRESETS_LOCK_WAIT_MS = 5000;
/** A lock older than this is taken over whoever holds it (a change takes milliseconds). */
const LOCK_STALE_MS = 30_000;

/** Takes `lock` (a file made with O_EXCL), waiting while another live process holds it; returns its
 * release. A lock of a process of this machine that no longer runs, or an old one, is removed. */
async function takeLock(lock: string, target: string): Promise<() => Promise<void>> {
  const me = `${os.hostname()} ${process.pid}\n`;
  const until = Date.now() + PRESETS_LOCK_WAIT_MS;
  for (;;) {
    try {
      const h = await open(lock, 'wx', 0o600);
      await h.writeFile(me).finally(() => h.close());
      return () => rm(lock, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw ioError(lock, err);
    }
    const [text, st] = await Promise.all([
      readFile(lock, 'utf8').catch(() => ''),
      stat(lock).catch(() => null),
    ]);
    const [host, pid] = text.trim().split(' ');
    const dead = host === os.hostname() && Number(pid) > 0 && !running(Number(pid));
    // A lock still being written (empty for a moment) is not stale unless it is old.
    if (st && (dead || Date.now() - st.mtimeMs > LOCK_STALE_MS)) {
      await rm(lock, { force: true });
      continue;
    }
    if (Date.now() > until)
      throw new PhasorError(
        'io',
        `another Phasor (${text.trim() || 'unknown'}) is changing the presets; try again, or remove ${path.basename(lock)} if none runs`,
        { file: target },
      );
    await new Promise((r) => setTimeout(r, 10 + Math.random() * 20));
  }
}

/** Changes queued per file, in this process (one at a time). */
const queues = new Map<string, Promise<unknown>>();

function serialized<T>(file: string, job: () => Promise<T>): Promise<T> {
  const before = queues.get(file) ?? Promise.resolve();
  const run = before.then(job, job);
  const settled = run.catch(() => undefined);
  queues.set(file, settled);
  void settled.then(() => {
    if (queues.get(file) === settled) queues.delete(file);
  });
  return run;
}

export class PresetStore {
  readonly file: string;

  constructor(file: string = presetsPath()) {
    this.file = path.resolve(file);
  }

  /** The stored presets; an unreadable file gives none and says why in `problem`. */
  async list(): Promise<PresetsResult> {
    const loaded = await this.#load();
    return this.#result(loaded.presets, loaded.ok ? {} : { problem: errorInfo(loaded.problem).message });
  }

  /** Saves `settings` as `name`; when another preset has that name: `conflict` says what to do. */
  save(name: string, settings: PresetSettings, conflict: PresetConflict = 'refuse'): Promise<PresetsResult> {
    const checked = presetSettingsSchema.safeParse(settings);
    if (!checked.success)
      return Promise.reject(new InvalidArgumentError(`preset settings: ${presetIssues(checked.error)}`));
    return this.#change((presets) => {
      const at = presets.findIndex((p) => presetKey(p.name) === presetKey(name));
      const saved = new Date().toISOString();
      if (at >= 0 && conflict === 'replace') {
        // The stored spelling of the name is the one just given (a save may change its case).
        presets[at] = { name: name.trim(), settings: checked.data, saved };
        return presets[at].name;
      }
      if (at >= 0 && conflict === 'refuse') {
        throw new InvalidArgumentError(
          `a preset named "${presets[at].name}" exists already: choose another name or replace it`,
        );
      }
      if (presets.length >= PRESETS_MAX)
        throw new InvalidArgumentError(`there are ${PRESETS_MAX} presets already: delete one first`);
      const free = freePresetName(
        name.trim(),
        presets.map((p) => p.name),
      );
      presets.push({ name: free, settings: checked.data, saved });
      return free;
    });
  }

  /** Renames preset `name` to `to`; refused when another preset is named `to`. */
  rename(name: string, to: string): Promise<PresetsResult> {
    return this.#change((presets) => {
      const at = this.#find(presets, name);
      const clash = presets.findIndex((p) => presetKey(p.name) === presetKey(to));
      if (clash >= 0 && clash !== at)
        throw new InvalidArgumentError(
          `cannot rename "${presets[at].name}": a preset named "${presets[clash].name}" exists already`,
        );
      presets[at] = { ...presets[at], name: to.trim() };
      return presets[at].name;
    });
  }

  /** Deletes preset `name`. */
  remove(name: string): Promise<PresetsResult> {
    return this.#change((presets) => {
      presets.splice(this.#find(presets, name), 1);
      return undefined;
    });
  }

  #find(presets: Preset[], name: string): number {
    const at = presets.findIndex((p) => presetKey(p.name) === presetKey(name));
    if (at < 0) throw new InvalidArgumentError(`there is no preset named "${name.trim()}"`);
    return at;
  }

  #result(presets: Preset[], extra: Partial<PresetsResult>): PresetsResult {
    return { file: this.file, presets, ...extra };
  }

  async #load(): Promise<Loaded> {
    const bad = (why: string, keepAside = true): Loaded => ({
      ok: false,
      presets: [],
      problem: new CorruptFileError(this.file, why),
      keepAside,
    });
    let bytes: Buffer;
    try {
      const st = await stat(this.file);
      if (!st.isFile()) return bad('is not a regular file', false);
      if (st.size > PRESETS_FILE_MAX_BYTES)
        return bad(`holds ${st.size} bytes, more than the ${PRESETS_FILE_MAX_BYTES} a presets file may have`);
      bytes = await readFile(this.file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { ok: true, presets: [] };
      throw ioError(this.file, err);
    }
    let doc: unknown;
    try {
      doc = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    } catch (err) {
      return bad(`is not valid JSON (${err instanceof Error ? err.message : String(err)})`);
    }
    const version = (doc as { version?: unknown } | null)?.version;
    if (typeof version === 'number' && version > PRESETS_VERSION) {
      return bad(
        `was written by a newer Phasor (presets version ${version}; this one reads ${PRESETS_VERSION}): update Phasor to change presets`,
        false,
      );
    }
    const parsed = presetsDocumentSchema.safeParse(doc);
    if (!parsed.success) return bad(`is not a Phasor presets file: ${presetIssues(parsed.error)}`);
    return { ok: true, presets: parsed.data.presets };
  }

  /** Reads, applies `edit` (which returns the name it stored, if any) and writes the file atomically. */
  #change(edit: (presets: Preset[]) => string | undefined): Promise<PresetsResult> {
    return serialized(this.file, async () => {
      await mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 }).catch((err: unknown) => {
        throw ioError(path.dirname(this.file), err);
      });
      const release = await takeLock(`${this.file}.lock`, this.file);
      try {
        return await this.#edit(edit);
      } finally {
        await release();
      }
    });
  }

  /** Under the lock: reads, applies `edit` (which returns the name it stored, if any), writes. */
  async #edit(edit: (presets: Preset[]) => string | undefined): Promise<PresetsResult> {
    const loaded = await this.#load();
    if (!loaded.ok && !loaded.keepAside) throw loaded.problem;
    const presets = [...loaded.presets];
    const name = edit(presets);
    const extra: Partial<PresetsResult> = name !== undefined ? { name } : {};
    if (!loaded.ok) {
      const aside = await this.#keepAside();
      extra.notice = `${errorInfo(loaded.problem).message}; it was kept as ${path.basename(aside)}`;
    }
    const text = JSON.stringify({ format: PRESETS_FORMAT, version: PRESETS_VERSION, presets }, null, 2);
    const tmp = await TemporaryFile.create(this.file);
    try {
      await tmp.writeAll(new TextEncoder().encode(text + '\n'), 0);
      await tmp.close();
      await tmp.publish();
    } catch (err) {
      await tmp.discard();
      throw err;
    }
    return this.#result(presets, extra);
  }

  /** Renames the unreadable file to the first free presets.json.bad, .bad.2, …; returns that path. */
  async #keepAside(): Promise<string> {
    for (let n = 1; ; n++) {
      const aside = `${this.file}.bad${n === 1 ? '' : `.${n}`}`;
      const taken = await stat(aside).then(
        () => true,
        () => false,
      );
      if (taken) continue;
      try {
        await rename(this.file, aside);
      } catch (err) {
        throw ioError(this.file, err);
      }
      return aside;
    }
  }
}
