// The WebGPU processors run a call in pieces, two in flight, each uploading only the input its frames
// need (processor.ts `inFlight`, DeviceWindow.append's range). With pieces a few hundred bytes long, so
// that every call is many pieces, the outputs must equal those of one piece a call bit for bit: FIR
// (direct, fused overlap-save, several channels, raw int16), spectrogram (float and raw cu8, hops above
// and below the frame, averaging and peak hold), over random block splits; and the outputs land in the
// caller's `into` buffer when it is large enough.
import { afterEach, describe, expect, it } from 'vitest';
import type {
  FirConfig,
  ProcessorInput,
  SpectrogramConfig,
  SpectrogramRows,
} from '../../electron/engine/backends/backend.js';
import type { RawSamples } from '../../electron/engine/types.js';
import { concat, randomBlocks, randomF32, randomInts } from '../conformance/util.js';
import { needsWebGpu, webgpuSuite } from './gpu.js';

const { b } = await webgpuSuite();
const defaultPiece = b?.ctx.processorPieceBytes ?? 0;

/** Processor pieces of `bytes` output bytes while `run` runs. */
async function withPieces<T>(bytes: number, run: () => Promise<T>): Promise<T> {
  b!.ctx.processorPieceBytes = bytes;
  try {
    return await run();
  } finally {
    b!.ctx.processorPieceBytes = defaultPiece;
  }
}

function slice(x: ProcessorInput, from: number, to: number): ProcessorInput {
  if (x instanceof Float32Array) return x.subarray(from, to);
  const r = x as RawSamples;
  return { ...r, data: r.data.subarray(from, to) };
}

function values(x: ProcessorInput): number {
  return x instanceof Float32Array ? x.length : (x as RawSamples).data.length;
}

async function filtered(config: FirConfig, x: ProcessorInput, blocks: number[]): Promise<Float32Array> {
  const fir = b!.createFir(config);
  const parts: Float32Array[] = [];
  let at = 0;
  for (const size of blocks) {
    parts.push(await fir.process(slice(x, at, at + size)));
    at += size;
  }
  parts.push(await fir.flush());
  fir.dispose();
  return concat(parts);
}

async function rows(cfg: SpectrogramConfig, x: ProcessorInput, blocks: number[]): Promise<SpectrogramRows[]> {
  const spec = b!.createSpectrogram(cfg);
  const out: SpectrogramRows[] = [];
  let at = 0;
  for (const size of blocks) {
    out.push(await spec.push(slice(x, at, at + size)));
    at += size;
  }
  spec.dispose();
  return out;
}

function rawI16(length: number, seed: number): RawSamples {
  const rnd = randomInts(seed);
  const data = new Int16Array(length);
  for (let i = 0; i < length; i++) data[i] = rnd(-32768, 32767);
  return { data, offset: 0, scale: 1 / 32768 };
}

function rawU8(length: number, seed: number): RawSamples {
  const rnd = randomInts(seed);
  const data = new Uint8Array(length);
  for (let i = 0; i < length; i++) data[i] = rnd(0, 255);
  return { data, offset: 127.5, scale: 1 / 127.5 };
}

describe('webgpu processors in pieces, two in flight', needsWebGpu(b), () => {
  afterEach(() => {
    b!.ctx.processorPieceBytes = defaultPiece;
  });

  const firCases: [string, FirConfig, ProcessorInput][] = [
    [
      'direct, 31 taps, 3 channels',
      { taps: randomF32(31, 1), complex: false, channels: 3, method: 'direct' },
      randomF32(3 * 7001, 2),
    ],
    [
      'overlap-save, 255 taps, complex',
      { taps: randomF32(255, 3), complex: true, channels: 1, method: 'overlap-save' },
      randomF32(2 * 20_000, 4),
    ],
    [
      'overlap-save, 255 taps, 3 channels',
      { taps: randomF32(255, 5), complex: false, channels: 3, method: 'overlap-save' },
      randomF32(3 * 9000, 6),
    ],
    [
      'overlap-save, 255 taps, raw int16 complex',
      { taps: randomF32(255, 7), complex: true, channels: 1, method: 'overlap-save' },
      rawI16(2 * 15_000, 8),
    ],
    [
      'direct, 17 taps, raw int16 real',
      { taps: randomF32(17, 9), complex: false, channels: 1, method: 'direct' },
      rawI16(12_345, 10),
    ],
  ];
  for (const [label, config, x] of firCases) {
    it(`FIR ${label}: the same output bit for bit`, async () => {
      const lanes = config.channels * (config.complex ? 2 : 1);
      const n = values(x);
      const one = await filtered(config, x, [n]);
      expect(one.length).toBe(n);
      // 1 KiB pieces: one segment (or 256 floats of direct output) a piece, dozens a call
      expect(await withPieces(1024, () => filtered(config, x, [n]))).toEqual(one);
      const blocks = randomBlocks(n, lanes, 11 + n);
      expect(await withPieces(1024, () => filtered(config, x, blocks))).toEqual(one);
    });
  }

  it('FIR outputs land in `into` when it is large enough', async () => {
    const config: FirConfig = { taps: randomF32(255, 12), complex: true, channels: 1 };
    const x = randomF32(2 * 10_000, 13);
    const want = await filtered(config, x, [x.length]);
    await withPieces(2048, async () => {
      const fir = b!.createFir(config);
      const into = new Float32Array(x.length + 16);
      const got = await fir.process(x, into);
      expect(got.buffer).toBe(into.buffer);
      expect(concat([got, await fir.flush()])).toEqual(want);
      fir.dispose();
    });
  });

  const hann = (n: number) =>
    Float32Array.from({ length: n }, (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / n));
  const specCases: [string, SpectrogramConfig, ProcessorInput][] = [
    [
      'real, n 1024, hop 300, columns, averaging, peak hold',
      {
        fft: 1024,
        hop: 300,
        window: hann(1024),
        complex: false,
        columns: 100,
        averaging: 0.3,
        peakHold: true,
      },
      randomF32(40_000, 14),
    ],
    [
      'complex, n 256, hop 400 (gaps between frames)',
      { fft: 256, hop: 400, window: hann(256), complex: true },
      randomF32(2 * 30_000, 15),
    ],
    [
      'raw cu8 complex, n 512, hop 128, peak hold',
      { fft: 512, hop: 128, window: hann(512), complex: true, peakHold: true },
      rawU8(2 * 25_000, 16),
    ],
    [
      'real, n 96 (the passes), hop 24',
      { fft: 96, hop: 24, window: hann(96), complex: false, averaging: 0.5 },
      randomF32(9000, 17),
    ],
  ];
  for (const [label, cfg, x] of specCases) {
    it(`spectrogram ${label}: the same rows, averages and peaks`, async () => {
      const vps = cfg.complex ? 2 : 1;
      const n = values(x);
      const [one] = await rows(cfg, x, [n]);
      expect(one.count).toBeGreaterThan(20);
      const [many] = await withPieces(4 * (cfg.columns ?? cfg.fft) * 3, () => rows(cfg, x, [n]));
      expect(many.rows).toEqual(one.rows);
      expect(many.average).toEqual(one.average);
      expect(many.peak).toEqual(one.peak);
      const split = await withPieces(4 * (cfg.columns ?? cfg.fft) * 2, () =>
        rows(cfg, x, randomBlocks(n, vps, 18 + n)),
      );
      expect(concat(split.map((r) => r.rows))).toEqual(one.rows);
      expect(split.at(-1)!.average).toEqual(one.average);
      expect(split.at(-1)!.peak).toEqual(one.peak);
    });
  }

  it('spectrogram rows land in `into` when it is large enough', async () => {
    const cfg: SpectrogramConfig = { fft: 512, hop: 256, window: hann(512), complex: false };
    const x = randomF32(20_000, 19);
    const [want] = await rows(cfg, x, [x.length]);
    await withPieces(4 * 257 * 5, async () => {
      const spec = b!.createSpectrogram(cfg);
      const into = new Float32Array(want.rows.length + 100);
      const got = await spec.push(x, into);
      expect(got.rows.buffer).toBe(into.buffer);
      expect(got.rows).toEqual(want.rows);
      const fresh = await spec.push(x.subarray(0, 3000), new Float32Array(1));
      expect(fresh.rows.length).toBe(fresh.count * fresh.width);
      spec.dispose();
    });
  });
});

describe('webgpu processors on reused stream windows', needsWebGpu(b), () => {
  afterEach(() => {
    b!.windows.poison = false;
  });

  it('read no value their window does not hold: outputs with every window filled with NaN are unchanged', async () => {
    const x = randomF32(2 * 30_000, 31);
    const hann = (n: number) =>
      Float32Array.from({ length: n }, (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / n));
    const runAll = async () => {
      const out: Float32Array[] = [];
      const blocks = randomBlocks(x.length, 2, 32);
      for (const method of ['direct', 'overlap-save'] as const) {
        const taps = randomF32(method === 'direct' ? 15 : 255, 33);
        out.push(await filtered({ taps, complex: true, channels: 1, method }, x, blocks));
      }
      for (const hop of [300, 700]) {
        const cfg: SpectrogramConfig = {
          fft: 512,
          hop,
          window: hann(512),
          complex: true,
          averaging: 0.5,
          peakHold: true,
        };
        const r = await rows(cfg, x, blocks);
        out.push(concat(r.map((k) => k.rows)), r.at(-1)!.average!, r.at(-1)!.peak!);
      }
      for (const [template, complex] of [
        [x.slice(2000, 2600), true],
        [x.slice(100, 110), false],
        [x.slice(4000, 5024), false],
      ] as const) {
        const c = b!.createCorrelator({ template, complex, scores: true, peaks: 3 });
        let at = 0;
        for (const size of blocks) {
          out.push((await c.process(x.subarray(at, at + size))).scores!);
          at += size;
        }
        out.push((await c.flush()).scores!);
        c.dispose();
      }
      return out;
    };
    const clean = await runAll();
    b!.windows.poison = true;
    const poisoned = await runAll();
    expect(poisoned.length).toBe(clean.length);
    for (let i = 0; i < clean.length; i++) {
      expect(
        poisoned[i].some((v) => Number.isNaN(v)),
        `output ${i} has NaN`,
      ).toBe(false);
      expect(poisoned[i]).toEqual(clean[i]);
    }
  });
});
