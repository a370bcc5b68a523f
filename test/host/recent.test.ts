// Open Recent: most recent first, each file once, at most ten, kept in a JSON file in the user-data folder
// (written whole and renamed), files that are gone dropped when shown. Then the built main process
// against the stand-in for Electron: what is opened by any route (command line, the Open dialog, a drop)
// is remembered, the list survives a restart (a new main process, the same user-data folder), a file
// deleted meanwhile is dropped from the menu, Open Recent opens a file as the command line does, and
// Clear empties it.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_RECENT, RecentFiles } from '../../electron/main/recent.js';
import { tones } from '../support/signals.js';
import { writeTestWav } from '../support/wav.js';
import { mainScript, runWithFakeElectron, useAppBuild } from './app-build.js';
import { PAGE_HELPERS } from './app-page.js';

const dir = mkdtempSync(join(tmpdir(), 'phasor-recent-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the recent files list', () => {
  it('keeps the most recent first, each once, at most ten, and survives a new instance', () => {
    const folder = join(dir, 'unit');
    const file = join(folder, 'recent-files.json');
    const changes: string[][] = [];
    const recent = new RecentFiles(file, { exists: () => true, changed: (f) => changes.push([...f]) });
    expect(recent.list()).toEqual([]);
    recent.add('/d/a.wav');
    recent.add('/d/b.wav');
    recent.add('/d/a.wav');
    recent.add('relative.wav');
    expect(recent.list()).toEqual(['/d/a.wav', '/d/b.wav']);
    expect(changes).toEqual([['/d/a.wav'], ['/d/b.wav', '/d/a.wav'], ['/d/a.wav', '/d/b.wav']]);
    for (let i = 0; i < 12; i++) recent.add(`/d/${i}.wav`);
    expect(recent.list()).toHaveLength(MAX_RECENT);
    expect(recent.list()[0]).toBe('/d/11.wav');
    expect(recent.list().at(-1)).toBe('/d/2.wav');
    // On disk: the whole list, and no temporary file left behind.
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ version: 1, files: recent.list() });
    expect(readdirSync(folder)).toEqual(['recent-files.json']);
    expect(new RecentFiles(file, { exists: () => true }).list()).toEqual(recent.list());
    recent.clear();
    expect(new RecentFiles(file).list()).toEqual([]);
  });

  it('drops files that are gone when shown, and never adds one', () => {
    const file = join(dir, 'prune', 'recent-files.json');
    const there = new Set(['/d/a.wav', '/d/b.wav', '/d/c.wav']);
    const recent = new RecentFiles(file, { exists: (f) => there.has(f) });
    for (const f of ['/d/c.wav', '/d/b.wav', '/d/a.wav', '/d/never.wav']) recent.add(f);
    expect(recent.list()).toEqual(['/d/a.wav', '/d/b.wav', '/d/c.wav']);
    there.delete('/d/b.wav');
    expect(recent.list()).toEqual(['/d/a.wav', '/d/c.wav']);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ version: 1, files: ['/d/a.wav', '/d/c.wav'] });
  });

  it('starts empty from a broken file, and replaces it at the next change', () => {
    const file = join(dir, 'broken', 'recent-files.json');
    mkdirSync(join(dir, 'broken'));
    for (const text of ['{', '[]', '{"version": 2, "files": []}', '{"version": 1, "files": [3]}']) {
      writeFileSync(file, text);
      expect(new RecentFiles(file, { exists: () => true }).list()).toEqual([]);
    }
    writeFileSync(
      file,
      JSON.stringify({ version: 1, files: ['/d/a.wav', 'relative', '/d/a.wav', '/d/b.wav'] }),
    );
    const recent = new RecentFiles(file, { exists: () => true });
    expect(recent.list()).toEqual(['/d/a.wav', '/d/b.wav']);
  });
});

const app = useAppBuild('recent');

describe('Open Recent in the built app', () => {
  const files = ['first.wav', 'chosen.wav', 'dropped.wav'].map((n) => join(dir, 'app', n));
  const userData = join(dir, 'app', 'user-data');
  mkdirSync(join(dir, 'app'), { recursive: true });
  for (const f of files) writeTestWav(f, tones(4800, 48000, [{ frequency: 1000, amplitude: 0.5 }]), 48000, 1);

  /** One run of the main process: its menu's Open Recent entries after `body` ran. */
  function run(name: string, body: string, setup = '') {
    const r = runWithFakeElectron(
      app.out,
      `recent-${name}.mjs`,
      mainScript(
        app.out,
        PAGE_HELPERS +
          `
      const res = {};
      const recentItems = () => {
        const open = fake.applicationMenu.getMenuItemById('open-recent');
        return open.submenu.items.filter((i) => i.id?.startsWith('recent-') && i.enabled).map((i) => i.toolTip);
      };
      const win = appWindows()[0];
      const p = await page(win);
      await wait(() => win.webContents.sent.some((s) => s.channel === 'phasor:port'));
      res.atStart = recentItems();
${body}
      res.atEnd = recentItems();
      res.onDisk = JSON.parse(fs.readFileSync(${JSON.stringify(join(userData, 'recent-files.json'))}, 'utf8')).files;
      res.osList = fake.recentDocuments;
      process.stdout.write(JSON.stringify(res));
      process.exit(0);
      `,
        { userData, setup: `const fs = await import('node:fs');\nfake.runAppPreload = true;\n${setup}` },
      ),
    );
    expect(r.stdout, `the check printed nothing (status ${r.status}): ${r.stderr}`).not.toBe('');
    return JSON.parse(r.stdout) as Record<string, unknown>;
  }

  it('remembers files opened by every route, across restarts, and drops one deleted meanwhile', () => {
    expect(app.result().status).toBe(0);
    const [first, chosen, dropped] = files;
    // Run 1: a file on the command line, one chosen in the Open dialog, one dropped on the window.
    const one = run(
      'one',
      `
      await wait(() => p.commands.length > 0);
      fake.dialogAnswer = { canceled: false, filePaths: [${JSON.stringify(chosen)}] };
      res.chosen = await p.bridge.chooseFile({ mode: 'open' });
      res.dropped = p.bridge.pathForFile({ name: 'dropped.wav', path: ${JSON.stringify(dropped)} });
      // A file saved (a recording, a filtered copy) is not one opened.
      fake.dialogAnswer = { canceled: false, filePaths: [], filePath: ${JSON.stringify(join(dir, 'app', 'out.wav'))} };
      res.saved = await p.bridge.chooseFile({ mode: 'save' });
      `,
      `process.argv = [process.execPath, ${JSON.stringify(first)}];`,
    );
    expect(one).toMatchObject({ atStart: [first], chosen, dropped });
    expect(one.atEnd).toEqual([dropped, chosen, first]);
    expect(one.onDisk).toEqual([dropped, chosen, first]);
    // Linux has no OS list of recent documents (macOS and Windows do).
    expect(one.osList).toEqual([]);

    // Run 2: a new main process, the same user-data folder.
    const two = run('two', '');
    expect(two.atStart).toEqual([dropped, chosen, first]);

    // Run 3: the chosen file was deleted meanwhile; Open Recent opens another as the command line does.
    rmSync(chosen);
    const three = run(
      'three',
      `
      fake.applicationMenu.getMenuItemById('recent-1').click({}, win);
      await wait(() => p.commands.length > 0);
      res.commands = p.commands;
      res.opened = await p.ask('openFile', { path: ${JSON.stringify(first)} });
      `,
    );
    expect(three.atStart).toEqual([dropped, first]);
    expect(three.commands).toEqual([{ type: 'open-files', paths: [first] }]);
    expect(three.opened).toMatchObject({ ok: true, result: { path: first } });
    expect(three.atEnd).toEqual([first, dropped]);
    expect(three.onDisk).toEqual([first, dropped]);

    // Run 4: Clear.
    const four = run(
      'four',
      `
      fake.applicationMenu.getMenuItemById('clear-recent').click({}, win);
      res.empty = fake.applicationMenu.getMenuItemById('recent-none')?.label ?? null;
      res.clearEnabled = fake.applicationMenu.getMenuItemById('clear-recent').enabled;
      `,
    );
    expect(four).toMatchObject({
      atStart: [first, dropped],
      atEnd: [],
      onDisk: [],
      empty: 'No recent files',
      clearEnabled: false,
    });
  });

  it('tells the OS list on macOS and Windows', () => {
    const res = run(
      'os',
      `await wait(() => p.commands.length > 0);`,
      `Object.defineProperty(process, 'platform', { value: 'win32' });
      process.argv = [process.execPath, ${JSON.stringify(files[0])}];`,
    );
    expect(res.osList).toEqual([files[0]]);
  });
});
