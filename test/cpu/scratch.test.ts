// The CPU kernels' per-thread scratch: arrays outside the V8 heap are reused across tasks, not allocated per
// task (a worker collects such garbage rarely, and 16 of them grew the process with the file's size).
import { describe, expect, it } from 'vitest';
import { columnEdges } from '../../electron/engine/backends/cpu/levels.js';
import { scratchF64 } from '../../electron/engine/backends/cpu/scratch.js';
import { columnBins } from '../../electron/engine/protocol/shape.js';

describe('CPU kernel scratch', () => {
  it('hands out the same array for a slot while it is large enough', () => {
    const a = scratchF64(7, 100);
    expect(a.length).toBeGreaterThanOrEqual(100);
    expect(scratchF64(7, 50)).toBe(a);
    const b = scratchF64(7, 1000);
    expect(b).not.toBe(a);
    expect(b.length).toBeGreaterThanOrEqual(1000);
    expect(scratchF64(7, 1000)).toBe(b);
    expect(scratchF64(8, 10)).not.toBe(b);
  });

  it('keeps the last column table, and builds a new one for other sizes', () => {
    const e = columnEdges(4096, 800);
    expect(columnEdges(4096, 800)).toBe(e);
    for (let c = 0; c < 800; c++) expect([e[c], e[c + 1]]).toEqual(columnBins(c, 4096, 800));
    const f = columnEdges(2049, 600);
    expect(f).not.toBe(e);
    expect(f.length).toBe(601);
    expect(columnEdges(4096, 800)).not.toBe(f);
  });
});
