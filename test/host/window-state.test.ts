// The main window's saved state: validation, fitting to the screens there are now, saving atomically.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_WINDOW,
  fitToDisplays,
  loadWindowState,
  parseWindowState,
  saveWindowState,
} from '../../electron/main/window-state.js';

const dir = mkdtempSync(join(tmpdir(), 'phasor-window-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const screen = { x: 0, y: 0, width: 1920, height: 1040 };

describe('window state', () => {
  it('falls back to the default for anything that is not a state', () => {
    for (const v of [
      null,
      3,
      'x',
      {},
      { width: 10, height: 10, maximized: false },
      { width: 800, height: 600, maximized: 'yes' },
    ]) {
      expect(parseWindowState(v)).toEqual(DEFAULT_WINDOW);
    }
    expect(parseWindowState({ x: 10, y: 20, width: 900, height: 700, maximized: true })).toEqual({
      x: 10,
      y: 20,
      width: 900,
      height: 700,
      maximized: true,
    });
  });

  it('keeps a position on a screen and drops one on a screen that is gone', () => {
    expect(fitToDisplays({ x: 100, y: 50, width: 1000, height: 700, maximized: false }, [screen])).toEqual({
      x: 100,
      y: 50,
      width: 1000,
      height: 700,
      maximized: false,
    });
    // Saved on a second monitor to the right, now unplugged.
    expect(fitToDisplays({ x: 2500, y: 100, width: 1000, height: 700, maximized: false }, [screen])).toEqual({
      width: 1000,
      height: 700,
      maximized: false,
    });
    // Larger than any screen: shrunk to it.
    expect(
      fitToDisplays({ width: 5000, height: 3000, maximized: true }, [
        screen,
        { x: 1920, y: 0, width: 1280, height: 1024 },
      ]),
    ).toEqual({
      width: 1920,
      height: 1040,
      maximized: true,
    });
  });

  it('saves and loads through a file, ignoring a damaged one', () => {
    const file = join(dir, 'sub', 'window-state.json');
    expect(loadWindowState(file)).toEqual(DEFAULT_WINDOW);
    saveWindowState(file, { x: 5, y: 6, width: 1000, height: 800, maximized: false });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      x: 5,
      y: 6,
      width: 1000,
      height: 800,
      maximized: false,
    });
    expect(loadWindowState(file)).toEqual({ x: 5, y: 6, width: 1000, height: 800, maximized: false });
    writeFileSync(file, '{"width": 1000, "hei');
    expect(loadWindowState(file)).toEqual(DEFAULT_WINDOW);
  });
});
