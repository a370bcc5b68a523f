// The native file dialog's IPC handler, run without Electron: trusted senders only, validated options,
// one dialog per window, open/save mapped to Electron's dialog options, never a throw.
import { describe, expect, it } from 'vitest';
import { FileDialogs, type DialogHost, type NativeDialogOptions } from '../../electron/main/dialog.js';
import type { IpcEventLike } from '../../electron/main/ipc.js';

const APP_ID = 3;
const good: IpcEventLike = {
  sender: { id: APP_ID },
  senderFrame: { url: 'phasor://app/index.html', parent: null },
};

function host(answer: { open?: string[] | null; save?: string | null; fail?: string } = {}) {
  const calls: Array<{ kind: 'open' | 'save'; options: NativeDialogOptions }> = [];
  let release: (() => void) | null = null;
  const h: DialogHost & { hold: boolean } = {
    hold: false,
    isAppUrl: (url) => url.startsWith('phasor://app/'),
    isAppWebContents: (id) => id === APP_ID,
    async showOpen(_e, options) {
      calls.push({ kind: 'open', options });
      if (answer.fail) throw new Error(answer.fail);
      if (h.hold) await new Promise<void>((r) => (release = r));
      const paths = answer.open === undefined ? ['/data/rec.wav'] : answer.open;
      return paths === null ? { canceled: true, filePaths: [] } : { canceled: false, filePaths: paths };
    },
    async showSave(_e, options) {
      calls.push({ kind: 'save', options });
      const p = answer.save === undefined ? '/data/out.wav' : answer.save;
      return p === null ? { canceled: true } : { canceled: false, filePath: p };
    },
  };
  return { h, calls, release: () => release?.() };
}

describe('file dialog IPC', () => {
  it('opens a file for a trusted page and passes the options through', async () => {
    const { h, calls } = host();
    const d = new FileDialogs(h);
    const r = await d.handle(good, {
      mode: 'open',
      title: 'Open a recording',
      defaultPath: '/data',
      filters: [
        { name: 'Recordings', extensions: ['wav', 'sigmf-meta', 'cf32'] },
        { name: 'All', extensions: ['*'] },
      ],
    });
    expect(r).toEqual({ ok: true, path: '/data/rec.wav' });
    expect(calls).toEqual([
      {
        kind: 'open',
        options: {
          title: 'Open a recording',
          defaultPath: '/data',
          filters: [
            { name: 'Recordings', extensions: ['wav', 'sigmf-meta', 'cf32'] },
            { name: 'All', extensions: ['*'] },
          ],
          properties: ['openFile'],
        },
      },
    ]);
  });

  it('asks for a new name in save mode, and gives null when the user cancels', async () => {
    const saved = host();
    expect(await new FileDialogs(saved.h).handle(good, { mode: 'save', defaultPath: 'low.wav' })).toEqual({
      ok: true,
      path: '/data/out.wav',
    });
    expect(saved.calls[0]).toEqual({
      kind: 'save',
      options: { defaultPath: 'low.wav', properties: ['createDirectory', 'showOverwriteConfirmation'] },
    });
    expect(await new FileDialogs(host({ open: null }).h).handle(good, { mode: 'open' })).toEqual({
      ok: true,
      path: null,
    });
    expect(await new FileDialogs(host({ save: null }).h).handle(good, { mode: 'save' })).toEqual({
      ok: true,
      path: null,
    });
  });

  it('refuses untrusted senders and malformed options with an error reply, never a throw', async () => {
    const { h, calls } = host();
    const d = new FileDialogs(h);
    const cases: Array<[unknown, unknown, string]> = [
      [undefined, { mode: 'open' }, 'forbidden'],
      [{ sender: { id: 9 }, senderFrame: good.senderFrame }, { mode: 'open' }, 'forbidden'],
      [
        { sender: { id: APP_ID }, senderFrame: { url: 'https://evil.example/', parent: null } },
        { mode: 'open' },
        'forbidden',
      ],
      [
        { sender: { id: APP_ID }, senderFrame: { url: 'phasor://app/index.html', parent: {} } },
        { mode: 'open' },
        'forbidden',
      ],
      [good, undefined, 'bad-request'],
      [good, 'open', 'bad-request'],
      [good, {}, 'bad-request'],
      [good, { mode: 'delete' }, 'bad-request'],
      [good, { mode: 'open', extra: 1 }, 'bad-request'],
      [good, { mode: 'open', title: 'x'.repeat(201) }, 'bad-request'],
      [good, { mode: 'open', defaultPath: '' }, 'bad-request'],
      [good, { mode: 'open', filters: [{ name: 'x', extensions: ['../etc'] }] }, 'bad-request'],
      [good, { mode: 'open', filters: [{ name: 'x', extensions: [] }] }, 'bad-request'],
      [good, { mode: 'open', filters: 'wav' }, 'bad-request'],
      [good, JSON.parse('{"mode": "open", "__proto__": {"x": 1}}'), 'bad-request'],
    ];
    for (const [event, payload, code] of cases) {
      const r = await d.handle(event, payload);
      expect(r.ok, JSON.stringify(payload)).toBe(false);
      if (!r.ok) {
        expect(r.error.code).toBe(code);
        expect(r.error.message.length).toBeGreaterThan(5);
      }
    }
    expect(calls).toEqual([]);
  });

  it('shows one dialog at a time per window, and reports a failing dialog', async () => {
    const held = host();
    held.h.hold = true;
    const d = new FileDialogs(held.h);
    const first = d.handle(good, { mode: 'open' });
    expect(await d.handle(good, { mode: 'open' })).toEqual({
      ok: false,
      error: { code: 'busy', message: 'a file dialog is already open in this window' },
    });
    held.release();
    expect(await first).toEqual({ ok: true, path: '/data/rec.wav' });
    held.h.hold = false;
    expect((await d.handle(good, { mode: 'open' })).ok).toBe(true);
    const broken = await new FileDialogs(host({ fail: 'no display' }).h).handle(good, { mode: 'open' });
    expect(broken).toEqual({
      ok: false,
      error: { code: 'internal', message: 'the file dialog failed: no display' },
    });
  });
});

describe('what a dialog or a drop grants the engine', () => {
  it('grants the chosen path to the window that asked, and nothing when the user cancels', async () => {
    const granted: Array<[number, string, boolean]> = [];
    const opened = host();
    const d = new FileDialogs({ ...opened.h, grant: (id, p, beside) => granted.push([id, p, beside]) });
    await d.handle(good, { mode: 'open' });
    await d.handle(good, { mode: 'save' });
    // An opened file also lets new files be made beside it (a filtered copy); a saved one does not.
    expect(granted).toEqual([
      [APP_ID, '/data/rec.wav', true],
      [APP_ID, '/data/out.wav', false],
    ]);
    const cancelled = host({ open: null });
    await new FileDialogs({ ...cancelled.h, grant: (id, p, b) => granted.push([id, p, b]) }).handle(good, {
      mode: 'open',
    });
    expect(granted).toHaveLength(2);
  });

  it('grants a dropped file’s absolute path, only from a Phasor window', () => {
    const granted: Array<[number, string, boolean]> = [];
    const d = new FileDialogs({ ...host().h, grant: (id, p, beside) => granted.push([id, p, beside]) });
    expect(d.handleDropped(good, { path: '/data/dropped.wav' })).toBe(true);
    const foreign = { sender: { id: 9 }, senderFrame: good.senderFrame };
    expect(d.handleDropped(foreign, { path: '/etc/shadow' })).toBe(false);
    for (const bad of [{ path: 'relative.wav' }, { path: '' }, { path: '/a\0b' }, '/data/x.wav', null])
      expect(d.handleDropped(good, bad)).toBe(false);
    expect(granted).toEqual([[APP_ID, '/data/dropped.wav', true]]);
  });
});
