// Opening files like a desktop app: the files on the command line (a packaged app's and `electron . file`'s,
// switches left out, relative paths resolved against where the command ran), a second launch's (resolved
// against its own folder, sent to the running window, which comes to the front), macOS's 'open-file' at
// launch. First the parts as they are, then the built main process against the stand-in for Electron
// with the window's real preload: a real WAV given on the command line reaches the page, is granted to
// its engine connection and opens, while a file nobody gave stays refused and a missing one says so.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { filesFromArgv, OpenFiles } from '../../electron/main/open-files.js';
import { tones } from '../support/signals.js';
import { writeTestWav } from '../support/wav.js';
import { mainScript, runWithFakeElectron, useAppBuild } from './app-build.js';
import { PAGE_HELPERS } from './app-page.js';

const dir = mkdtempSync(join(tmpdir(), 'phasor-open-files-'));
mkdirSync(join(dir, 'sub'));
const wav = join(dir, 'tone.wav');
const second = join(dir, 'sub', 'second.wav');
const other = join(dir, 'not-given.wav');
writeTestWav(wav, tones(4800, 48000, [{ frequency: 1000, amplitude: 0.5 }]), 48000, 1);
writeTestWav(second, tones(2205, 22050, [{ frequency: 500, amplitude: 0.5 }]), 22050, 1);
writeTestWav(other, tones(4800, 48000, [{ frequency: 2000, amplitude: 0.5 }]), 48000, 1);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('files on a command line', () => {
  const exe = '/opt/Phasor/phasor';
  it("takes a packaged app's arguments after the executable, resolved against the folder it ran in", () => {
    expect(
      filesFromArgv([exe, 'a.wav', '/data/b.sigmf-meta', '../c.cf32'], {
        defaultApp: false,
        cwd: '/home/u/rec',
      }),
    ).toEqual(['/home/u/rec/a.wav', '/data/b.sigmf-meta', '/home/u/c.cf32']);
    expect(filesFromArgv([exe], { defaultApp: false, cwd: '/home/u' })).toEqual([]);
  });

  it('skips the app path of `electron . file` (development)', () => {
    expect(
      filesFromArgv(['/usr/lib/electron/electron', '.', 'a.wav'], { defaultApp: true, cwd: '/w' }),
    ).toEqual(['/w/a.wav']);
  });

  it('leaves out Chromium switches and macOS -psn, but not what follows --; dedupes', () => {
    const argv = [
      exe,
      '--no-sandbox',
      '-psn_0_12345',
      '--original-process-start-time=1',
      'a.wav',
      'a.wav',
      '--',
      '-odd.wav',
    ];
    expect(filesFromArgv(argv, { defaultApp: false, cwd: '/w' })).toEqual(['/w/a.wav', '/w/-odd.wav']);
  });

  it('turns file:// URLs (a desktop entry’s %U) into paths and ignores other URLs', () => {
    const url = pathToFileURL('/data/with space/x.wav').href;
    expect(
      filesFromArgv([exe, url, 'https://example.com/x.wav', 'phasor://app/'], {
        defaultApp: false,
        cwd: '/w',
      }),
    ).toEqual(['/data/with space/x.wav']);
  });
});

describe('the router of files given from outside', () => {
  function router(focused: number | null = null) {
    const log: string[] = [];
    const files = new OpenFiles({
      pick: (ready) => (focused !== null && ready.includes(focused) ? focused : (ready[0] ?? null)),
      grant: (id, p) => log.push(`grant ${id} ${p}`),
      send: (id, paths) => log.push(`send ${id} ${paths.join(',')}`),
      focus: (id) => log.push(`focus ${id}`),
    });
    return { files, log };
  }

  it('keeps files until a window is connected, then grants them to it before asking it to open them', () => {
    const { files, log } = router();
    files.open(['/a.wav', '/b.wav', '/a.wav', 'relative.wav']);
    expect(files.waiting).toEqual(['/a.wav', '/b.wav']);
    expect(log).toEqual([]);
    files.ready(7);
    expect(log).toEqual(['grant 7 /a.wav', 'grant 7 /b.wav', 'send 7 /a.wav,/b.wav', 'focus 7']);
    expect(files.waiting).toEqual([]);
  });

  it('sends to the focused connected window, and to no window that went away', () => {
    const { files, log } = router(9);
    files.ready(7);
    files.ready(9);
    files.open(['/c.wav']);
    expect(log).toEqual(['grant 9 /c.wav', 'send 9 /c.wav', 'focus 9']);
    files.gone(9);
    files.gone(7);
    files.open(['/d.wav']);
    expect(log).toHaveLength(3);
    files.ready(7);
    expect(log.slice(3)).toEqual(['grant 7 /d.wav', 'send 7 /d.wav', 'focus 7']);
  });
});

const app = useAppBuild('open-files');

function run(file: string, body: string, setup: string) {
  const r = runWithFakeElectron(app.out, file, mainScript(app.out, PAGE_HELPERS + body, { setup }));
  expect(
    r.stdout,
    `the check printed nothing (status ${r.status}, signal ${r.signal}): ${r.stderr}`,
  ).not.toBe('');
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

describe('the built app opens the files it is given', () => {
  it('opens a real file from its command line in the window, granted; a missing one says so', () => {
    expect(app.result().status).toBe(0);
    const res = run(
      'open-files-argv.mjs',
      `
      const p = await page(appWindows()[0]);
      await wait(() => p.commands.length > 0);
      const res = { commands: p.commands };
      const paths = p.commands[0]?.paths ?? [];
      res.opened = await p.ask('openFile', { path: paths[0] });
      res.missing = await p.ask('openFile', { path: paths[1] });
      res.notGiven = await p.ask('openFile', { path: ${JSON.stringify(other)} });
      process.stdout.write(JSON.stringify(res));
      process.exit(0);
      `,
      `
      fake.runAppPreload = true;
      process.chdir(${JSON.stringify(dir)});
      process.argv = [process.execPath, '--no-sandbox', 'tone.wav', 'gone.wav'];
      `,
    );
    expect(res.commands).toEqual([{ type: 'open-files', paths: [wav, join(dir, 'gone.wav')] }]);
    expect(res.opened).toMatchObject({
      ok: true,
      result: { path: wav, sampleRate: 48000, channels: 1, samples: 4800 },
    });
    expect(res.missing).toEqual({ ok: false, error: `${join(dir, 'gone.wav')}: no such file` });
    expect(res.notGiven).toMatchObject({
      ok: false,
      error: expect.stringMatching(/outside the folders this client may use/),
    });
  });

  it('skips the app path in development (`electron . file`)', () => {
    const res = run(
      'open-files-dev.mjs',
      `
      const p = await page(appWindows()[0]);
      await wait(() => p.commands.length > 0);
      const res = { commands: p.commands, opened: await p.ask('openFile', { path: ${JSON.stringify(wav)} }) };
      process.stdout.write(JSON.stringify(res));
      process.exit(0);
      `,
      `
      fake.runAppPreload = true;
      process.defaultApp = true;
      process.argv = ['/usr/lib/electron/electron', '.', ${JSON.stringify(wav)}];
      `,
    );
    expect(res.commands).toEqual([{ type: 'open-files', paths: [wav] }]);
    expect(res.opened).toMatchObject({ ok: true });
  });

  it("opens a second launch's files in the running window, relative to the second launch's folder", () => {
    const res = run(
      'open-files-second.mjs',
      `
      const win = appWindows()[0];
      const p = await page(win);
      await wait(() => win.webContents.sent.some((s) => s.channel === 'phasor:port'));
      const res = { before: await p.ask('openFile', { path: ${JSON.stringify(second)} }) };
      win.minimized = true;
      fake.focused = null;
      const restores = win.restoreCount ?? 0;
      // The second instance ran in <dir>/sub with a relative path and a switch Chromium added.
      fake.emitApp('second-instance', [process.execPath, '--original-process-start-time=13', 'second.wav'], ${JSON.stringify(join(dir, 'sub'))}, {});
      await wait(() => p.commands.length > 0);
      res.commands = p.commands;
      res.after = await p.ask('openFile', { path: ${JSON.stringify(second)} });
      res.window = { restored: (win.restoreCount ?? 0) > restores, focused: fake.focused === win, minimized: win.isMinimized(), windows: appWindows().length };
      process.stdout.write(JSON.stringify(res));
      process.exit(0);
      `,
      `fake.runAppPreload = true;`,
    );
    // Not the user's choice until the second launch named it.
    expect(res.before).toMatchObject({ ok: false, error: expect.stringMatching(/outside the folders/) });
    expect(res.commands).toEqual([{ type: 'open-files', paths: [second] }]);
    expect(res.after).toMatchObject({ ok: true, result: { sampleRate: 22050 } });
    expect(res.window).toEqual({ restored: true, focused: true, minimized: false, windows: 1 });
  });

  it("takes macOS's 'open-file' that comes before 'ready', and opens it once the window connects", () => {
    const res = run(
      'open-files-mac.mjs',
      `
      const p = await page(appWindows()[0]);
      await wait(() => p.commands.length > 0);
      const res = { commands: [...p.commands], opened: await p.ask('openFile', { path: ${JSON.stringify(wav)} }) };
      // While running: handled (preventDefault), and opened in the window.
      res.prevented = fake.emitApp('open-file', ${JSON.stringify(second)});
      await wait(() => p.commands.length > 1);
      res.later = p.commands[1] ?? null;
      process.stdout.write(JSON.stringify(res));
      process.exit(0);
      `,
      `
      fake.runAppPreload = true;
      fake.openAtLaunch = [${JSON.stringify(wav)}];
      `,
    );
    expect(res.commands).toEqual([{ type: 'open-files', paths: [wav] }]);
    expect(res.opened).toMatchObject({ ok: true });
    expect(res.prevented).toBe(true);
    expect(res.later).toEqual({ type: 'open-files', paths: [second] });
  });

  it('quits at once when another instance runs (which gets this command line)', () => {
    const res = run(
      'open-files-lock.mjs',
      `
      await new Promise((r) => setTimeout(r, 50));
      process.stdout.write(JSON.stringify({ quits: fake.quits, windows: fake.windows.length, menu: fake.applicationMenu !== null }));
      process.exit(0);
      `,
      `
      fake.singleInstanceLock = false;
      process.argv = [process.execPath, ${JSON.stringify(wav)}];
      `,
    );
    expect(res).toEqual({ quits: 1, windows: 0, menu: false });
  });
});
