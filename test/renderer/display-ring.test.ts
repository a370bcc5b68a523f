import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DisplayRing,
  MIN_RING_ROWS,
  PLAN_ENTRIES,
  QUAD_FLOATS,
  RING_BUDGET_BYTES,
  agesShown,
  compositeQuads,
  ringRows,
} from '../../renderer/src/lib/display-ring.js';

/**
 * A model of the two textures: the level history holds stream row s in slot s mod capacity, the display
 * ring gets, for each planned run, the stream row that the level slot holds and the mapping epoch it was
 * coloured with. After every frame, every age the composite shows must hold the right row and epoch.
 */
type Op =
  { kind: 'rows'; n: number } | { kind: 'frame'; ages: number } | { kind: 'remap' } | { kind: 'reset' };

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant('rows' as const), n: fc.integer({ min: 1, max: 90 }) }),
  },
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant('frame' as const), ages: fc.integer({ min: 0, max: 80 }) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('remap' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reset' as const) }) },
);

describe('DisplayRing', () => {
  it('colours exactly what the composite shows, across wraps, remaps and resets', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 0, max: 40 }),
        fc.array(op, { minLength: 1, maxLength: 60 }),
        (rows, extra, ops) => {
          const capacity = rows + extra;
          const ring = new DisplayRing(rows, capacity);
          const levels = new Int32Array(capacity).fill(-1);
          const slots: Array<{ s: number; epoch: number } | null> = new Array<null>(rows).fill(null);
          const out = new Int32Array(PLAN_ENTRIES);
          let written = 0;
          let epoch = 0;
          for (const o of ops) {
            if (o.kind === 'rows') {
              for (let k = 0; k < o.n; k++) levels[(written + k) % capacity] = written + k;
              written += o.n;
            } else if (o.kind === 'remap') {
              epoch++;
              ring.invalidate();
            } else if (o.kind === 'reset') {
              written = 0;
              levels.fill(-1);
              epoch++;
              ring.invalidate();
            } else {
              const coloured: number[] = [];
              const n = ring.plan(written, o.ages, out);
              expect(n).toBeLessThanOrEqual(PLAN_ENTRIES);
              for (let r = 0; r < n; r++) {
                const [ringRow, levelRow, len] = [out[3 * r], out[3 * r + 1], out[3 * r + 2]];
                expect(len).toBeGreaterThan(0);
                expect(ringRow + len).toBeLessThanOrEqual(rows); // contiguous in the ring
                expect(levelRow + len).toBeLessThanOrEqual(capacity); // and in the level texture
                for (let k = 0; k < len; k++) {
                  const s = levels[levelRow + k];
                  expect(s % rows).toBe(ringRow + k); // the run pairs the same stream row in both
                  slots[ringRow + k] = { s, epoch };
                  coloured.push(s);
                }
              }
              // Every age shown (what the ring can hold of what was asked) holds its row, coloured now.
              const shown = ring.coloured(written);
              expect(shown).toBeGreaterThanOrEqual(Math.min(o.ages, written, rows));
              expect(shown).toBeLessThanOrEqual(Math.min(written, rows));
              for (let age = 0; age < shown; age++) {
                const s = written - 1 - age;
                expect(slots[ring.ringRow(s)]).toEqual({ s, epoch });
              }
              // Nothing is coloured twice in one frame.
              expect(new Set(coloured).size).toBe(coloured.length);
            }
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('colours only the new rows when nothing else changed', () => {
    const ring = new DisplayRing(100, 300);
    const out = new Int32Array(PLAN_ENTRIES);
    expect(ring.plan(50, 60, out)).toBe(1); // the first frame colours all 50
    expect(Array.from(out.subarray(0, 3))).toEqual([0, 0, 50]);
    expect(ring.plan(53, 60, out)).toBe(1); // then only the 3 new ones
    expect(Array.from(out.subarray(0, 3))).toEqual([50, 50, 3]);
    expect(ring.plan(53, 60, out)).toBe(0); // and nothing when nothing arrived
    // Far ahead: only the 60 ages shown are coloured (stream rows 250…309), split where the ring (row 100)
    // and the level texture (row 300) wrap.
    expect(ring.plan(310, 60, out)).toBe(2);
    expect(Array.from(out.subarray(0, 6))).toEqual([50, 250, 50, 0, 0, 10]);
    expect(ring.coloured(310)).toBe(60);
  });

  it('sizes the ring to its memory budget, never below its minimum nor above the history', () => {
    expect(ringRows(1400, 4096)).toBe(4096);
    expect(ringRows(8192, 8192)).toBe(RING_BUDGET_BYTES / (4 * 8192));
    expect(ringRows(1 << 20, 8192)).toBe(MIN_RING_ROWS);
    expect(ringRows(1 << 20, 100)).toBe(100);
    expect(agesShown(0, 10)).toBe(11);
    expect(agesShown(2.5, 10)).toBe(14);
    expect(() => new DisplayRing(10, 5)).toThrow(/history's 5/);
  });

  it('composites with quads that show, at every pixel, the row the per-pixel rule picks', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 300 }), // ring rows
        fc.integer({ min: 0, max: 299 }), // newest
        fc.integer({ min: 0, max: 300 }), // valid
        fc.double({ min: 0.5, max: 400, noNaN: true }), // rows across the canvas
        fc.double({ min: -20, max: 200, noNaN: true }), // offset
        fc.integer({ min: 1, max: 700 }), // canvas height
        (ringRows, newestRaw, valid, rows, offset, height) => {
          const newest = newestRaw % ringRows;
          const out = new Float32Array(QUAD_FLOATS);
          const n = compositeQuads({ ringRows, newest, valid, rows, offset }, out);
          expect([0, 6, 12]).toContain(n);
          for (let j = 0; j < height; j++) {
            const yTop = j + 0.5;
            const a = offset + (yTop * rows) / height;
            const age = Math.floor(a);
            if (a - age > 1 - 1 / 512) continue; // within the nudge of the next row: either is right
            const rowOf = (g: number): number | null =>
              g < 0 || g >= Math.min(valid, ringRows) ? null : (newest - g + ringRows) % ringRows;
            const want = rowOf(age);
            // Just past an edge of a quad (the first shown age 0, the ring's seam at newest + 1, the end of the
            // valid rows), by less than float32 rounding of its corners (1e-6 of the rows shown), the pixel may
            // fall on either side of that edge, as on a GPU: the row before, the background, or the row after.
            const nearEdge =
              a - age < 1e-6 * Math.max(1, rows) &&
              (age === 0 || age === newest + 1 || age === Math.min(valid, ringRows));
            const either = (g: number | null): boolean =>
              nearEdge && (g === rowOf(age - 1) || g === null || g === (newest - age + ringRows) % ringRows);
            // Rasterize: the pixel centre in clip space, the quad (two triangles sharing their y range)
            // containing it, and v interpolated along y, sampled nearest.
            const yClip = 1 - (2 * yTop) / height;
            let got: number | null = null;
            let hits = 0;
            for (let q = 0; q < n / 6; q++) {
              const y0 = out[q * 24 + 1];
              const v0 = out[q * 24 + 3];
              const y1 = out[q * 24 + 9];
              const v1 = out[q * 24 + 11];
              if (yClip <= y0 && yClip > y1) {
                hits++;
                const v = v0 + ((yClip - y0) / (y1 - y0)) * (v1 - v0);
                // sampled nearest with CLAMP_TO_EDGE, as waterfall-gl.ts sets the texture
                got = Math.min(ringRows - 1, Math.max(0, Math.floor(v * ringRows)));
              }
            }
            expect(hits).toBeLessThanOrEqual(1);
            if (!either(got)) expect(got).toBe(want);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
