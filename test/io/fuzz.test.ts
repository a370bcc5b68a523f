// Property-based tests: random bytes and mutations of valid WAV, RF64, SigMF (pair and archive) and raw
// files go through openSource and a full read. Only PhasorErrors may come out, never another exception,
// every refusal prints as one line without control characters, and every read ends within a bounded
// number of blocks.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { errorInfo, formatError, PhasorError } from '../../electron/engine/errors.js';
import { openSource } from '../../electron/engine/io/index.js';
import type { OpenOptions } from '../../electron/engine/sources/source.js';
import { ascii, buildWav, chunk, concat, fmtBody, makeTempDir } from './helpers.js';

const tmp = makeTempDir('fuzz');
afterAll(() => tmp.cleanup());
const FIXTURES = join(fileURLToPath(new URL('.', import.meta.url)), '../fixtures/io');
// Cases per property (per format): a few hundred keep the folder fast (1,200 in all); `npm run fuzz`
// sets PHASOR_FUZZ_RUNS=10000 for every property.
const FUZZ_RUNS =
  process.env.PHASOR_FUZZ_RUNS === undefined ? undefined : Number(process.env.PHASOR_FUZZ_RUNS);
const runs = (usual: number): number => FUZZ_RUNS ?? usual;
/** Each test's time limit: vitest's 60 s for the usual counts, 40 ms a case beyond. */
const TIMEOUT = Math.max(60_000, (FUZZ_RUNS ?? 0) * 40);

/** C0, DEL, C1, and the Unicode line, paragraph and direction controls. */
// eslint-disable-next-line no-control-regex
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** A refusal: a PhasorError whose line (CLI, serve and app) is one line with nothing unprintable. */
function refused(err: unknown): void {
  if (!(err instanceof PhasorError)) throw err;
  for (const line of [formatError(err), errorInfo(err).message]) {
    if (UNPRINTABLE.test(line))
      throw new Error(`a refusal prints a control character: ${JSON.stringify(line)}`);
  }
}

const samples = (n: number) => new Uint8Array(n).map((_, i) => (i * 37 + 11) & 0xff);

function rf64(): Uint8Array {
  const data = samples(64);
  const ds64 = new Uint8Array(28);
  const dv = new DataView(ds64.buffer);
  dv.setBigUint64(0, 200n, true);
  dv.setBigUint64(8, 64n, true);
  dv.setBigUint64(16, 16n, true);
  const head = concat([ascii('RF64'), Uint8Array.from([255, 255, 255, 255]), ascii('WAVE')]);
  return concat([
    head,
    chunk('ds64', ds64),
    chunk('fmt ', fmtBody({ channels: 2, sampleRate: 8000, bits: 16, data })),
    chunk('data', data, 0xffffffff),
  ]);
}

const WAV_SEEDS: Uint8Array[] = [
  buildWav({ channels: 2, sampleRate: 44100, bits: 16, data: samples(200) }),
  buildWav({
    channels: 3,
    sampleRate: 48000,
    bits: 32,
    data: samples(240),
    extensible: { subFormat: 1, validBits: 24 },
  }),
  buildWav({
    tag: 3,
    channels: 1,
    sampleRate: 8000,
    bits: 32,
    data: samples(64),
    extraChunks: [chunk('LIST', samples(7))],
  }),
  buildWav({ channels: 1, sampleRate: 8000, bits: 8, data: samples(33) }),
  buildWav({ channels: 1, sampleRate: 8000, bits: 24, data: samples(30) }),
  rf64(),
  new Uint8Array(readFileSync(join(FIXTURES, 'ext_i32v24_4ch.wav'))),
];

type Mutation =
  | { kind: 'flip'; at: number; bit: number }
  | { kind: 'truncate'; at: number }
  | { kind: 'field'; at: number; width: 1 | 2 | 4; value: number }
  | { kind: 'insert'; at: number; bytes: Uint8Array };

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  // Header fields are in the first ~100 bytes: aim most replacements there.
  fc.record({
    kind: fc.constant('field' as const),
    at: fc.oneof(fc.integer({ min: 0, max: 100 }), fc.nat()),
    width: fc.constantFrom(1 as const, 2 as const, 4 as const),
    value: fc.oneof(
      fc.constantFrom(0, 1, 0xff, 0xffff, 0xffffffff, 0x7fffffff, 0xfffe, 3, 7),
      fc.nat({ max: 0xffffffff }),
    ),
  }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), bytes: fc.uint8Array({ maxLength: 16 }) }),
);

function mutate(seed: Uint8Array, ms: Mutation[]): Uint8Array {
  let b: Uint8Array = seed.slice();
  for (const m of ms) {
    if (b.length === 0) break;
    const at = m.at % (b.length + (m.kind === 'truncate' || m.kind === 'insert' ? 1 : 0));
    if (m.kind === 'flip') b[at] ^= 1 << m.bit;
    else if (m.kind === 'truncate') b = b.subarray(0, at);
    else if (m.kind === 'insert') b = concat([b.subarray(0, at), m.bytes, b.subarray(at)]);
    else
      for (let i = 0; i < m.width && at + i < b.length; i++)
        b[at + i] = Math.floor(m.value / 256 ** i) & 0xff;
  }
  return b;
}

/** Opens and reads everything; returns normally or throws a PhasorError, never anything else. */
async function openAndRead(
  path: string,
  fileSize: number,
  options: OpenOptions,
  blockFrames: number,
): Promise<void> {
  let source;
  try {
    source = await openSource(path, { ...options, onWarning: () => undefined });
  } catch (err) {
    refused(err);
    return;
  }
  try {
    // A frame is at least one byte: more blocks than this means the reader is not advancing.
    const maxBlocks = Math.ceil(fileSize / blockFrames) + 2;
    let blocks = 0;
    let frames = 0;
    for await (const b of source.blocks({ blockFrames, raw: blockFrames % 2 === 0 })) {
      frames += b.frames;
      if (++blocks > maxBlocks) throw new Error(`no progress: ${blocks} blocks from a ${fileSize}-byte file`);
    }
    expect(frames).toBe(source.info.samples);
  } catch (err) {
    refused(err);
  } finally {
    await source.close();
  }
}

describe('parsers take random and damaged input without crashing', { timeout: TIMEOUT }, () => {
  it('mutated WAV and RF64 files', async () => {
    const path = tmp.file('m.wav');
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...WAV_SEEDS),
        fc.array(mutationArb, { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 64 }),
        async (seed, ms, iq, blockFrames) => {
          const bytes = mutate(seed, ms);
          writeFileSync(path, bytes);
          await openAndRead(path, bytes.length, { iq }, blockFrames);
        },
      ),
      { numRuns: runs(400) },
    );
  });

  it('random bytes under every extension', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.uint8Array({ maxLength: 600 }),
          fc
            .uint8Array({ maxLength: 600 })
            .map((b) => concat([ascii('RIFF'), b.subarray(0, 4), ascii('WAVE'), b.subarray(4)])),
        ),
        fc.constantFrom('.wav', '.rf64', '.sigmf', '.cu8', '.cs16', '.cf32', '.raw', '.xyz', '.sigmf-data'),
        fc.integer({ min: 1, max: 100 }),
        async (bytes, ext, blockFrames) => {
          const path = tmp.file(`r${ext}`);
          writeFileSync(path, bytes);
          if (ext === '.sigmf-data') writeFileSync(tmp.file('r.sigmf-meta'), bytes);
          await openAndRead(path, bytes.length, { rate: 1000 }, blockFrames);
        },
      ),
      { numRuns: runs(200) },
    );
  });

  it('damaged SigMF metadata (text and JSON values) and data sizes', async () => {
    const good = {
      global: {
        'core:datatype': 'ci16_le',
        'core:sample_rate': 48000,
        'core:num_channels': 2,
        'core:version': '1.2.0',
      },
      captures: [{ 'core:sample_start': 0, 'core:frequency': 1e8, 'core:header_bytes': 4 }],
      annotations: [{ 'core:sample_start': 1, 'core:sample_count': 2 }],
    };
    const keys = [
      'core:datatype',
      'core:sample_rate',
      'core:num_channels',
      'core:trailing_bytes',
      'core:metadata_only',
    ];
    const metaArb = fc.oneof(
      // A field replaced by any JSON value.
      fc
        .record({ key: fc.constantFrom(...keys), value: fc.jsonValue() })
        .map(({ key, value }) => JSON.stringify({ ...good, global: { ...good.global, [key]: value } })),
      fc
        .record({ part: fc.constantFrom('global', 'captures', 'annotations'), value: fc.jsonValue() })
        .map(({ part, value }) => JSON.stringify({ ...good, [part]: value })),
      fc
        .record({ value: fc.jsonValue() })
        .map(({ value }) =>
          JSON.stringify({ ...good, captures: [{ ...good.captures[0], 'core:header_bytes': value }] }),
        ),
      fc
        .constantFrom('cu8', 'ri8', 'cf64_be', 'ru32_le', 'ci32_be', 'rf32', 'ci24_le', 'zz', '')
        .map((dt) => JSON.stringify({ ...good, global: { ...good.global, 'core:datatype': dt } })),
      // Text damage: truncation and flipped characters.
      fc.tuple(fc.nat(), fc.nat(), fc.integer({ min: 32, max: 126 })).map(([cut, at, ch]) => {
        const t = JSON.stringify(good);
        const s =
          t.slice(0, at % (t.length + 1)) + String.fromCharCode(ch) + t.slice((at % (t.length + 1)) + 1);
        return s.slice(0, cut % (s.length + 1) || s.length);
      }),
    );
    await fc.assert(
      fc.asyncProperty(
        metaArb,
        fc.nat({ max: 700 }),
        fc.integer({ min: 1, max: 50 }),
        async (meta, dataLength, blockFrames) => {
          writeFileSync(tmp.file('s.sigmf-meta'), meta);
          writeFileSync(tmp.file('s.sigmf-data'), samples(dataLength));
          await openAndRead(tmp.file('s.sigmf-meta'), dataLength, {}, blockFrames);
        },
      ),
      { numRuns: runs(200) },
    );
  });

  it('mutated SigMF archives', async () => {
    const seed = new Uint8Array(readFileSync(join(FIXTURES, 'rec.sigmf')));
    await fc.assert(
      fc.asyncProperty(
        fc.array(mutationArb, { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 1, max: 30 }),
        async (ms, blockFrames) => {
          // Aim the damage at the headers and the metadata, which sit in the first 2 KiB.
          const bytes = mutate(
            seed,
            ms.map((m) => (m.kind === 'truncate' ? m : { ...m, at: m.at % 2048 })),
          );
          writeFileSync(tmp.file('a.sigmf'), bytes);
          await openAndRead(tmp.file('a.sigmf'), bytes.length, {}, blockFrames);
        },
      ),
      { numRuns: runs(200) },
    );
  });

  it('raw files of any length and format name', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 300 }),
        fc.oneof(
          fc.constantFrom('cu8', 'cs8', 'cs16', 'cf32', 'cfile', 'ci16_be', 'rf64_le', 'cu16'),
          fc.string({ maxLength: 8 }),
        ),
        fc.oneof(fc.double(), fc.constant(undefined)),
        fc.integer({ min: 1, max: 40 }),
        async (bytes, format, rate, blockFrames) => {
          writeFileSync(tmp.file('x.raw'), bytes);
          await openAndRead(tmp.file('x.raw'), bytes.length, { format, rate }, blockFrames);
        },
      ),
      { numRuns: runs(200) },
    );
  });
});
