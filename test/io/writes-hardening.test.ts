// The one output path (io/temporary.ts) under failures a disk or a killed process brings: a write that
// stores less than asked, or nothing; a SigMF pair whose commit fails halfway; temporaries left by a process
// that no longer runs.

import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { PhasorError } from '../../electron/engine/errors.js';
import { createWriter } from '../../electron/engine/io/index.js';
import { TemporaryFile } from '../../electron/engine/io/temporary.js';
import { openOutputFile } from '../../electron/engine/output/atomic.js';
import { lcg, makeTempDir } from './helpers.js';

const tmp = makeTempDir('writes');
afterAll(() => tmp.cleanup());
afterEach(() => vi.restoreAllMocks());

function folder(name: string): { dir: string; list: () => string[] } {
  const dir = `${tmp.dir}/${name}`;
  mkdirSync(dir, { recursive: true });
  return { dir, list: () => readdirSync(dir).sort() };
}

function bytes(n: number, seed: number): Uint8Array {
  const r = lcg(seed);
  return Uint8Array.from({ length: n }, () => Math.floor(r() * 256));
}

/** The prototype every FileHandle's write comes from. */
async function fileHandlePrototype(): Promise<{
  write: (...a: unknown[]) => Promise<{ bytesWritten: number }>;
}> {
  const h = await open(`${tmp.dir}/probe`, 'w');
  const proto = Object.getPrototypeOf(h) as { write: (...a: unknown[]) => Promise<{ bytesWritten: number }> };
  await h.close();
  return proto;
}

describe('short writes', () => {
  it('a write that stores fewer bytes than asked is continued until all are stored', async () => {
    const proto = await fileHandlePrototype();
    const real = proto.write;
    // Every write stores at most 1000 bytes, as a filling disk may.
    vi.spyOn(proto, 'write').mockImplementation(function (this: unknown, ...a: unknown[]) {
      const [buf, off, len, pos] = a as [Uint8Array, number, number, number];
      return real.call(this, buf, off, Math.min(len, 1000), pos);
    });
    const f = folder('short');
    const data = bytes(10_000, 7);
    const out = await openOutputFile(`${f.dir}/a.npy`, { durable: false });
    await out.write(data);
    await out.commit();
    vi.restoreAllMocks();
    expect(new Uint8Array(readFileSync(`${f.dir}/a.npy`))).toEqual(data);
  });

  it('a write that stores nothing fails the job (one error naming the file); nothing is renamed', async () => {
    const proto = await fileHandlePrototype();
    let calls = 0;
    vi.spyOn(proto, 'write').mockImplementation(async () => {
      // A loop that takes zero bytes for progress would go on for ever: stop it and let the test fail.
      if (++calls > 1000) throw new Error('writeAll went on after a write stored nothing');
      return { bytesWritten: 0 };
    });
    const f = folder('zero');
    const out = await openOutputFile(`${f.dir}/s.png`, { durable: false });
    const err = await out.write(bytes(4096, 3)).catch((e: unknown) => e);
    vi.restoreAllMocks();
    expect(calls).toBe(1);
    expect(err).toBeInstanceOf(PhasorError);
    expect((err as PhasorError).file).toBe(`${f.dir}/s.png`);
    expect((err as PhasorError).message).not.toMatch(/\n/);
    await out.abort();
    expect(f.list()).toEqual([]);
  });

  it('a file shorter than what was written is not renamed into place', async () => {
    const f = folder('truncated');
    const t = await TemporaryFile.create(`${f.dir}/x.npy`, { durable: false });
    await t.writeAll(bytes(5000, 4), 0);
    // Something else cuts the file (a write the disk took back, another process): commit refuses it.
    const other = await open(t.path, 'r+');
    await other.truncate(4000);
    await other.close();
    await expect(t.close()).rejects.toThrow(/4000 of 5000 bytes/);
    await t.discard();
    expect(f.list()).toEqual([]);
  });
});

describe('a SigMF pair whose commit fails', () => {
  it('restores the data file that was there when the metadata cannot be put in place', async () => {
    const f = folder('rollback');
    const old = bytes(3000, 11);
    writeFileSync(`${f.dir}/out.sigmf-data`, old);
    mkdirSync(`${f.dir}/out.sigmf-meta`); // the metadata's name is taken by a folder
    const w = await createWriter(`${f.dir}/out.sigmf-data`, {
      format: { sampleRate: 8000, complex: false, channels: 1 },
      encoding: 'rf32_le',
      durable: false,
    });
    const r = lcg(2);
    await w.write(Float32Array.from({ length: 4000 }, () => r() - 0.5));
    const err = await w.commit().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PhasorError);
    expect((err as PhasorError).file).toMatch(/out\.sigmf-(meta|data)$/);
    expect(f.list()).toEqual(['out.sigmf-data', 'out.sigmf-meta']);
    expect(new Uint8Array(readFileSync(`${f.dir}/out.sigmf-data`))).toEqual(old);
  });

  it('removes the new data file when there was none before', async () => {
    const f = folder('rollback-new');
    mkdirSync(`${f.dir}/out.sigmf-meta`);
    const w = await createWriter(`${f.dir}/out.sigmf`, {
      format: { sampleRate: 8000, complex: false, channels: 1 },
      encoding: 'ri16_le',
      durable: false,
    });
    await w.write(Float32Array.from({ length: 100 }, (_, i) => Math.sin(i)));
    await expect(w.commit()).rejects.toBeInstanceOf(PhasorError);
    expect(f.list()).toEqual(['out.sigmf-meta']);
  });
});

describe('temporaries left by a process that no longer runs', () => {
  /** The pid of a process that has exited (and been reaped). */
  async function deadPid(): Promise<number> {
    const c = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    await new Promise((r) => c.on('close', r));
    return c.pid!;
  }

  it('are removed when a temporary is next made in their folder; a live process’s are kept', async () => {
    const f = folder('stale');
    // A temporary of this process shows the name's form: `.NAME.phasor-<host>-<pid>-<hex>.tmp`.
    const probe = await TemporaryFile.create(`${f.dir}/probe.npy`, { durable: false });
    const form = /^\.probe\.npy\.phasor-([0-9a-f]+)-(\d+)-[0-9a-f]+\.tmp$/.exec(
      probe.path.slice(f.dir.length + 1),
    );
    await probe.discard();
    expect(form?.[2]).toBe(String(process.pid));
    const host = form![1];
    const otherHost = host === '00000000' ? '11111111' : '00000000';
    const dead = await deadPid();
    const live = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      const stale = `.big.wav.phasor-${host}-${dead}-0a1b2c3d4e5f.tmp`;
      const kept = [
        `.other.wav.phasor-${host}-${live.pid}-0a1b2c3d4e5f.tmp`, // its process runs
        `.shared.wav.phasor-${otherHost}-${dead}-0a1b2c3d4e5f.tmp`, // another machine's
        `keep.phasor-${host}-${dead}-0a1b2c3d4e5f.tmp`, // not hidden: not ours
      ];
      writeFileSync(`${f.dir}/${stale}`, bytes(100, 1));
      kept.forEach((k, i) => writeFileSync(`${f.dir}/${k}`, bytes(100, i + 2)));
      const t = await TemporaryFile.create(`${f.dir}/new.npy`, { durable: false });
      const during = f.list();
      await t.discard();
      expect(during).not.toContain(stale);
      expect(during).toEqual([...kept, t.path.slice(f.dir.length + 1)].sort());
    } finally {
      live.kill();
    }
  });
});
