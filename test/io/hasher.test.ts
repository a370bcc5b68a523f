import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { StreamHash } from '../../electron/engine/io/hasher.js';

function bytes(n: number, seed: number): Uint8Array {
  const b = new Uint8Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (s * 1664525 + 1013904223) >>> 0;
    b[i] = s >>> 24;
  }
  return b;
}

async function digestOf(chunks: Uint8Array[], reuse: boolean): Promise<string> {
  const h = new StreamHash();
  const scratch = new Uint8Array(Math.max(...chunks.map((c) => c.length)));
  for (const c of chunks) {
    if (reuse) {
      // The caller overwrites its buffer as soon as update() settles, as the writer does.
      const view = scratch.subarray(0, c.length);
      view.set(c);
      await h.update(view);
      view.fill(0xa5);
    } else await h.update(c);
  }
  return h.digest();
}

describe('StreamHash', () => {
  it('equals createHash("sha512") for a small stream hashed in place', async () => {
    const chunks = [bytes(1000, 1), bytes(0, 2), bytes(65536, 3)];
    const want = createHash('sha512');
    for (const c of chunks) want.update(c);
    expect(await digestOf(chunks, true)).toBe(want.digest('hex'));
  });

  it('equals createHash("sha512") for a stream handed to the hashing thread, buffers reused', async () => {
    // 20 chunks of 1 MiB pass the in-place limit: the head goes over, then chunks queue with back-pressure.
    const chunks = Array.from({ length: 20 }, (_, i) => bytes((1 << 20) + (i % 3), i + 10));
    const want = createHash('sha512');
    for (const c of chunks) want.update(c);
    const [a, b] = await Promise.all([digestOf(chunks, true), digestOf(chunks.slice(0, 12), false)]);
    expect(a).toBe(want.digest('hex'));
    const want12 = createHash('sha512');
    for (const c of chunks.slice(0, 12)) want12.update(c);
    expect(b).toBe(want12.digest('hex'));
  });

  it('forgets a disposed stream without disturbing another', async () => {
    const dropped = new StreamHash();
    for (let i = 0; i < 10; i++) await dropped.update(bytes(1 << 20, i));
    dropped.dispose();
    const chunks = Array.from({ length: 10 }, (_, i) => bytes(1 << 20, 100 + i));
    const want = createHash('sha512');
    for (const c of chunks) want.update(c);
    expect(await digestOf(chunks, false)).toBe(want.digest('hex'));
  });
});
