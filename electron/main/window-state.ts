// The main window's size, position and maximized state, kept between runs (plain Node: tested without
// Electron). A saved position that no longer lies on a screen (a monitor unplugged) is dropped.

import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface WindowState {
  x?: number;
  y?: number;
  width: number;
  height: number;
  maximized: boolean;
}

export const DEFAULT_WINDOW: WindowState = { width: 1280, height: 820, maximized: false };
export const MIN_WIDTH = 720;
export const MIN_HEIGHT = 480;

const stateSchema = z.object({
  x: z.number().int().min(-100000).max(100000).optional(),
  y: z.number().int().min(-100000).max(100000).optional(),
  width: z.number().int().min(MIN_WIDTH).max(100000),
  height: z.number().int().min(MIN_HEIGHT).max(100000),
  maximized: z.boolean(),
});

/** The state in `value`, or the default when it is not a valid state. */
export function parseWindowState(value: unknown): WindowState {
  const r = stateSchema.safeParse(value);
  return r.success ? r.data : { ...DEFAULT_WINDOW };
}

function overlap(a: Rect, b: Rect): number {
  const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return w > 0 && h > 0 ? w * h : 0;
}

/** Fits a state to the screens' work areas: no larger than the largest one, and placed only where at
 * least a 100×100 piece of the window is on a screen (else the window manager centres it). */
export function fitToDisplays(state: WindowState, workAreas: readonly Rect[]): WindowState {
  if (workAreas.length === 0) return state;
  const maxW = Math.max(...workAreas.map((d) => d.width));
  const maxH = Math.max(...workAreas.map((d) => d.height));
  const width = Math.max(Math.min(state.width, maxW), Math.min(MIN_WIDTH, maxW));
  const height = Math.max(Math.min(state.height, maxH), Math.min(MIN_HEIGHT, maxH));
  const out: WindowState = { width, height, maximized: state.maximized };
  if (state.x !== undefined && state.y !== undefined) {
    const rect = { x: state.x, y: state.y, width, height };
    if (workAreas.some((d) => overlap(rect, d) >= 100 * 100)) {
      out.x = state.x;
      out.y = state.y;
    }
  }
  return out;
}

export function loadWindowState(file: string): WindowState {
  try {
    return parseWindowState(JSON.parse(readFileSync(file, 'utf8')));
  } catch {
    return { ...DEFAULT_WINDOW };
  }
}

/** Writes the state (through a temporary file, so a crash never leaves half a file). */
export function saveWindowState(file: string, state: WindowState): void {
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(parseWindowState(state)));
    renameSync(tmp, file);
  } catch {
    // Losing the window position is not worth bothering anyone about.
  }
}
