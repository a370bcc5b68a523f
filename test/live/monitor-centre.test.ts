// The headless monitor on an I/Q source with a centre (the generator in complex mode, as rtl_tcp would
// be): peaks in absolute Hz, the centre reported, and no reconnects for a source without a link.
import { describe, expect, it } from 'vitest';
import { createCpuBackend } from '../../electron/engine/backends/cpu/index.js';
import { Engine } from '../../electron/engine/live/engine.js';
import { runMonitor } from '../../electron/engine/live/monitor.js';

describe('runMonitor on a complex source with a centre', () => {
  it('reports the tone at its absolute frequency, the centre and 0 reconnects', async () => {
    const backend = await createCpuBackend({ threads: 0 });
    const engine = new Engine({ backend });
    try {
      const centre = 100e6;
      const offset = -312_500; // below the centre: a sign error would show
      const r = await runMonitor({
        source: {
          kind: 'generator',
          complex: true,
          centerFrequency: centre,
          sampleRate: 2.048e6,
          frequency: offset,
          amplitude: 0.5,
        },
        duration: 0.5,
        fft: 8192,
        peaks: 3,
        engine,
      });
      expect(r.sampleRate).toBe(2.048e6);
      expect(r.centerFrequency).toBe(centre);
      expect(r.reconnects).toBe(0);
      expect(r.peaks).toBeDefined();
      const top = r.peaks![0];
      // Within a tenth of a bin (250 Hz at 8192 points) of centre + offset; a 0.5 exponential is −6.02 dBFS.
      expect(Math.abs(top.frequency - (centre + offset))).toBeLessThan(25);
      expect(top.level).toBeCloseTo(-6.02, 0);
    } finally {
      await engine.dispose();
      await backend.dispose();
    }
  });

  it('reports no centre for a real source', async () => {
    const backend = await createCpuBackend({ threads: 0 });
    const engine = new Engine({ backend });
    try {
      const r = await runMonitor({ source: { kind: 'generator', frequency: 1000 }, duration: 0.2, engine });
      expect(r.centerFrequency).toBeUndefined();
      expect(r.reconnects).toBe(0);
    } finally {
      await engine.dispose();
      await backend.dispose();
    }
  });
});
