// Page-locked host blocks (Backend.hostBlocks: buffers registered with the driver): the processors read
// their input from them and write their output into them by DMA, without the staging copies. Results are
// bit-identical to plain arrays, and a buffer is free to reuse once the call that used it settled (the
// file pipelines overwrite their read buffers with the next block at once). Needs the addon (a GPU, or
// the CPU emulation with PHASOR_CUDA_ADDON; PHASOR_EMU_ASYNC=1 queues the copies as a GPU would).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostBlocks } from '../../electron/engine/backends/backend.js';
import { createCudaBackend } from '../../electron/engine/backends/cuda/index.js';
import { type Gpu, openGpu } from './gpu.js';
import { concat } from '../conformance/util.js';
import { gaussian, hann } from './reference.js';

let gpu: Gpu;
beforeAll(async () => {
  gpu = await openGpu();
});
afterAll(async () => {
  await gpu.backend?.dispose();
});

/** Blocks of `x` handed out as a file reader does: copied into one of the ring's buffers, which is
 * scribbled over as soon as the call that read it settled. */
async function throughRing<T>(
  x: Float32Array | Int16Array,
  blockValues: number,
  ring: HostBlocks | null,
  call: (block: Float32Array | Int16Array, k: number) => Promise<T>,
): Promise<T[]> {
  const out: T[] = [];
  for (let at = 0, k = 0; at < x.length; at += blockValues, k++) {
    const part = x.subarray(at, Math.min(x.length, at + blockValues));
    if (!ring) {
      out.push(await call(part.slice(), k));
      continue;
    }
    const buf = ring.buffers[k % ring.buffers.length];
    const view =
      x instanceof Int16Array ? new Int16Array(buf, 0, part.length) : new Float32Array(buf, 0, part.length);
    view.set(part);
    out.push(await call(view, k));
    new Uint8Array(buf).fill(0xa5); // the next read lands here
  }
  return out;
}

describe('CUDA page-locked host blocks', () => {
  it('[needs-gpu] FIR input and output in pinned buffers: bit-identical, outputs are views of `into`', async (ctx) => {
    if (!gpu.backend) return ctx.skip(gpu.skip);
    const backend = gpu.backend;
    const piece = gpu.emulation ? 1 << 14 : 1 << 20;
    for (const c of [
      { taps: 31, complex: false, method: 'overlap-save' as const, raw: false },
      { taps: 255, complex: true, method: 'overlap-save' as const, raw: true },
      { taps: 9, complex: true, method: 'direct' as const, raw: false },
    ]) {
      const lanes = c.complex ? 2 : 1;
      const g = gaussian(lanes * 60_000, c.taps);
      const x = c.raw ? Int16Array.from(g, (v) => Math.round(v * 4000)) : g;
      const taps = Float64Array.from(gaussian(c.taps, 5), (v) => v / c.taps);
      // blocks of 9000 frames, and blocks larger than a piece of the copy pipeline (streamed)
      for (const [blockFrames, pieceBytes] of [
        [9000, 0],
        [30_000, piece],
      ]) {
        if (pieceBytes) await backend.ctx.setTuning({ pieceBytes });
        try {
          const run = async (pinned: boolean) => {
            const bytes = 4 * lanes * (blockFrames + 4096);
            const reads = pinned ? await backend.hostBlocks(3, bytes) : null;
            const outs = pinned ? await backend.hostBlocks(2, bytes) : null;
            const f = backend.createFir({ taps, complex: c.complex, channels: 1, method: c.method });
            const parts = await throughRing(x, blockFrames * lanes, reads, async (block, k) => {
              const input = block instanceof Int16Array ? { data: block, offset: 1, scale: 1 / 4096 } : block;
              const into = outs ? new Float32Array(outs.buffers[k % 2]) : undefined;
              const y = await f.process(input, into);
              if (into) expect(y.buffer).toBe(into.buffer);
              return y.slice() as Float32Array;
            });
            parts.push(await f.flush());
            f.dispose();
            await reads?.release();
            await outs?.release();
            return concat(parts);
          };
          const plain = await run(false);
          const pinned = await run(true);
          expect(pinned.length, `${c.taps} taps`).toBe(plain.length);
          expect(pinned, `${c.taps} taps, blocks of ${blockFrames}`).toEqual(plain);
        } finally {
          if (pieceBytes) await backend.ctx.setTuning({});
        }
      }
    }
  }, 300_000);

  it('[needs-gpu] spectrogram rows and correlator input in pinned buffers: bit-identical', async (ctx) => {
    if (!gpu.backend) return ctx.skip(gpu.skip);
    const backend = gpu.backend;
    const n = 128;
    const x = gaussian(2 * 40_000, 7);
    const config = { fft: n, hop: 32, window: hann(n), complex: true, averaging: 0.2, peakHold: true };
    const rowsOf = async (pinned: boolean) => {
      const reads = pinned ? await backend.hostBlocks(3, 4 * 2 * 7000) : null;
      const outs = pinned ? await backend.hostBlocks(2, 4 * n * 300) : null;
      const sp = backend.createSpectrogram(config);
      const parts = await throughRing(x, 2 * 7000, reads, async (block, k) => {
        const into = outs ? new Float32Array(outs.buffers[k % 2]) : undefined;
        const r = await sp.push(block as Float32Array, into);
        if (into && r.count > 0) expect(r.rows.buffer).toBe(into.buffer);
        return { rows: r.rows.slice(), average: r.average, peak: r.peak };
      });
      sp.dispose();
      await reads?.release();
      await outs?.release();
      return parts;
    };
    const plain = await rowsOf(false);
    const pinned = await rowsOf(true);
    expect(pinned).toEqual(plain);

    const template = x.slice(2 * 5000, 2 * 5300);
    const corr = async (pinned: boolean) => {
      const reads = pinned ? await backend.hostBlocks(3, 4 * 2 * 6000) : null;
      const c = backend.createCorrelator({ template, complex: true, peaks: 3, scores: true });
      const chunks = await throughRing(x, 2 * 6000, reads, async (block) => {
        const r = await c.process(block as Float32Array);
        return { peaks: r.peaks, scores: r.scores?.slice() };
      });
      c.dispose();
      await reads?.release();
      return chunks;
    };
    const plainCorr = await corr(false);
    expect(await corr(true)).toEqual(plainCorr);
    expect(plainCorr.flatMap((c) => c.peaks).some((p) => p.lag === 5000)).toBe(true);
  }, 300_000);

  it('[needs-gpu] pin and unpin: one registration a buffer, release twice, release after dispose', async (ctx) => {
    if (!gpu.backend) return ctx.skip(gpu.skip);
    const backend = gpu.backend;
    const b = new ArrayBuffer(1 << 16);
    await backend.ctx.pin(b);
    expect(() => backend.ctx.pin(b)).toThrow(/already pinned/);
    await backend.ctx.unpin(b);
    await backend.ctx.unpin(b); // not pinned any more: resolves
    await backend.ctx.pin(b); // and can be registered again
    await backend.ctx.unpin(b);
    const blocks = await backend.hostBlocks(2, 4096);
    expect(blocks.buffers.map((x) => x.byteLength)).toEqual([4096, 4096]);
    await blocks.release();
    await blocks.release();
    // a backend disposed with its blocks still registered unregisters them; release then does nothing
    const other = await createCudaBackend();
    const held = await other.hostBlocks(3, 1 << 20);
    const f = other.createFir({ taps: new Float64Array([0.5, 0.5]), complex: false, channels: 1 });
    const y = await f.process(new Float32Array(held.buffers[0], 0, 1000), new Float32Array(held.buffers[1]));
    expect(y.buffer).toBe(held.buffers[1]);
    expect(y.length + f.pending).toBe(1000);
    f.dispose();
    await other.dispose();
    await held.release();
    await expect(other.hostBlocks(1, 16)).rejects.toThrow(/disposed/);
  });
});
