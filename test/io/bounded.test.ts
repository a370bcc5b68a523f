// Bounded inputs and one-line errors (issue 27, rows 3–6): metadata nested or numerous beyond the limits is
// refused before it is parsed, a wide frame costs a block what a narrow one does, and every refusal is one
// line with the file's bytes escaped.

import { truncateSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { Backend } from '../../electron/engine/backends/backend.js';
import { openBackend } from '../../electron/engine/backends/registry.js';
import { overlapSaveSize } from '../../electron/engine/backends/cpu/fir.js';
import { errorInfo, formatError, PhasorError } from '../../electron/engine/errors.js';
import { openSource } from '../../electron/engine/io/index.js';
import { MAX_META_BYTES, MAX_META_DEPTH, MAX_META_VALUES } from '../../electron/engine/io/sigmf.js';
import { filterSource } from '../../electron/engine/pipeline/filter.js';
import { analyzePeaks } from '../../electron/engine/pipeline/peaks.js';
import { BLOCK_BYTES_BUDGET } from '../../electron/engine/pipeline/stages.js';
import { ascii, buildWav, concat, makeTempDir } from './helpers.js';

const tmp = makeTempDir('bounded');
afterAll(() => tmp.cleanup());

const GLOBAL = '{"core:datatype":"cu8","core:sample_rate":1000000,"core:version":"1.2.0"}';

/** A .sigmf-meta/.sigmf-data pair with `rest` after the global object; returns the meta's path. */
function pair(name: string, rest: string): string {
  const meta = tmp.file(`${name}.sigmf-meta`);
  writeFileSync(meta, `{"global":${GLOBAL}${rest}}`);
  writeFileSync(
    tmp.file(`${name}.sigmf-data`),
    new Uint8Array(64).map((_, i) => i * 7),
  );
  return meta;
}

async function refusal(path: string): Promise<PhasorError> {
  const err = await openSource(path).then(
    async (s) => {
      await s.close();
      return undefined;
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PhasorError);
  return err as PhasorError;
}

/** C0, DEL, C1, and the Unicode line, paragraph and direction controls. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

function expectOneLine(text: string): void {
  expect(text).not.toMatch(CONTROL);
  expect(text.length).toBeLessThanOrEqual(1200);
}

describe('SigMF metadata nesting (row 3)', () => {
  it('refuses a field nested 5,000 deep with one line naming the file and the limit', async () => {
    const meta = pair('deep', `,"x":${'['.repeat(5000)}${']'.repeat(5000)}`);
    const err = await refusal(meta);
    expect(err.file).toBe(meta);
    expect(err.message).toMatch(/nested more than \d+ deep/);
  });

  it('accepts nesting at the limit and refuses one level more', async () => {
    // global is one level under the root: x's arrays start at depth 2
    const at = pair('at', `,"x":${'['.repeat(MAX_META_DEPTH - 1)}${']'.repeat(MAX_META_DEPTH - 1)}`);
    const s = await openSource(at);
    await s.close();
    const over = pair('over', `,"x":${'['.repeat(MAX_META_DEPTH)}${']'.repeat(MAX_META_DEPTH)}`);
    expect((await refusal(over)).message).toContain(`nested more than ${MAX_META_DEPTH} deep`);
  });

  it('counts brackets inside strings as text, not nesting', async () => {
    const s = await openSource(pair('text', `,"x":"${'['.repeat(5000)}\\"{{{"`));
    await s.close();
  });
});

describe('SigMF metadata size (row 4)', () => {
  it('refuses 2 million empty annotations before parsing them', async () => {
    const meta = pair('many', `,"annotations":[${Array(2_000_000).fill('{}').join(',')}]`);
    const err = await refusal(meta);
    expect(err.file).toBe(meta);
    expect(err.message).toMatch(/more than [\d,]+ values/);
  });

  it('accepts the most values allowed and refuses one more', async () => {
    const values = (n: number) => `,"x":[${Array(n).fill('0').join(',')}]`;
    // the root, global and its 3 fields, and the array are values too
    const s = await openSource(pair('most', values(MAX_META_VALUES - 6)));
    await s.close();
    expect((await refusal(pair('more', values(MAX_META_VALUES - 5)))).message).toMatch(
      /more than [\d,]+ values/,
    );
  });

  it('refuses a meta larger than the size limit without reading it', async () => {
    const meta = pair('big', '');
    truncateSync(meta, MAX_META_BYTES + 1);
    const err = await refusal(meta);
    expect(err.message).toMatch(/larger than the \d+ MiB limit/);
  });
});

/** The CPU backend, recording the largest transform batch it was handed (in float32 values). */
async function recordingBackend(): Promise<{ backend: Backend; largest: () => number }> {
  const cpu = await openBackend('cpu');
  let largest = 0;
  const backend = new Proxy(cpu, {
    get(target, key) {
      const value = Reflect.get(target, key, target) as unknown;
      if (typeof value !== 'function') return value;
      if (key === 'rfft' || key === 'fft') {
        return (input: { length: number }, ...rest: unknown[]) => {
          largest = Math.max(largest, input.length);
          return (value as (...a: unknown[]) => unknown).call(target, input, ...rest);
        };
      }
      return (value as (...a: unknown[]) => unknown).bind(target);
    },
  });
  return { backend, largest: () => largest };
}

/** Peaks of an 8-bit WAV of `channels` and `bytes` of samples: the FFT size and the largest transform
 * batch (float32 values) the backend was handed. */
async function peaksOf(channels: number, bytes: number): Promise<{ fft: number; batch: number }> {
  const frames = Math.floor(bytes / channels);
  const data = new Uint8Array(channels * frames).map((_, i) => (i * 37 + (i >> 9)) & 0xff);
  const path = tmp.file(`w${channels}.wav`);
  writeFileSync(path, buildWav({ channels, sampleRate: 8000, bits: 8, data }));
  const source = await openSource(path);
  const { backend, largest } = await recordingBackend();
  try {
    const r = await analyzePeaks(backend, source);
    expect(r.peaks.length).toBeGreaterThan(0);
    return { fft: r.fft, batch: largest() };
  } finally {
    await source.close();
    await backend.dispose();
  }
}

describe('wide frames (row 5)', () => {
  it('peaks of a 65,535-channel WAV use the blocks of a stereo file of the same size', async () => {
    const bytes = 16 << 20;
    const stereo = await peaksOf(2, bytes);
    const wide = await peaksOf(65535, bytes);
    // a segment of every channel fits the budget, and the transforms go in batches no larger than stereo's
    expect(wide.fft * 65535 * 4).toBeLessThanOrEqual(BLOCK_BYTES_BUDGET);
    expect(wide.batch).toBeLessThanOrEqual(stereo.batch);
  });

  it('filters a 65,535-channel WAV: output buffers within the budget, not 17 GB each', async () => {
    const channels = 65535;
    const frames = 16;
    const data = new Uint8Array(channels * frames).map((_, i) => (i * 29 + (i >> 11)) & 0xff);
    const path = tmp.file('wf.wav');
    writeFileSync(path, buildWav({ channels, sampleRate: 8000, bits: 8, data }));
    const source = await openSource(path);
    const backend = await openBackend('cpu');
    try {
      // a 3-tap moving sum: the output's middle frames are the sums of their neighbours
      const taps = Float64Array.from([1, 1, 1]).map((t) => t / 4);
      // 8-bit out, as in (a WAV frame holds at most 65,535 bytes)
      await filterSource(backend, source, tmp.file('wf-out.wav'), taps);
    } finally {
      await source.close();
      await backend.dispose();
    }
    const out = await openSource(tmp.file('wf-out.wav'));
    try {
      expect(out.info.channels).toBe(channels);
      expect(out.info.samples).toBe(frames);
      const block = (await out.blocks({ blockFrames: frames })[Symbol.asyncIterator]().next()).value as {
        data: Float32Array;
      };
      const x = (f: number, c: number) => (data[f * channels + c] - 128) / 128;
      for (const c of [0, 4097, channels - 1]) {
        const want = (x(4, c) + x(5, c) + x(6, c)) / 4;
        expect(Math.abs(block.data[5 * channels + c] - want)).toBeLessThanOrEqual(1 / 128);
      }
    } finally {
      await out.close();
    }
  });

  it("plans the CPU FIR's overlap-save segments of a wide frame within its budget", () => {
    // 16 M values a segment of every lane; never below the smallest size the taps allow (2·numtaps)
    expect(overlapSaveSize(255, 1024) * 1024).toBeLessThanOrEqual(16 << 20);
    expect(overlapSaveSize(255, 65535)).toBe(512);
    expect(overlapSaveSize(4095, 65535)).toBe(8192);
    // narrow frames keep the size of the lowest cost
    for (const taps of [31, 255, 4095]) expect(overlapSaveSize(taps, 2)).toBe(overlapSaveSize(taps));
    expect(overlapSaveSize(255)).toBeGreaterThan(512);
  });

  it('refuses an --fft whose segment of every channel is over the budget', async () => {
    const channels = 4096;
    const data = new Uint8Array(channels * 64).map((_, i) => i & 0xff);
    const path = tmp.file('w4096.wav');
    writeFileSync(path, buildWav({ channels, sampleRate: 8000, bits: 8, data }));
    const source = await openSource(path);
    const backend = await openBackend('cpu');
    try {
      const fft = (2 * BLOCK_BYTES_BUDGET) / (4 * channels);
      await expect(analyzePeaks(backend, source, { fft })).rejects.toThrow(/budget of a step; use --fft \d+/);
    } finally {
      await source.close();
      await backend.dispose();
    }
  });
});

/** A ustar archive of regular members (names under 100 bytes). */
function tar(members: Array<[string, Uint8Array]>): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const [name, body] of members) {
    const h = new Uint8Array(512);
    h.set(new TextEncoder().encode(name), 0);
    h.set(ascii('0000644\0'), 100);
    h.set(ascii(`${body.length.toString(8).padStart(11, '0')}\0`), 124);
    h.set(ascii('00000000000\0'), 136);
    h[156] = 0x30;
    h.set(ascii('ustar\x0000'), 257);
    h.fill(0x20, 148, 156);
    const sum = h.reduce((a, b) => a + b, 0);
    h.set(ascii(`${sum.toString(8).padStart(6, '0')}\0 `), 148);
    parts.push(h, body, new Uint8Array((512 - (body.length % 512)) % 512));
  }
  parts.push(new Uint8Array(1024));
  return concat(parts);
}

describe('errors are one line (row 6)', () => {
  it('escapes control characters and line breaks of a message and a file name', () => {
    const err = new PhasorError('corrupt', 'bad\nline\r\x1b[31mred\x9b2J\x7f\u2028end', {
      file: 'a\x1b]0;title\x07.wav',
    });
    for (const text of [formatError(err), errorInfo(err).message]) {
      expectOneLine(text);
      expect(text).toContain('\\x1b[31mred');
    }
    expect(formatError(new Error('x\ny'))).toBe('phasor: x\\ny');
  });

  it('quotes the bytes of a SigMF JSON parse error on one line', async () => {
    const meta = tmp.file('esc.sigmf-meta');
    writeFileSync(meta, `{"global":\n\x1b[2J\x1b[31m\n${'x'.repeat(5000)}\n}`);
    writeFileSync(tmp.file('esc.sigmf-data'), new Uint8Array(16));
    const err = await refusal(meta);
    expect(err.message).toMatch(/not valid JSON/);
    expectOneLine(formatError(err));
    expectOneLine(errorInfo(err).message);
  });

  it('escapes a tar member name with ANSI escapes', async () => {
    const name = '\x1b[1;31mevil\nname.sigmf-meta';
    const path = tmp.file('esc.sigmf');
    writeFileSync(path, tar([[name, new TextEncoder().encode(`{"global":${GLOBAL}}`)]]));
    const err = await refusal(path);
    expect(err.message).toContain('evil');
    expectOneLine(formatError(err));
  });

  it('keeps a long core:datatype short in the message', async () => {
    const meta = tmp.file('dt.sigmf-meta');
    writeFileSync(meta, `{"global":{"core:datatype":"${'z'.repeat(100_000)}\\u001b[31m"}}`);
    writeFileSync(tmp.file('dt.sigmf-data'), new Uint8Array(16));
    const err = await refusal(meta);
    expectOneLine(formatError(err));
  });
});
