// What the desktop app's menu asks of the page (the main process's AppCommand, through the preload's
// onCommand), carried out by what already does each thing: the files store's Open and open, the views'
// own export and snapshot buttons, the recording store, the viewport and files stores' zoom, the settings
// store's colormap. Files opened from outside (command line, file manager, a second launch, Open Recent)
// come as 'open-files', already granted to this window, and open in the File view as Open's do.
// Web mode has no bridge, and so no commands.

import { reactive, watch } from 'vue';
import type { AboutVersions, AppCommand } from '../../../electron/engine/protocol/bridge.js';
import { useFilesStore } from '../stores/files.js';
import { useRecordingStore } from '../stores/recording.js';
import { useSettingsStore } from '../stores/settings.js';
import { useThemeStore } from '../stores/theme.js';
import { useViewportStore } from '../stores/viewport.js';
import { bridge } from './bridge.js';
import { isColormap, nextColormap } from './colormap.js';
import { isThemeChoice } from './theme.js';

/** The dialogs the menu opens (App.vue shows them). */
export const menuDialogs = reactive({
  shortcuts: false,
  about: null as AboutVersions | null,
});

export interface MenuContext {
  /** The view shown now, and the views there are. */
  current(): string;
  views: readonly string[];
  select(view: string): void;
}

/** The first enabled button of the shown view among `tests` (data-test names), clicked; false for none. */
function clickButton(...tests: string[]): boolean {
  for (const t of tests) {
    const b = document.querySelector<HTMLButtonElement>(`[data-test="${t}"]`);
    if (b && !b.disabled) {
      b.click();
      return true;
    }
  }
  return false;
}

const ZOOM = 1.5;
/** How long Start Recording from another view waits for the live source to run. */
const SOURCE_START_MS = 10_000;

/** Resolves true once `check()` holds, false after `ms`. */
function until(check: () => boolean, ms: number): Promise<boolean> {
  if (check()) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      stop();
      resolve(false);
    }, ms);
    const stop = watch(check, (ok) => {
      if (!ok) return;
      clearTimeout(timer);
      stop();
      resolve(true);
    });
  });
}

/** Carries out one command. */
export async function runCommand(c: AppCommand, ctx: MenuContext): Promise<void> {
  switch (c.type) {
    case 'open':
      ctx.select('file');
      await useFilesStore().chooseAndOpen();
      return;
    case 'open-files': {
      ctx.select('file');
      const files = useFilesStore();
      // One after another, as the user would; each failure shows as Open's does (files.error).
      for (const p of c.paths) await files.open(p);
      return;
    }
    case 'export-csv':
      clickButton('export-csv', 'file-export-csv');
      return;
    case 'export-png':
      clickButton('snapshot', 'file-export-png');
      return;
    case 'record': {
      // Recording takes the live source: shown in the Live view, with its record button and state. From
      // another view, the source starts with the view; recording starts once it runs (the view shows why
      // when it cannot).
      const recording = useRecordingStore();
      if (ctx.current() !== 'live') {
        ctx.select('live');
        if (!(await until(() => recording.available, SOURCE_START_MS))) return;
      }
      await recording.toggle();
      return;
    }
    case 'view':
      if (ctx.views.includes(c.view)) ctx.select(c.view);
      return;
    case 'zoom':
      zoom(c.zoom, ctx.current());
      return;
    case 'colormap': {
      const s = useSettingsStore().s;
      if (c.colormap === 'next') s.colormap = nextColormap(s.colormap);
      else if (isColormap(c.colormap)) s.colormap = c.colormap;
      return;
    }
    case 'theme':
      if (isThemeChoice(c.theme)) useThemeStore().choose(c.theme);
      return;
    case 'shortcuts':
      menuDialogs.shortcuts = true;
      return;
    case 'about':
      menuDialogs.about = c.versions;
      return;
  }
}

/** The +, − and 0 keys of the Live view (frequency) and the File view (time). */
function zoom(how: 'in' | 'out' | 'reset', view: string): void {
  if (view === 'live') {
    const v = useViewportStore();
    if (how === 'reset') v.reset();
    else v.zoomFrequency(how === 'in' ? ZOOM : 1 / ZOOM, v.cursor?.x ?? 0.5);
  } else if (view === 'file') {
    const f = useFilesStore();
    if (how === 'reset') f.resetView();
    else f.zoomTime(how === 'in' ? ZOOM : 1 / ZOOM);
  }
}

/** Listens for the menu's commands (desktop only); returns a function that stops. Escape closes the
 * shortcuts' overlay, as it does the Live view's own. */
export function listenForCommands(ctx: MenuContext): () => void {
  const onKey = (ev: KeyboardEvent): void => {
    if (ev.key === 'Escape' && menuDialogs.shortcuts) menuDialogs.shortcuts = false;
  };
  window.addEventListener('keydown', onKey);
  const stop = bridge()?.onCommand?.((c) => {
    runCommand(c, ctx).catch((e: unknown) => console.error('phasor: a menu command failed', e));
  });
  return () => {
    window.removeEventListener('keydown', onKey);
    stop?.();
  };
}
