// Helpers of the conformance suite: seeded data, error measures, block splitting.

/** Seeded uniform values in [−1, 1), float32-representable (so references see exactly the backend's input).
 * Zero is never produced. */
export function randomF32(length: number, seed: number): Float32Array {
  const out = new Float32Array(length);
  let a = seed >>> 0;
  for (let i = 0; i < length; i++) {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    const u = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    out[i] = u * 2 - 1 || 0.5;
  }
  return out;
}

/** A seeded generator of integers in [lo, hi]. */
export function randomInts(seed: number): (lo: number, hi: number) => number {
  let a = seed >>> 0;
  return (lo, hi) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return lo + (((t ^ (t >>> 14)) >>> 0) % (hi - lo + 1));
  };
}

/** ‖a − b‖ / ‖b‖ over [from, from + length) of a and b (b the reference). */
export function relL2(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  from = 0,
  length = b.length - from,
  bFrom = from,
): number {
  let e = 0;
  let r = 0;
  for (let i = 0; i < length; i++) {
    const d = a[from + i] - b[bFrom + i];
    e += d * d;
    r += b[bFrom + i] * b[bFrom + i];
  }
  if (r === 0) return Math.sqrt(e);
  return Math.sqrt(e / r);
}

export function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < b.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

export function toF64(x: ArrayLike<number>): Float64Array {
  return Float64Array.from(x as ArrayLike<number>);
}

/** Splits [0, length) into random block sizes (multiples of `unit`), some empty, some tiny, some large. */
export function randomBlocks(length: number, unit: number, seed: number): number[] {
  const rnd = randomInts(seed);
  const units = length / unit;
  const sizes: number[] = [];
  let done = 0;
  while (done < units) {
    const kind = rnd(0, 9);
    let s = kind === 0 ? 0 : kind < 4 ? rnd(1, 7) : kind < 8 ? rnd(1, 500) : rnd(1, Math.max(1, units >> 2));
    s = Math.min(s, units - done);
    sizes.push(s * unit);
    done += s;
  }
  return sizes;
}

export function concat(parts: Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}
