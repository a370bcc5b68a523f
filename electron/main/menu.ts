// The desktop app's application menu, as a template for Menu.buildFromTemplate (index.ts sets it). Kept
// free of Electron's runtime so tests read the template as it is. Items that act on the page send it one
// typed command (AppCommand, over COMMAND_CHANNEL; the preload hands it to the page, which carries it out
// with the stores and buttons that already do it: renderer/src/lib/menu-commands.ts). Open Recent and
// Clear are the main process's own (recent.ts).
//
// Accelerators: the app's own single keys (+, −, 0, C, S, R, ?) are shown beside their items but not
// registered, so that the page's key handlers keep them (and typing them into a field still types them);
// the items without a key of their own get a registered Ctrl/Cmd one. macOS shows no unregistered keys:
// it would register them anyway.

import path from 'node:path';
import type { MenuItemConstructorOptions } from 'electron';
import type { AboutVersions, AppCommand } from '../engine/protocol/bridge.js';

/** main → preload: an AppCommand. */
export const COMMAND_CHANNEL = 'phasor:command';

/** The page's views (renderer/src/views.ts), in its order: View ▸ <label>, Ctrl/Cmd+<n>. */
export const MENU_VIEWS = [
  { id: 'live', label: 'Live' },
  { id: 'file', label: 'File' },
  { id: 'filter', label: 'Filter' },
  { id: 'correlate', label: 'Correlation' },
  { id: 'bench', label: 'Benchmark' },
] as const;

/** The engine's colormaps (engine/output/colormaps.ts's colormapNames, which the main process may not
 * import: it never loads the engine); menu.test.ts checks that they agree. */
export const MENU_COLORMAPS = ['viridis', 'inferno', 'magma', 'turbo', 'gray'] as const;

/** The page's theme choices (renderer/src/lib/theme.ts's THEME_CHOICES; menu.test.ts checks them). */
export const MENU_THEMES = [
  ['system', 'System'],
  ['dark', 'Dark'],
  ['light', 'Light'],
  ['contrast', 'High Contrast'],
] as const;

export interface MenuOptions {
  platform: NodeJS.Platform;
  /** Files for Open Recent, most recent first (recent.ts's list). */
  recent: readonly string[];
  versions: AboutVersions;
  /** Development build: Reload and the developer tools in View. */
  developer: boolean;
  /** Sends `command` to the page of `window` (the window the item was used in; undefined for none). */
  send(command: AppCommand, window: unknown): void;
  /** Open Recent ▸ `file`, used in `window`. */
  openRecent(file: string, window: unknown): void;
  clearRecent(): void;
}

/** A label showing `text` as it is (Electron reads `&` as a mnemonic mark on Windows and Linux). */
function literal(text: string): string {
  return text.replace(/&/g, '&&');
}

export function menuTemplate(o: MenuOptions): MenuItemConstructorOptions[] {
  const mac = o.platform === 'darwin';
  const command =
    (c: AppCommand) =>
    (_item: unknown, window: unknown): void =>
      o.send(c, window);
  /** The app's own key for an item: shown, left to the page. */
  const pageKey = (key: string): Partial<MenuItemConstructorOptions> =>
    mac ? {} : { accelerator: key, registerAccelerator: false };

  const recent: MenuItemConstructorOptions[] =
    o.recent.length > 0
      ? o.recent.map((file, i) => ({
          id: `recent-${i}`,
          label: literal(`${path.basename(file)} — ${path.dirname(file)}`),
          toolTip: file,
          click: (_item: unknown, window: unknown) => o.openRecent(file, window),
        }))
      : [{ id: 'recent-none', label: 'No recent files', enabled: false }];

  const file: MenuItemConstructorOptions = {
    label: '&File',
    submenu: [
      { id: 'open', label: 'Open…', accelerator: 'CmdOrCtrl+O', click: command({ type: 'open' }) },
      {
        id: 'open-recent',
        label: 'Open Recent',
        submenu: [
          ...recent,
          { type: 'separator' },
          {
            id: 'clear-recent',
            label: 'Clear Recent',
            enabled: o.recent.length > 0,
            click: () => o.clearRecent(),
          },
        ],
      },
      { type: 'separator' },
      {
        id: 'export-csv',
        label: 'Export Spectrum (CSV)…',
        accelerator: 'CmdOrCtrl+E',
        click: command({ type: 'export-csv' }),
      },
      {
        id: 'export-png',
        label: 'Export Image (PNG)…',
        ...pageKey('S'),
        click: command({ type: 'export-png' }),
      },
      { type: 'separator' },
      { id: 'record', label: 'Start/Stop Recording', ...pageKey('R'), click: command({ type: 'record' }) },
      ...(mac ? [] : [{ type: 'separator' } as const, { role: 'quit' } as const]),
    ],
  };

  const view: MenuItemConstructorOptions = {
    label: '&View',
    submenu: [
      ...MENU_VIEWS.map((v, i): MenuItemConstructorOptions => ({
        id: `view-${v.id}`,
        label: v.label,
        accelerator: `CmdOrCtrl+${i + 1}`,
        click: command({ type: 'view', view: v.id }),
      })),
      { type: 'separator' },
      { id: 'zoom-in', label: 'Zoom In', ...pageKey('Plus'), click: command({ type: 'zoom', zoom: 'in' }) },
      { id: 'zoom-out', label: 'Zoom Out', ...pageKey('-'), click: command({ type: 'zoom', zoom: 'out' }) },
      {
        id: 'zoom-reset',
        label: 'Show Everything',
        ...pageKey('0'),
        click: command({ type: 'zoom', zoom: 'reset' }),
      },
      {
        id: 'colormap',
        label: 'Colormap',
        submenu: [
          {
            id: 'colormap-next',
            label: 'Next Colormap',
            ...pageKey('C'),
            click: command({ type: 'colormap', colormap: 'next' }),
          },
          { type: 'separator' },
          ...MENU_COLORMAPS.map((name) => ({
            id: `colormap-${name}`,
            label: name[0].toUpperCase() + name.slice(1),
            click: command({ type: 'colormap', colormap: name }),
          })),
        ],
      },
      {
        id: 'theme',
        label: 'Theme',
        submenu: MENU_THEMES.map(([id, label]) => ({
          id: `theme-${id}`,
          label,
          click: command({ type: 'theme', theme: id }),
        })),
      },
      { type: 'separator' },
      { id: 'full-screen', role: 'togglefullscreen' },
      ...(o.developer
        ? [
            { type: 'separator' } as const,
            { role: 'reload' } as const,
            { role: 'forceReload' } as const,
            { role: 'toggleDevTools' } as const,
          ]
        : []),
    ],
  };

  const help: MenuItemConstructorOptions = {
    role: 'help',
    label: '&Help',
    submenu: [
      {
        id: 'shortcuts',
        label: 'Keyboard Shortcuts',
        ...pageKey('?'),
        click: command({ type: 'shortcuts' }),
      },
      { type: 'separator' },
      {
        id: 'about',
        label: 'About Phasor',
        click: command({ type: 'about', versions: { ...o.versions } }),
      },
    ],
  };

  return [
    ...(mac ? [{ role: 'appMenu' } as const] : []),
    file,
    { role: 'editMenu' },
    view,
    ...(mac ? [{ role: 'windowMenu' } as const] : []),
    help,
  ];
}
