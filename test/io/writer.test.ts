// Writers: atomic publication, abort and failure cleanup, durability, argument checks, default output
// encodings.

import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { InvalidArgumentError, PhasorError } from '../../electron/engine/errors.js';
import {
  createWriter,
  defaultOutputEncoding,
  openSource,
  pendingTemporaries,
  removePendingTemporaries,
  type SampleWriter,
} from '../../electron/engine/io/index.js';
import { openOutputFile } from '../../electron/engine/output/atomic.js';
import { lcg, makeTempDir, readAll } from './helpers.js';

const tmp = makeTempDir('writer');
afterAll(() => tmp.cleanup());

const mono = { sampleRate: 8000, complex: false, channels: 1 } as const;
const noise = (n: number, seed = 1) => {
  const r = lcg(seed);
  return Float32Array.from({ length: n }, () => r() * 1.8 - 0.9);
};

function folder(name: string): { dir: string; list: () => string[] } {
  const dir = `${tmp.dir}/${name}`;
  mkdirSync(dir, { recursive: true });
  return { dir, list: () => readdirSync(dir).sort() };
}

describe('atomic writes', () => {
  it('nothing stands under the final name until commit; then only the file', async () => {
    for (const [name, finals] of [
      ['a.wav', ['a.wav']],
      ['b.sigmf', ['b.sigmf-data', 'b.sigmf-meta']],
    ] as const) {
      const f = folder(`atomic-${name}`);
      const w = await createWriter(`${f.dir}/${name}`, { format: mono, encoding: 'ri16_le' });
      await w.write(noise(3000));
      const during = f.list();
      expect(during).toHaveLength(1);
      expect(during[0]).toMatch(/^\.[^/]+\.phasor-[0-9a-f]+-\d+-[0-9a-f]+\.tmp$/);
      await w.commit();
      expect(f.list()).toEqual([...finals]);
      expect(w.framesWritten).toBe(3000);
    }
  });

  it('abort() removes the temporaries and leaves no file', async () => {
    for (const name of ['c.wav', 'd.sigmf-data']) {
      const f = folder(`abort-${name}`);
      const w = await createWriter(`${f.dir}/${name}`, { format: mono, encoding: 'rf32_le' });
      await w.write(noise(5000));
      await w.abort();
      await w.abort(); // idempotent
      expect(f.list()).toEqual([]);
      await expect(w.write(noise(10))).rejects.toThrow(/already aborted/);
      await expect(w.commit()).rejects.toThrow(InvalidArgumentError);
    }
  });

  it('an existing file is replaced only on commit, and kept on abort', async () => {
    const f = folder('replace');
    const path = `${f.dir}/e.wav`;
    const first = await createWriter(path, { format: mono, encoding: 'ri16_le' });
    await first.write(Float32Array.from([0.5, 0.25]));
    await first.commit();
    const second = await createWriter(path, { format: mono, encoding: 'ri16_le' });
    await second.write(Float32Array.from([-0.5]));
    await second.abort();
    const s = await openSource(path);
    expect(Array.from(await readAll(s))).toEqual([0.5, 0.25]);
    await s.close();
    expect(f.list()).toEqual(['e.wav']);
  });

  it('a failing commit (the target is a folder) leaves no temporary', async () => {
    for (const name of ['f.wav', 'g.sigmf-meta']) {
      const f = folder(`fail-${name}`);
      mkdirSync(`${f.dir}/${name}`);
      const w = await createWriter(`${f.dir}/${name}`, { format: mono, encoding: 'ri16_le' });
      await w.write(noise(100));
      const err = await w.commit().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(PhasorError);
      expect((err as PhasorError).code).toBe('io');
      expect(f.list()).toEqual([name]); // only the folder that was in the way
      // A SigMF whose meta could not be put in place takes its data file back down.
      expect(readdirSync(f.dir).some((x) => x.endsWith('.sigmf-data'))).toBe(false);
    }
  });

  it('a folder removed while writing makes commit fail cleanly', async () => {
    const f = folder('vanish');
    const w = await createWriter(`${f.dir}/h.wav`, { format: mono, encoding: 'ri16_le' });
    await w.write(noise(100));
    rmSync(f.dir, { recursive: true });
    await expect(w.commit()).rejects.toMatchObject({ code: 'io' });
    expect(pendingTemporaries().filter((p) => p.includes('/vanish/'))).toEqual([]);
  });

  it('a bad write aborts the writer (no file, no temporary)', async () => {
    const f = folder('badwrite');
    const w = await createWriter(`${f.dir}/i.wav`, { format: { ...mono, channels: 2 }, encoding: 'ri16_le' });
    await w.write(noise(10));
    await expect(w.write(noise(3))).rejects.toThrow(/whole frames: 3 values is not a multiple of 2/);
    expect(f.list()).toEqual([]);
  });

  it('removePendingTemporaries() removes what open writers hold (hosts call it on exit and SIGINT)', async () => {
    const f = folder('pending');
    const writers: SampleWriter[] = [];
    for (const name of ['j.wav', 'k.sigmf']) {
      const w = await createWriter(`${f.dir}/${name}`, { format: mono, encoding: 'ri16_le' });
      await w.write(noise(100));
      writers.push(w);
    }
    expect(f.list()).toHaveLength(2);
    removePendingTemporaries();
    expect(f.list()).toEqual([]);
    expect(pendingTemporaries().filter((p) => p.includes('/pending/'))).toEqual([]);
    // A later commit fails instead of publishing a half file.
    await expect(writers[0].commit()).rejects.toBeInstanceOf(PhasorError);
    expect(f.list()).toEqual([]);
  });

  it('calling write() again before the previous one finished is refused', async () => {
    const f = folder('concurrent');
    const w = await createWriter(`${f.dir}/l.wav`, { format: mono, encoding: 'ri16_le' });
    const big = noise(2_000_000);
    const p = w.write(big);
    await expect(w.write(noise(4))).rejects.toThrow(/await each call/);
    await p;
    await w.commit();
    const s = await openSource(`${f.dir}/l.wav`);
    expect(s.info.samples).toBe(2_000_000);
    await s.close();
  });
});

describe('durability', () => {
  /** Counts fsync/fdatasync calls on every FileHandle while `fn` runs. */
  async function countSyncs(fn: () => Promise<void>): Promise<number> {
    const probe = await open(`${tmp.dir}/probe`, 'w');
    const proto = Object.getPrototypeOf(probe) as {
      sync: () => Promise<void>;
      datasync: () => Promise<void>;
    };
    await probe.close();
    const sync = vi.spyOn(proto, 'sync');
    const datasync = vi.spyOn(proto, 'datasync');
    try {
      await fn();
      return sync.mock.calls.length + datasync.mock.calls.length;
    } finally {
      sync.mockRestore();
      datasync.mockRestore();
    }
  }

  it('flushes a durable output in the background as it grows, and waits for it before the rename', async () => {
    const f = folder('background');
    const piece = new Uint8Array(256 << 10).fill(3);
    for (const durable of [true, false]) {
      const path = `${f.dir}/${durable ? 'd' : 'n'}.npy`;
      const syncs = await countSyncs(async () => {
        const out = await openOutputFile(path, { durable, syncEveryBytes: 1 << 20 });
        for (let i = 0; i < 14; i++) await out.write(piece); // 3.5 MiB: a flush after every MiB at most
        await out.commit();
      });
      // background flushes (at least one of the three MiB marks; one runs at a time) and the final one
      if (durable) expect(syncs).toBeGreaterThanOrEqual(2);
      else expect(syncs).toBe(0);
      expect(statSync(path).size).toBe(14 * piece.length);
    }
  });

  it('flushes every output to the disk before renaming it, unless durable is false', async () => {
    const f = folder('durable');
    const x = noise(5000, 7);
    // a WAV is one file, SigMF its data and its metadata, a .npy one file (openOutputFile)
    const outputs = [
      { name: 'a.wav', files: ['a.wav'] },
      { name: 'b.sigmf', files: ['b.sigmf-data', 'b.sigmf-meta'] },
    ];
    for (const durable of [true, false]) {
      const tag = durable ? 'd' : 'n';
      for (const o of outputs) {
        const syncs = await countSyncs(async () => {
          const w = await createWriter(`${f.dir}/${tag}-${o.name}`, {
            format: mono,
            encoding: 'ri16_le',
            durable,
          });
          await w.write(x);
          await w.commit();
        });
        expect(syncs, `${o.name}, durable ${durable}`).toBe(durable ? o.files.length : 0);
      }
      const syncs = await countSyncs(async () => {
        const out = await openOutputFile(`${f.dir}/${tag}-c.npy`, { durable });
        await out.write(x);
        await out.commit();
      });
      expect(syncs, `.npy, durable ${durable}`).toBe(durable ? 1 : 0);
    }
    expect(f.list().filter((n) => n.startsWith('.'))).toEqual([]); // no temporary left either way
    for (const file of ['a.wav', 'b.sigmf-data', 'c.npy']) {
      expect(readFileSync(`${f.dir}/n-${file}`)).toEqual(readFileSync(`${f.dir}/d-${file}`));
    }
  });
});

describe('writer arguments', () => {
  it('refuses unknown containers, encodings a container cannot hold, bad formats', async () => {
    await expect(createWriter(tmp.file('x.mp3'), { format: mono, encoding: 'ri16_le' })).rejects.toThrow(
      /cannot tell the output format/,
    );
    await expect(createWriter(tmp.file('x.wav'), { format: mono, encoding: 'ri16_be' })).rejects.toThrow(
      /WAV cannot hold ri16_be; use ri16_le/,
    );
    await expect(createWriter(tmp.file('x.wav'), { format: mono, encoding: 'ri8' })).rejects.toThrow(
      /WAV cannot hold ri8; use ru8/,
    );
    await expect(createWriter(tmp.file('x.wav'), { format: mono, encoding: 'ru16_le' })).rejects.toThrow(
      /use ri16_le/,
    );
    await expect(createWriter(tmp.file('x.sigmf'), { format: mono, encoding: 'ri24_le' })).rejects.toThrow(
      /SigMF has no 24-bit datatype; use ri32_le/,
    );
    await expect(createWriter(tmp.file('x.wav'), { format: mono, encoding: 'mp3' })).rejects.toThrow(
      /unknown output encoding 'mp3'/,
    );
    await expect(
      createWriter(tmp.file('x.wav'), { format: { ...mono, sampleRate: -1 }, encoding: 'ri16_le' }),
    ).rejects.toThrow(InvalidArgumentError);
    await expect(
      createWriter(tmp.file('x.wav'), { format: { ...mono, sampleRate: 44100.5 }, encoding: 'ri16_le' }),
    ).rejects.toThrow(/whole number of Hz/);
    await expect(
      createWriter(tmp.file('x.wav'), { format: { ...mono, channels: 0 }, encoding: 'ri16_le' }),
    ).rejects.toThrow(InvalidArgumentError);
    await expect(
      createWriter(`${tmp.dir}/no/such/dir/x.wav`, { format: mono, encoding: 'ri16_le' }),
    ).rejects.toThrow(/folder .* does not exist/);
    expect(readdirSync(tmp.dir).filter((x) => x.startsWith('.'))).toEqual([]);
  });

  it('accepts raw spellings and a c/r prefix that follows the format', async () => {
    const w = await createWriter(tmp.file('alias.wav'), {
      format: { ...mono, complex: true },
      encoding: 'cs16',
    });
    await w.write(Float32Array.from([0.5, -0.5]));
    await w.commit();
    const s = await openSource(tmp.file('alias.wav'), { iq: true });
    expect(s.info.encoding).toBe('ci16_le');
    await s.close();
  });
});

describe('defaultOutputEncoding', () => {
  it('keeps what the container holds, else the nearest it can', () => {
    const table: Array<[string, 'wav' | 'sigmf', boolean, string]> = [
      ['ri16_le', 'wav', false, 'ri16_le'],
      ['ri16_le', 'wav', true, 'ci16_le'],
      ['ri24_le', 'wav', false, 'ri24_le'],
      ['ri24_le', 'sigmf', false, 'ri32_le'],
      ['ru8', 'wav', false, 'ru8'],
      ['cu8', 'wav', true, 'cu8'],
      ['ci8', 'wav', true, 'cu8'],
      ['cu8', 'sigmf', true, 'cu8'],
      ['ci16_be', 'wav', true, 'ci16_le'],
      ['ci16_be', 'sigmf', true, 'ci16_be'],
      ['ru16_le', 'wav', false, 'ri16_le'],
      ['cu32_be', 'wav', true, 'ci32_le'],
      ['cf64_be', 'wav', true, 'cf64_le'],
      ['cf32_le', 'sigmf', true, 'cf32_le'],
      ['rf32_le', 'sigmf', false, 'rf32_le'],
      ['cs16', 'sigmf', true, 'ci16_le'],
    ];
    for (const [input, container, complex, want] of table) {
      expect(defaultOutputEncoding(input, container, complex), `${input} → ${container}`).toBe(want);
    }
    expect(() => defaultOutputEncoding('opus', 'wav', false)).toThrow(InvalidArgumentError);
  });
});
