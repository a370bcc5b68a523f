// Presets in the desktop app: the built app's main process against the stand-in for Electron, its engine
// host serving a window's port. A preset saved through one window's port lands in presets.json of the
// config folder (PHASOR_CONFIG_DIR, as phasor serve finds it), and a page reload's new port lists it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { presetsDocumentSchema } from '../../electron/engine/protocol/presets.js';
import { tempDir } from '../support/cli.js';
import { mainScript, runWithFakeElectron, useAppBuild } from './app-build.js';

const app = useAppBuild('presets');
const config = tempDir('phasor-host-presets-');
afterAll(() => config.remove());

const settings = {
  colormap: 'turbo',
  live: {
    fft: 8192,
    window: 'flattop',
    overlap: 0.5,
    averaging: 0.2,
    dbMin: -150,
    dbMax: -20,
    logFrequency: true,
    levelUnit: 'dBFS',
    traceMode: 'clear',
    traceAlpha: 0.1,
    traceFrames: 16,
  },
  file: { window: 'hann', fft: 0, autoLevels: true, dbMin: -120, dbMax: 0 },
};

describe('presets in the desktop app', () => {
  it('saves through a window’s port into the config folder, and a reloaded window lists them', () => {
    expect(app.result().status).toBe(0);
    const script = mainScript(
      app.out,
      `
      const res = {};
      const win = fake.windows[0];
      const frame = { url: 'phasor://app/index.html', parent: null };
      const connect = () => fake.ipc.get('phasor:connect')({ sender: win.webContents, senderFrame: frame }, { protocol: 1 });
      connect();
      const ports = () => win.webContents.sent.filter((s) => s.channel === 'phasor:port').map((s) => s.transfer[0]);
      const ask = async (port, id, method, params = {}) => {
        port.postMessage({ type: 'request', id, method, params });
        await wait(() => port.received.some((m) => m.type === 'reply' && m.id === id));
        return port.received.find((m) => m.type === 'reply' && m.id === id) ?? null;
      };
      const first = ports()[0];
      first.start();
      res.save = await ask(first, 1, 'savePreset', { name: 'Desk', settings: ${JSON.stringify(settings)} });
      res.clash = await ask(first, 2, 'savePreset', { name: 'desk', settings: ${JSON.stringify(settings)} });
      connect();
      await wait(() => ports().length > 1);
      const second = ports()[1];
      second.start();
      res.list = await ask(second, 1, 'listPresets');
      for (const fn of fake.appEvents.get('will-quit') ?? []) fn({ preventDefault: () => {} });
      await wait(() => fake.quits > 0);
      process.stdout.write(JSON.stringify(res));
      process.exit(0);
    `,
    );
    process.env.PHASOR_CONFIG_DIR = config.dir;
    let r;
    try {
      r = runWithFakeElectron(app.out, 'presets-check.mjs', script);
    } finally {
      delete process.env.PHASOR_CONFIG_DIR;
    }
    expect(r.stdout, `the check printed nothing (status ${r.status}): ${r.stderr}`).not.toBe('');
    const res = JSON.parse(r.stdout) as Record<
      string,
      { ok: boolean; result?: { file: string; presets: unknown[] }; error?: { message: string } }
    >;
    const file = join(config.dir, 'presets.json');
    expect(res.save.ok).toBe(true);
    expect(res.save.result!.file).toBe(file);
    expect(res.clash).toMatchObject({
      ok: false,
      error: { message: 'a preset named "Desk" exists already: choose another name or replace it' },
    });
    expect(res.list.result).toMatchObject({ file, presets: [{ name: 'Desk', settings }] });
    const doc = presetsDocumentSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
    expect(doc.presets.map((p) => [p.name, p.settings])).toEqual([['Desk', settings]]);
  });
});
