// @vitest-environment happy-dom
// The page's side of the desktop app's menu (lib/menu-commands.ts): each command the main process sends
// through the bridge is done by what already does it: files opened from outside open as the File view's
// Open does (and a missing one shows Open's one-line error), Open… asks the native dialog, the views'
// own export buttons are pressed (not a disabled one), the colormap and zoom go through their stores, the
// shortcuts' overlay and About open.
import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it } from 'vitest';
import type { AppCommand, PhasorBridge } from '../../electron/engine/protocol/bridge.js';
import { listenForCommands, menuDialogs } from '../../renderer/src/lib/menu-commands.js';
import { useConnectionStore } from '../../renderer/src/stores/connection.js';
import { useFilesStore } from '../../renderer/src/stores/files.js';
import { useLiveStore } from '../../renderer/src/stores/live.js';
import { useRecordingStore } from '../../renderer/src/stores/recording.js';
import { useSettingsStore } from '../../renderer/src/stores/settings.js';
import { useThemeStore } from '../../renderer/src/stores/theme.js';
import { RequestError } from '../../renderer/src/transport/connection.js';
import { FakeConnection, settle } from './fake-connection.js';
import { fileInfo } from './offline-fixtures.js';

let command: ((c: AppCommand) => void) | null = null;
let dialogAnswer: string | null = null;
const bridge: PhasorBridge = {
  send: () => undefined,
  onMessage: () => () => undefined,
  chooseFile: () => Promise.resolve(dialogAnswer),
  onCommand: (listener) => {
    command = listener;
    return () => (command = null);
  },
};

async function setUp() {
  localStorage.clear();
  document.body.innerHTML = '';
  setActivePinia(createPinia());
  window.phasor = bridge;
  const conn = new FakeConnection();
  conn.handle('openFile', (p) => {
    if (p.path.includes('gone')) throw new RequestError('io', `${p.path}: no such file`);
    return fileInfo({ path: p.path, name: p.path.split('/').pop()!, samples: 96000, duration: 2 });
  });
  await useConnectionStore().attach(conn);
  await settle();
  let view = 'live';
  const shown: string[] = [];
  const stop = listenForCommands({
    current: () => view,
    views: ['live', 'file', 'filter', 'correlate', 'bench'],
    // As App.vue does: the live session runs while the Live view is shown.
    select: (id) => {
      view = id;
      shown.push(id);
      void useLiveStore().setActive(id === 'live');
    },
  });
  const send = async (c: AppCommand) => {
    command!(c);
    await settle(10);
  };
  return { conn, shown, stop, send, view: () => view };
}

describe('menu commands in the page', () => {
  beforeEach(() => {
    menuDialogs.shortcuts = false;
    menuDialogs.about = null;
  });

  it('opens files given from outside in the File view, one line for one that is missing', async () => {
    const { conn, shown, send } = await setUp();
    await send({ type: 'open-files', paths: ['/rec/a.wav', '/rec/gone.wav'] });
    expect(shown).toEqual(['file']);
    expect(conn.requests.filter((r) => r.method === 'openFile').map((r) => r.params)).toEqual([
      { path: '/rec/a.wav' },
      { path: '/rec/gone.wav' },
    ]);
    const files = useFilesStore();
    expect(files.current?.path).toBe('/rec/a.wav');
    expect(files.error).toBe('/rec/gone.wav: no such file');
    // Open… : the native dialog, then the same open.
    dialogAnswer = '/rec/b.wav';
    await send({ type: 'open' });
    expect(files.current?.path).toBe('/rec/b.wav');
  });

  it("presses the shown view's export button, never a disabled one", async () => {
    const { send } = await setUp();
    const pressed: string[] = [];
    const button = (test: string, disabled = false) => {
      const b = document.createElement('button');
      b.dataset.test = test;
      b.disabled = disabled;
      b.addEventListener('click', () => pressed.push(test));
      document.body.append(b);
    };
    await send({ type: 'export-csv' });
    expect(pressed).toEqual([]);
    button('file-export-csv');
    button('snapshot', true);
    button('file-export-png');
    await send({ type: 'export-csv' });
    await send({ type: 'export-png' });
    expect(pressed).toEqual(['file-export-csv', 'file-export-png']);
  });

  it('switches views, sets the colormap, zooms the File view and opens the dialogs', async () => {
    const { shown, send, stop } = await setUp();
    await send({ type: 'view', view: 'bench' });
    await send({ type: 'view', view: 'nowhere' });
    expect(shown).toEqual(['bench']);
    const settings = useSettingsStore();
    await send({ type: 'colormap', colormap: 'magma' });
    expect(settings.s.colormap).toBe('magma');
    await send({ type: 'colormap', colormap: 'next' });
    expect(settings.s.colormap).toBe('turbo');
    await send({ type: 'colormap', colormap: 'rainbow' });
    expect(settings.s.colormap).toBe('turbo');
    const theme = useThemeStore();
    await send({ type: 'theme', theme: 'contrast' });
    expect([theme.choice, theme.theme, document.documentElement.dataset.theme]).toEqual([
      'contrast',
      'contrast',
      'contrast',
    ]);
    await send({ type: 'theme', theme: 'sepia' });
    expect(theme.choice).toBe('contrast');
    await send({ type: 'theme', theme: 'system' });
    expect(theme.choice).toBe('system');

    await send({ type: 'open-files', paths: ['/rec/a.wav'] });
    const files = useFilesStore();
    expect(files.region).toMatchObject({ t0: 0, t1: 2 });
    await send({ type: 'zoom', zoom: 'in' });
    expect(files.region!.t1 - files.region!.t0).toBeCloseTo(2 / 1.5, 6);
    await send({ type: 'zoom', zoom: 'reset' });
    expect(files.region).toMatchObject({ t0: 0, t1: 2 });

    await send({ type: 'shortcuts' });
    expect(menuDialogs.shortcuts).toBe(true);
    window.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape' }));
    expect(menuDialogs.shortcuts).toBe(false);
    const versions = { app: '0.1.0', electron: '45.0.0', chrome: '140.0.0.0', node: '22.12.0' };
    await send({ type: 'about', versions });
    expect(menuDialogs.about).toEqual(versions);
    stop();
    expect(command).toBeNull();
  });

  it('starts recording from another view once the Live view runs its source, and stops it', async () => {
    const { conn, shown, send, view } = await setUp();
    let recording = false;
    conn.handle('recordStart', (p) => {
      recording = true;
      return {
        path: p.path,
        format: 'sigmf',
        state: 'recording',
        frames: 0,
        seconds: 0,
        bytes: 0,
        droppedFrames: 0,
        gaps: 0,
      } as never;
    });
    conn.handle('recordStop', () => {
      recording = false;
      return {
        path: '/rec/live.sigmf-meta',
        format: 'sigmf',
        state: 'stopped',
        frames: 1,
        seconds: 1,
        bytes: 1,
        droppedFrames: 0,
        gaps: 0,
      } as never;
    });
    // The live source ran, then the user went to the File view (which stops it until the Live view is back).
    const live = useLiveStore();
    await live.start();
    await send({ type: 'view', view: 'file' });
    expect(live.running).toBe(false);
    dialogAnswer = '/rec/live.sigmf-meta';
    await send({ type: 'record' });
    await settle(20);
    expect(shown).toEqual(['file', 'live']);
    expect(view()).toBe('live');
    expect(live.running).toBe(true);
    expect(conn.last('recordStart')).toEqual({ path: '/rec/live.sigmf-meta' });
    expect(useRecordingStore().recording).toBe(true);
    await send({ type: 'record' });
    expect(recording).toBe(false);
    expect(useRecordingStore().recording).toBe(false);
  });
});
