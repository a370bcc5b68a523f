// The application menu: File (Open, Open Recent, Export, Record), View (the five views, zoom, colormap,
// full screen), Help (shortcuts, About). Built by the real main process against the stand-in for Electron
// (Menu.buildFromTemplate refuses an accelerator Electron could not parse), with the window's real
// preload: each item that acts on the page sends it one typed command, which the page's bridge hands on.
// Then the page's side (renderer/src/lib/menu-commands.ts) in happy-dom: each command done by the store
// or button that already does it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { colormapNames } from '../../electron/engine/output/colormaps.js';
import type { AppCommand } from '../../electron/engine/protocol/bridge.js';
import { MENU_VIEWS, menuTemplate, type MenuOptions } from '../../electron/main/menu.js';
import { root } from '../support/cli.js';
import { mainScript, runWithFakeElectron, useAppBuild } from './app-build.js';
import { PAGE_HELPERS } from './app-page.js';

const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;

describe('the menu template', () => {
  const options = (platform: NodeJS.Platform): MenuOptions => ({
    platform,
    recent: [],
    versions: { app: '1', electron: '2', chrome: '3', node: '4' },
    developer: false,
    send: () => undefined,
    openRecent: () => undefined,
    clearRecent: () => undefined,
  });
  type Item = { id?: string; role?: string; accelerator?: string; submenu?: unknown };
  const flat = (items: Item[]): Item[] =>
    items.flatMap((i) => [i, ...(Array.isArray(i.submenu) ? flat(i.submenu as Item[]) : [])]);

  it('names the views the page has, in its order (renderer/src/views.ts)', () => {
    const source = readFileSync(join(root, 'renderer/src/views.ts'), 'utf8');
    const views = [...source.matchAll(/\{\s*id: '([a-z]+)',\s*label: '([^']+)'/g)].map((m) => ({
      id: m[1],
      label: m[2],
    }));
    expect(views).toHaveLength(5);
    expect(MENU_VIEWS).toEqual(views);
  });

  it('on macOS: the app and window menus, no Quit in File, and no single-key accelerators', () => {
    const mac = menuTemplate(options('darwin'));
    expect(mac.map((m) => m.role ?? m.label)).toEqual([
      'appMenu',
      '&File',
      'editMenu',
      '&View',
      'windowMenu',
      'help',
    ]);
    const items = flat(mac as Item[]);
    expect(items.some((i) => i.role === 'quit')).toBe(false);
    expect(items.filter((i) => i.accelerator).map((i) => i.accelerator)).toEqual([
      'CmdOrCtrl+O',
      'CmdOrCtrl+E',
      'CmdOrCtrl+1',
      'CmdOrCtrl+2',
      'CmdOrCtrl+3',
      'CmdOrCtrl+4',
      'CmdOrCtrl+5',
    ]);
    const linux = flat(menuTemplate(options('linux')) as Item[]);
    expect(linux.some((i) => i.role === 'quit')).toBe(true);
    expect(linux.some((i) => i.role === 'toggleDevTools')).toBe(false);
    expect(
      flat(menuTemplate({ ...options('linux'), developer: true }) as Item[]).some(
        (i) => i.role === 'toggleDevTools',
      ),
    ).toBe(true);
  });
});

const app = useAppBuild('menu');

describe('the built app’s menu', () => {
  it('has the items with the app’s keys, and each click sends its command to the page', () => {
    expect(app.result().status).toBe(0);
    const r = runWithFakeElectron(
      app.out,
      'menu-check.mjs',
      mainScript(
        app.out,
        PAGE_HELPERS +
          `
      const menu = fake.applicationMenu;
      const res = { top: menu.items.map((i) => i.label || i.role) };
      const walk = (items) => items.flatMap((i) => [i, ...(i.submenu ? walk(i.submenu.items) : [])]);
      res.items = Object.fromEntries(walk(menu.items).filter((i) => i.id).map((i) => [i.id, {
        label: i.label, accelerator: i.accelerator ?? null, registered: i.registerAccelerator, role: i.role ?? null,
        enabled: i.enabled, parent: walk(menu.items).find((p) => p.submenu?.items.includes(i))?.label ?? null,
      }]));
      const win = appWindows()[0];
      const p = await page(win);
      await wait(() => win.webContents.sent.some((s) => s.channel === 'phasor:port'));
      const clicks = ['open', 'export-csv', 'export-png', 'record', 'view-live', 'view-file', 'view-filter', 'view-correlate',
        'view-bench', 'zoom-in', 'zoom-out', 'zoom-reset', 'colormap-next', 'colormap-magma', 'theme-light', 'theme-system', 'shortcuts', 'about'];
      for (const id of clicks) {
        const n = p.commands.length;
        menu.getMenuItemById(id).click({}, id === 'open' ? undefined : win);
        await wait(() => p.commands.length > n, 2000);
      }
      res.commands = p.commands;
      menu.getMenuItemById('full-screen').click({}, win);
      res.roles = fake.roles;
      process.stdout.write(JSON.stringify(res));
      process.exit(0);
      `,
        { setup: 'fake.runAppPreload = true;' },
      ),
    );
    expect(r.stdout, `the check printed nothing (status ${r.status}): ${r.stderr}`).not.toBe('');
    const res = JSON.parse(r.stdout) as {
      top: string[];
      items: Record<
        string,
        {
          label: string;
          accelerator: string | null;
          registered: boolean;
          role: string | null;
          enabled: boolean;
          parent: string | null;
        }
      >;
      commands: AppCommand[];
      roles: string[];
    };
    expect(res.top).toEqual(['&File', 'editMenu', '&View', '&Help']);
    const keys = Object.fromEntries(
      Object.entries(res.items).map(([id, i]) => [id, [i.parent, i.accelerator, i.registered]]),
    );
    expect(keys).toMatchObject({
      // Keys of their own, registered.
      open: ['&File', 'CmdOrCtrl+O', true],
      'export-csv': ['&File', 'CmdOrCtrl+E', true],
      'view-live': ['&View', 'CmdOrCtrl+1', true],
      'view-bench': ['&View', 'CmdOrCtrl+5', true],
      // The app's own keys: shown, left to the page.
      'export-png': ['&File', 'S', false],
      record: ['&File', 'R', false],
      'zoom-in': ['&View', 'Plus', false],
      'zoom-out': ['&View', '-', false],
      'zoom-reset': ['&View', '0', false],
      'colormap-next': ['Colormap', 'C', false],
      shortcuts: ['&Help', '?', false],
      about: ['&Help', null, true],
      'open-recent': ['&File', null, true],
      'clear-recent': ['Open Recent', null, true],
    });
    expect(res.items['full-screen']).toMatchObject({ parent: '&View', role: 'togglefullscreen' });
    expect(
      Object.keys(res.items).filter((id) => id.startsWith('colormap-') && id !== 'colormap-next'),
    ).toEqual(colormapNames.map((n) => `colormap-${n}`));
    // The page's theme choices (renderer/src/lib/theme.ts's THEME_CHOICES, read as text: that module
    // needs the DOM), in its order, under View ▸ Theme.
    const choices = /THEME_CHOICES[^=]*=\s*\[([^\]]*)\]/.exec(
      readFileSync(new URL('../../renderer/src/lib/theme.ts', import.meta.url), 'utf8'),
    )![1];
    const themeIds = [...choices.matchAll(/id: '(\w+)'/g)].map((m) => m[1]);
    expect(themeIds).toContain('contrast');
    expect(
      Object.entries(res.items)
        .filter(([id]) => id.startsWith('theme-'))
        .map(([id, i]) => [id, i.parent]),
    ).toEqual(themeIds.map((id) => [`theme-${id}`, 'Theme']));
    // An empty Open Recent says so; Clear has nothing to clear.
    expect(res.items['recent-none']).toMatchObject({ label: 'No recent files', enabled: false });
    expect(res.items['clear-recent'].enabled).toBe(false);

    expect(res.commands).toEqual([
      { type: 'open' },
      { type: 'export-csv' },
      { type: 'export-png' },
      { type: 'record' },
      ...MENU_VIEWS.map((v) => ({ type: 'view', view: v.id })),
      { type: 'zoom', zoom: 'in' },
      { type: 'zoom', zoom: 'out' },
      { type: 'zoom', zoom: 'reset' },
      { type: 'colormap', colormap: 'next' },
      { type: 'colormap', colormap: 'magma' },
      { type: 'theme', theme: 'light' },
      { type: 'theme', theme: 'system' },
      { type: 'shortcuts' },
      {
        type: 'about',
        versions: { app: version, electron: '45.0.0', chrome: '140.0.0.0', node: process.versions.node },
      },
    ]);
    expect(res.roles).toEqual(['togglefullscreen']);
  });
});
