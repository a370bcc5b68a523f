// The overlapping stages of a whole-file job: WriteBehind's order and failures, and filterSource through
// them — the same bytes whatever the block size, and nothing left behind when a block fails mid-job.

import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Backend, Correlator, FirConfig, FirFilter } from '../../electron/engine/backends/backend.js';
import { createCpuBackend } from '../../electron/engine/backends/cpu/index.js';
import { openSource } from '../../electron/engine/io/index.js';
import { correlateSources } from '../../electron/engine/pipeline/correlate.js';
import { designTaps, filterSource } from '../../electron/engine/pipeline/filter.js';
import { WriteBehind, fileBlockFrames } from '../../electron/engine/pipeline/stages.js';
import { writeCf32 } from '../offline/helpers.js';
import { tempDir } from '../support/cli.js';
import { add, complexTones, noise } from '../support/signals.js';

const tmp = tempDir('phasor-stages-');
let cpu: Backend;
beforeAll(async () => {
  cpu = await createCpuBackend({ threads: 2 });
});
afterAll(async () => {
  await cpu.dispose();
  tmp.remove();
});

const tick = () => new Promise((r) => setTimeout(r, 1));

describe('WriteBehind', () => {
  it('consumes in order, one item behind the producer', async () => {
    const log: string[] = [];
    const w = new WriteBehind(async (x: number) => {
      log.push(`start ${x}`);
      await tick();
      log.push(`end ${x}`);
    });
    await w.push(1);
    log.push('pushed 1'); // before item 1 is consumed: the producer goes on
    await w.push(2);
    log.push('pushed 2');
    await w.drain();
    expect(log).toEqual(['start 1', 'pushed 1', 'end 1', 'start 2', 'pushed 2', 'end 2']);
  });

  it('throws a failed item at the next push or drain, and settle() ignores it', async () => {
    const w = new WriteBehind(async (x: number) => {
      await tick();
      if (x === 2) throw new Error('disk full');
    });
    await w.push(1);
    await w.push(2);
    await expect(w.push(3)).rejects.toThrow('disk full');
    await expect(w.drain()).rejects.toThrow('disk full');
    await w.settle();
  });

  it('sizes file blocks by bytes, never below one frame', () => {
    expect(fileBlockFrames({ complex: true, channels: 1 })).toBe(1 << 19);
    expect(fileBlockFrames({ complex: false, channels: 65535 })).toBe(16);
    expect(fileBlockFrames({ complex: true, channels: 2 ** 21 })).toBe(1);
    expect(fileBlockFrames({ complex: true, channels: 1 }, 16 << 20)).toBe(1 << 21);
  });
});

describe('filterSource through the stages', () => {
  const fs = 1e6;
  const n = 300_007;
  const iq = add(complexTones(n, fs, [{ frequency: 50e3, amplitude: 0.5 }]), noise(2 * n, 5, 0.05));
  const input = join(tmp.dir, 'in.cf32');
  const taps = designTaps({ kind: 'lowpass', cutoff: 100e3, numtaps: 255, window: 'hamming' }, fs);

  it('writes the same bytes with file-sized blocks as with small ones', async () => {
    writeCf32(input, iq);
    const outs: Buffer[] = [];
    for (const blockFrames of [undefined, 4096, 100_003]) {
      const source = await openSource(input, { format: 'cf32', rate: fs });
      const out = join(tmp.dir, `out-${blockFrames ?? 'file'}.sigmf-data`);
      try {
        const checksum = blockFrames === undefined;
        const r = await filterSource(cpu, source, out, taps, {
          checksum,
          ...(blockFrames ? { blockFrames } : {}),
        });
        expect(r.frames).toBe(n);
      } finally {
        await source.close();
      }
      outs.push(readFileSync(out));
      const meta = JSON.parse(readFileSync(out.replace(/data$/, 'meta'), 'utf8')) as {
        global: Record<string, unknown>;
      };
      if (blockFrames === undefined) {
        const sha = createHash('sha512').update(readFileSync(out)).digest('hex');
        expect(meta.global['core:sha512']).toBe(sha);
      } else expect(meta.global['core:sha512']).toBeUndefined();
    }
    expect(outs[0].length).toBe(8 * n);
    expect(outs[1].equals(outs[0])).toBe(true);
    expect(outs[2].equals(outs[0])).toBe(true);
  });

  it('leaves neither output nor temporary when a block fails while earlier ones are being written', async () => {
    writeCf32(input, iq);
    let calls = 0;
    const failing: Backend = {
      ...cpu,
      createFir(config: FirConfig): FirFilter {
        const f = cpu.createFir(config);
        return {
          numtaps: f.numtaps,
          method: f.method,
          get pending() {
            return f.pending;
          },
          process: async (x) => {
            if (++calls === 4) throw new Error('device lost');
            return f.process(x);
          },
          flush: () => f.flush(),
          reset: () => f.reset(),
          dispose: () => f.dispose(),
        };
      },
    };
    const dir = join(tmp.dir, 'fail');
    mkdirSync(dir);
    const source = await openSource(input, { format: 'cf32', rate: fs });
    try {
      await expect(
        filterSource(failing, source, join(dir, 'out.sigmf-data'), taps, { blockFrames: 50_000 }),
      ).rejects.toThrow('device lost');
    } finally {
      await source.close();
    }
    expect(calls).toBe(4);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('correlateSources through the stages', () => {
  it("reads blocks of the correlator's pushBytes when larger than the default, same peaks", async () => {
    const fs = 1e6;
    const n = 1_500_000; // more than one default block (512 Ki frames of cf32)
    const iq = noise(2 * n, 11, 0.5);
    const input = join(tmp.dir, 'corr.cf32');
    const template = join(tmp.dir, 'corr-t.cf32');
    writeCf32(input, iq);
    writeCf32(template, iq.subarray(2 * 700_000, 2 * 701_024));
    // the CPU backend, its correlators asking for pushes of 1 Mi frames (8 MiB of cf32)
    const asking = new Proxy(cpu, {
      get(target, prop) {
        if (prop === 'createCorrelator') {
          return (config: Parameters<Backend['createCorrelator']>[0]): Correlator => {
            const c = target.createCorrelator(config);
            return new Proxy(c, {
              get: (t, p) => {
                if (p === 'pushBytes') return 8 << 20;
                const v = Reflect.get(t, p, t) as unknown;
                return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(t) : v;
              },
            });
          };
        }
        const v = Reflect.get(target, prop, target) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    const results = [];
    for (const b of [cpu, asking]) {
      const s = await openSource(input, { format: 'cf32', rate: fs });
      const t = await openSource(template, { format: 'cf32', rate: fs });
      const steps: number[] = [];
      try {
        results.push(await correlateSources(b, s, t, { top: 3, onProgress: (d) => steps.push(d) }));
      } finally {
        await s.close();
        await t.close();
      }
      expect(steps[0]).toBe(b === cpu ? 1 << 19 : 1 << 20);
    }
    expect(results[0].peaks[0].lag).toBe(700_000);
    expect(results[1]).toEqual(results[0]);
  });
});
