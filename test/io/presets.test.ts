// Presets of analysis settings in the user's config folder (io/presets.ts) and through the protocol
// (listPresets, savePreset, renamePreset, deletePreset): a round trip through the file, names unique, the
// file rewritten atomically (a reader never sees half of it, nothing left behind), concurrent saves from
// several stores all kept, and an unreadable file reported in one line and kept aside, never lost.

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Backend } from '../../electron/engine/backends/backend.js';
import { createCpuBackend } from '../../electron/engine/backends/cpu/index.js';
import {
  configDir,
  PRESETS_LOCK_WAIT_MS,
  PresetStore,
  presetsPath,
} from '../../electron/engine/io/presets.js';
import { Engine } from '../../electron/engine/live/engine.js';
import {
  presetsDocumentSchema,
  type PresetSettings,
  type PresetsResult,
} from '../../electron/engine/protocol/presets.js';
import { Client } from '../offline/helpers.js';
import { root, tempDir } from '../support/cli.js';

const tmp = tempDir('phasor-presets-');
afterAll(() => tmp.remove());
let n = 0;
/** A fresh config folder's presets file (the folder not made yet). */
function freshFile(): string {
  return join(tmp.dir, `config-${++n}`, 'presets.json');
}

function settings(fft: number, colormap = 'inferno'): PresetSettings {
  return {
    colormap,
    live: {
      fft,
      window: 'blackmanharris',
      overlap: 0.5,
      averaging: 0.2,
      dbMin: -140,
      dbMax: -10,
      logFrequency: true,
      levelUnit: 'dBFS/Hz',
      traceMode: 'exponential',
      traceAlpha: 0.3,
      traceFrames: 8,
    },
    file: { window: 'hamming', fft: 8192, autoLevels: false, dbMin: -100, dbMax: -20 },
  };
}

describe('the config folder', () => {
  it('follows PHASOR_CONFIG_DIR, then each platform’s convention', () => {
    const home = '/home/ada';
    expect(configDir({ PHASOR_CONFIG_DIR: '/tmp/x' }, 'linux', home)).toBe('/tmp/x');
    expect(configDir({}, 'linux', home)).toBe('/home/ada/.config/phasor');
    expect(configDir({ XDG_CONFIG_HOME: '/cfg' }, 'linux', home)).toBe('/cfg/phasor');
    expect(configDir({ XDG_CONFIG_HOME: 'relative' }, 'linux', home)).toBe('/home/ada/.config/phasor');
    expect(configDir({}, 'darwin', home)).toBe('/home/ada/Library/Application Support/Phasor');
    expect(configDir({ APPDATA: '/c/Users/ada/AppData/Roaming' }, 'win32', home)).toBe(
      join('/c/Users/ada/AppData/Roaming', 'Phasor'),
    );
    expect(presetsPath({ PHASOR_CONFIG_DIR: '/tmp/x' })).toBe('/tmp/x/presets.json');
  });
});

describe('PresetStore', () => {
  it('round-trips presets through the file, in order, and a new store reads them back', async () => {
    const file = freshFile();
    const store = new PresetStore(file);
    expect(await store.list()).toEqual({ file, presets: [] });
    await store.save('Audio', settings(4096));
    const r = await store.save('RF wide', settings(65536, 'turbo'));
    expect(r.name).toBe('RF wide');
    expect(r.presets.map((p) => p.name)).toEqual(['Audio', 'RF wide']);

    const doc = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    expect(presetsDocumentSchema.parse(doc).presets[1].settings).toEqual(settings(65536, 'turbo'));
    const again = await new PresetStore(file).list();
    expect(again.problem).toBeUndefined();
    expect(again.presets.map((p) => [p.name, p.settings.live.fft, p.settings.colormap])).toEqual([
      ['Audio', 4096, 'inferno'],
      ['RF wide', 65536, 'turbo'],
    ]);
    expect(Date.parse(again.presets[0].saved!)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('keeps names unique (ignoring case): refuses, replaces or numbers a taken name', async () => {
    const store = new PresetStore(freshFile());
    await store.save('Audio', settings(1024));
    await expect(store.save('audio ', settings(2048))).rejects.toThrow(
      /^a preset named "Audio" exists already/,
    );
    const numbered = await store.save('Audio', settings(2048), 'number');
    expect(numbered.name).toBe('Audio (2)');
    expect((await store.save('AUDIO', settings(8192), 'number')).name).toBe('AUDIO (3)');
    const replaced = await store.save('audio', settings(512), 'replace');
    expect(replaced.presets.map((p) => [p.name, p.settings.live.fft])).toEqual([
      ['audio', 512],
      ['Audio (2)', 2048],
      ['AUDIO (3)', 8192],
    ]);
  });

  it('renames and deletes; a rename onto another preset’s name or a missing preset is refused', async () => {
    const store = new PresetStore(freshFile());
    await store.save('One', settings(1024));
    await store.save('Two', settings(2048));
    await expect(store.rename('One', 'two')).rejects.toThrow(
      'cannot rename "One": a preset named "Two" exists already',
    );
    // A change of case is the same preset: allowed.
    expect((await store.rename('One', 'ONE')).presets.map((p) => p.name)).toEqual(['ONE', 'Two']);
    const r = await store.rename('two', 'Three');
    expect(r.presets.map((p) => [p.name, p.settings.live.fft])).toEqual([
      ['ONE', 1024],
      ['Three', 2048],
    ]);
    await expect(store.rename('Two', 'Four')).rejects.toThrow('there is no preset named "Two"');
    expect((await store.remove('one')).presets.map((p) => p.name)).toEqual(['Three']);
    await expect(store.remove('One')).rejects.toThrow('there is no preset named "One"');
    expect((await new PresetStore(store.file).list()).presets.map((p) => p.name)).toEqual(['Three']);
  });

  it('refuses settings out of range before touching the file', async () => {
    const store = new PresetStore(freshFile());
    const bad = settings(1024);
    bad.live.dbMin = 0;
    bad.live.dbMax = -10;
    await expect(store.save('x', bad)).rejects.toThrow(/preset settings: live: dbMin must be below dbMax/);
    expect(existsSync(store.file)).toBe(false);
  });

  it('writes atomically: concurrent readers always see a whole file, and no temporary is left', async () => {
    const store = new PresetStore(freshFile());
    await store.save('seed', settings(1024));
    let reads = 0;
    let writing = true;
    const reader = (async () => {
      while (writing) {
        const text = await readFile(store.file, 'utf8');
        // A truncate-then-write would be caught here empty or cut short.
        presetsDocumentSchema.parse(JSON.parse(text));
        reads++;
      }
    })();
    for (let i = 0; i < 60; i++) await store.save(`p${i}`, settings(1024 + i));
    writing = false;
    await reader;
    expect(reads).toBeGreaterThan(10);
    expect(readdirSync(join(store.file, '..'))).toEqual(['presets.json']);
  });

  it('keeps every one of many concurrent saves from several stores and connections', async () => {
    const file = freshFile();
    const stores = [new PresetStore(file), new PresetStore(file), new PresetStore(file)];
    const saves = Array.from({ length: 45 }, (_, i) => stores[i % 3].save(`s${i}`, settings(256 + i)));
    const results = await Promise.all(saves);
    expect(results.every((r) => r.presets.length >= 1)).toBe(true);
    const names = (await new PresetStore(file).list()).presets.map((p) => p.name).sort();
    expect(names).toEqual(Array.from({ length: 45 }, (_, i) => `s${i}`).sort());
    // The same name saved at once from two places: one wins, the other is refused or numbered, never lost.
    const clash = await Promise.allSettled([
      stores[0].save('same', settings(512)),
      stores[1].save('same', settings(1024), 'number'),
    ]);
    expect(clash.map((c) => c.status)).toEqual(['fulfilled', 'fulfilled']);
    const after = (await stores[2].list()).presets.filter((p) => p.name.startsWith('same'));
    expect(after.map((p) => [p.name, p.settings.live.fft])).toEqual([
      ['same', 512],
      ['same (2)', 1024],
    ]);
  });

  it('keeps every save of several processes changing the same file at once', async () => {
    const PER = 40;
    const file = freshFile();
    const go = `${file}-go`;
    const module = pathToFileURL(join(root, 'electron/engine/io/presets.ts')).href;
    // Each child, once loaded, waits for the go file, then saves its own presets as fast as it can.
    const child = (tag: string) => {
      const script = `
        const { existsSync } = await import('node:fs');
        const { PresetStore } = await import(${JSON.stringify(module)});
        const store = new PresetStore(${JSON.stringify(file)});
        const s = ${JSON.stringify(settings(1024))};
        process.stdout.write('ready');
        while (!existsSync(${JSON.stringify(go)})) await new Promise((r) => setTimeout(r, 2));
        for (let i = 0; i < ${PER}; i++) await store.save('${tag}' + i, s);
      `;
      const p = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let err = '';
      p.stderr.on('data', (d: Buffer) => (err += d.toString()));
      const ready = new Promise<void>((resolve) => p.stdout.once('data', () => resolve()));
      const done = new Promise<void>((resolve, reject) =>
        p.once('exit', (code) =>
          code === 0 ? resolve() : reject(new Error(`child ${tag}: ${code} ${err}`)),
        ),
      );
      return { ready, done };
    };
    const children = [child('a'), child('b')];
    await Promise.all(children.map((c) => c.ready));
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(go, '');
    const store = new PresetStore(file);
    for (let i = 0; i < PER; i++) await store.save(`here${i}`, settings(2048));
    await Promise.all(children.map((c) => c.done));
    const names = (await new PresetStore(file).list()).presets.map((p) => p.name).sort();
    const want = ['a', 'b', 'here'].flatMap((t) => Array.from({ length: PER }, (_, i) => `${t}${i}`));
    expect(names).toEqual(want.sort());
    expect(readdirSync(join(file, '..')).sort()).toEqual(['presets.json', 'presets.json-go']);
  }, 60_000);

  it('takes over the lock of a process that died, and waits for a live one, then says so', async () => {
    const file = freshFile();
    mkdirSync(join(file, '..'));
    const store = new PresetStore(file);
    // A process of this machine that has ended left its lock behind.
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    });
    writeFileSync(`${file}.lock`, `${hostname()} ${dead.stdout}\n`);
    await store.save('after a crash', settings(1024));
    expect(existsSync(`${file}.lock`)).toBe(false);

    // A live holder (this process, as another store would be): the save waits, then gives up in one line.
    writeFileSync(`${file}.lock`, `${hostname()} ${process.pid}\n`);
    const started = Date.now();
    await expect(store.save('blocked', settings(1024))).rejects.toThrow(
      /^another Phasor \(.+ \d+\) is changing the presets; try again, or remove presets\.json\.lock if none runs$/,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(PRESETS_LOCK_WAIT_MS - 50);
    expect((await store.list()).presets.map((p) => p.name)).toEqual(['after a crash']);
    expect(readFileSync(`${file}.lock`, 'utf8')).toBe(`${hostname()} ${process.pid}\n`);
  }, 30_000);

  it('reports an unreadable file in one line, and the next save keeps it aside', async () => {
    const file = freshFile();
    mkdirSync(join(file, '..'));
    writeFileSync(file, '{"format": "phasor-presets", "version": 1, "presets": [');
    const store = new PresetStore(file);
    const listed = await store.list();
    expect(listed.presets).toEqual([]);
    expect(listed.problem).toMatch(
      new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: is not valid JSON`),
    );
    expect(listed.problem).not.toContain('\n');
    // Reading leaves it where it is.
    expect(readFileSync(file, 'utf8')).toContain('"presets": [');

    const saved = await store.save('fresh', settings(2048));
    expect(saved.notice).toMatch(/is not valid JSON .*; it was kept as presets\.json\.bad$/);
    expect(readFileSync(`${file}.bad`, 'utf8')).toBe(
      '{"format": "phasor-presets", "version": 1, "presets": [',
    );
    expect(saved.presets.map((p) => p.name)).toEqual(['fresh']);

    // A second bad file does not replace the first one kept aside.
    writeFileSync(file, JSON.stringify({ format: 'phasor-presets', version: 1, presets: [{ name: 'x' }] }));
    const second = await store.list();
    expect(second.problem).toMatch(/is not a Phasor presets file: presets\.0\.settings: /);
    await store.save('again', settings(2048));
    expect(existsSync(`${file}.bad`) && existsSync(`${file}.bad.2`)).toBe(true);
    expect(readFileSync(`${file}.bad.2`, 'utf8')).toContain('"name":"x"');
  });

  it('refuses to rewrite a newer Phasor’s presets file, and leaves it alone', async () => {
    const file = freshFile();
    mkdirSync(join(file, '..'));
    const text = JSON.stringify({ format: 'phasor-presets', version: 2, presets: [] });
    writeFileSync(file, text);
    const store = new PresetStore(file);
    expect((await store.list()).problem).toMatch(/written by a newer Phasor \(presets version 2/);
    await expect(store.save('x', settings(1024))).rejects.toThrow(/newer Phasor/);
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(existsSync(`${file}.bad`)).toBe(false);
  });

  it('keeps fields a newer Phasor added to a preset through a rewrite', async () => {
    const file = freshFile();
    mkdirSync(join(file, '..'));
    const future = { ...settings(1024), future: { knob: 3 } };
    writeFileSync(
      file,
      JSON.stringify({ format: 'phasor-presets', version: 1, presets: [{ name: 'f', settings: future }] }),
    );
    await new PresetStore(file).save('g', settings(2048));
    const doc = JSON.parse(readFileSync(file, 'utf8')) as { presets: Array<{ settings: unknown }> };
    expect(doc.presets[0].settings).toEqual(future);
  });
});

describe('presets through the protocol', () => {
  let backend: Backend;
  let engine: Engine;
  const dir = join(tmp.dir, 'protocol-config');
  const before = process.env.PHASOR_CONFIG_DIR;
  beforeAll(async () => {
    backend = await createCpuBackend({ threads: 0 });
    engine = new Engine({ backend });
    // Connections find the presets file as the hosts do: in the config folder the environment names.
    process.env.PHASOR_CONFIG_DIR = dir;
  });
  afterAll(async () => {
    if (before === undefined) delete process.env.PHASOR_CONFIG_DIR;
    else process.env.PHASOR_CONFIG_DIR = before;
    await engine.dispose();
    await backend.dispose();
  });

  it('saves in one connection, lists, renames and deletes in another, refusing bad requests in one line', async () => {
    const a = new Client(engine);
    const b = new Client(engine);
    expect(await a.ok<PresetsResult>('listPresets', {})).toEqual({
      file: join(dir, 'presets.json'),
      presets: [],
    });
    const saved = await a.ok<PresetsResult>('savePreset', { name: '  Audio  ', settings: settings(4096) });
    expect(saved.name).toBe('Audio');
    const listed = await b.ok<PresetsResult>('listPresets', {});
    expect(listed.presets.map((p) => [p.name, p.settings.live.fft])).toEqual([['Audio', 4096]]);

    const taken = await b.error('savePreset', { name: 'audio', settings: settings(1024) });
    expect(taken).toEqual({
      code: 'invalid-argument',
      message: 'a preset named "Audio" exists already: choose another name or replace it',
    });
    const badName = await b.error('savePreset', { name: 'two\nlines', settings: settings(1024) });
    expect(badName.code).toBe('bad-request');
    expect(badName.message).toContain('one line of printable characters');
    const badFft = await b.error('savePreset', { name: 'x', settings: settings(3) });
    expect(badFft.message).toMatch(/^bad request: savePreset: settings\.live\.fft: /);

    await b.ok('renamePreset', { name: 'Audio', to: 'Voice' });
    expect((await a.ok<PresetsResult>('listPresets', {})).presets.map((p) => p.name)).toEqual(['Voice']);
    expect((await a.error('deletePreset', { name: 'Audio' })).message).toBe(
      'there is no preset named "Audio"',
    );
    expect((await a.ok<PresetsResult>('deletePreset', { name: 'voice' })).presets).toEqual([]);
    a.conn.close();
    b.conn.close();
  });
});
