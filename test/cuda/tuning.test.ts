// The CUDA tuning knobs are declared once, in cuda/tuning.def: the TypeScript type
// (electron/engine/backends/cuda/tuning.ts) is generated from it by native/gen-tuning.mjs and must be current,
// and a built addon lists the same knobs, in the same order (tuningKnobs(), which the bench scripts read).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadAddon } from '../../electron/engine/backends/cuda/addon.js';
import { cudaTuningKnobs } from '../../electron/engine/backends/cuda/tuning.js';

const root = path.resolve(import.meta.dirname, '../..');

describe('CUDA tuning knobs', () => {
  it('tuning.ts is what native/gen-tuning.mjs writes from cuda/tuning.def', () => {
    const r = spawnSync(process.execPath, [path.join(root, 'native', 'gen-tuning.mjs'), '--check'], {
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
  });

  it('the addon lists the same knobs, each with a default and a meaning', (ctx) => {
    const { addon } = loadAddon();
    if (!addon) return ctx.skip('the CUDA addon is not built');
    const knobs = addon.tuningKnobs();
    expect(knobs.map((k) => k.name)).toEqual([...cudaTuningKnobs]);
    for (const k of knobs) {
      expect(k.meaning.length, k.name).toBeGreaterThan(10);
      expect(k.type === 'number[]' ? Array.isArray(k.default) : typeof k.default, k.name).toBe(
        k.type === 'number[]' ? true : k.type,
      );
    }
    const byName = Object.fromEntries(knobs.map((k) => [k.name, k.default]));
    expect(byName).toMatchObject({ factorMax: 2048, osSplit: 5, osMaxH: 8192, pieceBytes: 8 << 20 });
  });
});
