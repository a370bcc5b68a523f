// What the benchmarks of every layer share: their deterministic inputs and the median they report
// (pipeline/bench.ts for whole calls, a backend's device timer for its kernels).

/** Deterministic uniform noise in [−1, 1) (xorshift32), never all zeros. */
export function benchInput(length: number, seed: number): Float32Array {
  const out = new Float32Array(length);
  let s = seed >>> 0 || 0x9e3779b9;
  for (let i = 0; i < length; i++) {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    out[i] = s / 2147483648 - 1;
  }
  return out;
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}
