// Mixed-radix Stockham autosort FFT (decimation in frequency), float64 throughout.
//
// A transform of size N is a sequence of stages; stage i has radix r, works on sub-transforms of length
// L = N / s (s = product of the earlier radices) and writes its r outputs already reordered, so no
// bit-reversal pass is needed. Every butterfly of a stage uses the twiddles w^(p·k), w = e^(-2πi/L),
// p < L/r, precomputed once per plan. Radices 2, 3, 4, 5 have unrolled kernels; any other odd radix uses
// a generic kernel that pairs x[j] with x[r−j] (half the multiplies of a plain DFT).
//
// Every kernel reads x from xo and writes y from yo (offsets in float64 values), so the first stage can
// read the caller's array and the last can write the caller's output without extra copies.
//
// Powers of two from 16 up normally go through the generated kernels of pow2.ts; these serve every other
// size, and powers of two too where code generation is not allowed.
//
// The kernels copy the module's constants (SIN_60, COS_72…) into locals first: a bundler turns module-level
// `const` into `var`, and TurboFan then reloads and re-checks the value at every use inside the loops
// (measured 30% slower at n = 1000 in a bundle).

/** One stage of a plan. */
export interface Stage {
  readonly radix: number;
  /** Length of the sub-transforms this stage splits (N / s). */
  readonly len: number;
  /** Stride: number of interleaved sub-transforms (product of the earlier radices). */
  readonly stride: number;
  /** Twiddles w^(p·k) for p < len/radix, k = 1 … radix−1: (re, im) pairs, p-major. Empty when len = radix. */
  readonly twiddles: Float64Array;
}

/** Splits n into radices, largest-first radix 4 where possible. Returns null if n has a prime factor > maxPrime. */
export function factorize(n: number, maxPrime: number): number[] | null {
  const radices: number[] = [];
  let m = n;
  let twos = 0;
  while (m % 2 === 0) {
    twos++;
    m /= 2;
  }
  // Powers of two: radix 8 (fewer passes, fewer loop iterations: V8's per-iteration cost is high) then
  // radix 4 (2^(3k+1) = 8^(k−1)·4·4), radix 2 only for 2^1. Above 2^13 radix 8 measured slower here
  // (eight power-of-two strided streams per butterfly), so large sizes use radix 4 only.
  let e = twos;
  if (e <= 13) {
    while (e >= 3 && e !== 4) {
      radices.push(8);
      e -= 3;
    }
  }
  while (e >= 2) {
    radices.push(4);
    e -= 2;
  }
  if (e === 1) radices.push(2);
  for (const p of [3, 5, 7]) {
    while (m % p === 0) {
      radices.push(p);
      m /= p;
    }
  }
  for (let p = 11; m > 1 && p <= maxPrime; p += 2) {
    while (m % p === 0) {
      radices.push(p);
      m /= p;
    }
  }
  return m === 1 ? radices : null;
}

/** Builds the stages for the given radices (their product is the transform size). */
export function buildStages(radices: readonly number[]): Stage[] {
  const n = radices.reduce((a, b) => a * b, 1);
  const stages: Stage[] = [];
  let stride = 1;
  for (const radix of radices) {
    // `| 0` keeps len a small integer in the Stage object (a double there slows every kernel's indexing).
    const len = (n / stride) | 0;
    const m = len / radix;
    const twiddles = new Float64Array(m > 1 ? 2 * m * (radix - 1) : 0);
    if (m > 1) {
      for (let p = 0; p < m; p++) {
        for (let k = 1; k < radix; k++) {
          // Reduce p·k modulo len first so the angle stays in [0, 2π): cos/sin stay accurate to an ulp.
          const angle = (-2 * Math.PI * ((p * k) % len)) / len;
          const i = 2 * (p * (radix - 1) + k - 1);
          twiddles[i] = Math.cos(angle);
          twiddles[i + 1] = Math.sin(angle);
        }
      }
    }
    stages.push({ radix, len, stride, twiddles });
    stride *= radix;
  }
  return stages;
}

type Arr = Float64Array | Float32Array;

// ------------------------------------------------------------------------------------------------
// Radix 4

export function radix4(st: Stage, x: Arr, xo: number, y: Float64Array, yo: number): void {
  const s = st.stride;
  const m = st.len >> 2;
  const tw = st.twiddles;
  const dj = 2 * s * m; // distance between the radix inputs
  const dk = 2 * s; // distance between the radix outputs
  if (m === 1) {
    for (let q = 0; q < s; q++) {
      const i0 = xo + 2 * q;
      const o0 = yo + 2 * q;
      const ar = x[i0],
        ai = x[i0 + 1];
      const br = x[i0 + dj],
        bi = x[i0 + dj + 1];
      const cr = x[i0 + 2 * dj],
        ci = x[i0 + 2 * dj + 1];
      const dr = x[i0 + 3 * dj],
        di = x[i0 + 3 * dj + 1];
      const t0r = ar + cr,
        t0i = ai + ci;
      const t1r = ar - cr,
        t1i = ai - ci;
      const t2r = br + dr,
        t2i = bi + di;
      // -j·(b − d)
      const t3r = bi - di,
        t3i = dr - br;
      y[o0] = t0r + t2r;
      y[o0 + 1] = t0i + t2i;
      y[o0 + dk] = t1r + t3r;
      y[o0 + dk + 1] = t1i + t3i;
      y[o0 + 2 * dk] = t0r - t2r;
      y[o0 + 2 * dk + 1] = t0i - t2i;
      y[o0 + 3 * dk] = t1r - t3r;
      y[o0 + 3 * dk + 1] = t1i - t3i;
    }
    return;
  }
  if (s === 1) {
    for (let p = 0; p < m; p++) {
      const w = 6 * p;
      const w1r = tw[w],
        w1i = tw[w + 1],
        w2r = tw[w + 2],
        w2i = tw[w + 3],
        w3r = tw[w + 4],
        w3i = tw[w + 5];
      const i0 = xo + 2 * p;
      const o0 = yo + 8 * p;
      const ar = x[i0],
        ai = x[i0 + 1];
      const br = x[i0 + dj],
        bi = x[i0 + dj + 1];
      const cr = x[i0 + 2 * dj],
        ci = x[i0 + 2 * dj + 1];
      const dr = x[i0 + 3 * dj],
        di = x[i0 + 3 * dj + 1];
      const t0r = ar + cr,
        t0i = ai + ci;
      const t1r = ar - cr,
        t1i = ai - ci;
      const t2r = br + dr,
        t2i = bi + di;
      const t3r = bi - di,
        t3i = dr - br;
      y[o0] = t0r + t2r;
      y[o0 + 1] = t0i + t2i;
      const u1r = t1r + t3r,
        u1i = t1i + t3i;
      const u2r = t0r - t2r,
        u2i = t0i - t2i;
      const u3r = t1r - t3r,
        u3i = t1i - t3i;
      y[o0 + 2] = u1r * w1r - u1i * w1i;
      y[o0 + 3] = u1r * w1i + u1i * w1r;
      y[o0 + 4] = u2r * w2r - u2i * w2i;
      y[o0 + 5] = u2r * w2i + u2i * w2r;
      y[o0 + 6] = u3r * w3r - u3i * w3i;
      y[o0 + 7] = u3r * w3i + u3i * w3r;
    }
    return;
  }
  for (let p = 0; p < m; p++) {
    const w = 6 * p;
    const w1r = tw[w],
      w1i = tw[w + 1],
      w2r = tw[w + 2],
      w2i = tw[w + 3],
      w3r = tw[w + 4],
      w3i = tw[w + 5];
    const ib = xo + 2 * s * p;
    const ob = yo + 8 * s * p;
    for (let q = 0; q < s; q++) {
      const i0 = ib + 2 * q;
      const o0 = ob + 2 * q;
      const ar = x[i0],
        ai = x[i0 + 1];
      const br = x[i0 + dj],
        bi = x[i0 + dj + 1];
      const cr = x[i0 + 2 * dj],
        ci = x[i0 + 2 * dj + 1];
      const dr = x[i0 + 3 * dj],
        di = x[i0 + 3 * dj + 1];
      const t0r = ar + cr,
        t0i = ai + ci;
      const t1r = ar - cr,
        t1i = ai - ci;
      const t2r = br + dr,
        t2i = bi + di;
      const t3r = bi - di,
        t3i = dr - br;
      y[o0] = t0r + t2r;
      y[o0 + 1] = t0i + t2i;
      const u1r = t1r + t3r,
        u1i = t1i + t3i;
      const u2r = t0r - t2r,
        u2i = t0i - t2i;
      const u3r = t1r - t3r,
        u3i = t1i - t3i;
      y[o0 + dk] = u1r * w1r - u1i * w1i;
      y[o0 + dk + 1] = u1r * w1i + u1i * w1r;
      y[o0 + 2 * dk] = u2r * w2r - u2i * w2i;
      y[o0 + 2 * dk + 1] = u2r * w2i + u2i * w2r;
      y[o0 + 3 * dk] = u3r * w3r - u3i * w3i;
      y[o0 + 3 * dk + 1] = u3r * w3i + u3i * w3r;
    }
  }
}

// ------------------------------------------------------------------------------------------------
// Radix 2

export function radix2(st: Stage, x: Arr, xo: number, y: Float64Array, yo: number): void {
  const s = st.stride;
  const m = st.len >> 1;
  const tw = st.twiddles;
  const dj = 2 * s * m;
  const dk = 2 * s;
  if (m === 1) {
    for (let q = 0; q < s; q++) {
      const i0 = xo + 2 * q;
      const o0 = yo + 2 * q;
      const ar = x[i0],
        ai = x[i0 + 1];
      const br = x[i0 + dj],
        bi = x[i0 + dj + 1];
      y[o0] = ar + br;
      y[o0 + 1] = ai + bi;
      y[o0 + dk] = ar - br;
      y[o0 + dk + 1] = ai - bi;
    }
    return;
  }
  for (let p = 0; p < m; p++) {
    const wr = tw[2 * p],
      wi = tw[2 * p + 1];
    const ib = xo + 2 * s * p;
    const ob = yo + 4 * s * p;
    for (let q = 0; q < s; q++) {
      const i0 = ib + 2 * q;
      const o0 = ob + 2 * q;
      const ar = x[i0],
        ai = x[i0 + 1];
      const br = x[i0 + dj],
        bi = x[i0 + dj + 1];
      y[o0] = ar + br;
      y[o0 + 1] = ai + bi;
      const ur = ar - br,
        ui = ai - bi;
      y[o0 + dk] = ur * wr - ui * wi;
      y[o0 + dk + 1] = ur * wi + ui * wr;
    }
  }
}

// ------------------------------------------------------------------------------------------------
// Radix 3

const SIN_60 = Math.sqrt(3) / 2;

export function radix3(st: Stage, x: Arr, xo: number, y: Float64Array, yo: number): void {
  const S3 = SIN_60; // module constants are re-read in every use: copy to a local (see the header)
  const s = st.stride;
  const m = st.len / 3;
  const tw = st.twiddles;
  const dj = 2 * s * m;
  const dk = 2 * s;
  for (let p = 0; p < m; p++) {
    let w1r = 1,
      w1i = 0,
      w2r = 1,
      w2i = 0;
    if (m > 1) {
      const w = 4 * p;
      w1r = tw[w];
      w1i = tw[w + 1];
      w2r = tw[w + 2];
      w2i = tw[w + 3];
    }
    const ib = xo + 2 * s * p;
    const ob = yo + 6 * s * p;
    for (let q = 0; q < s; q++) {
      const i0 = ib + 2 * q;
      const o0 = ob + 2 * q;
      const ar = x[i0],
        ai = x[i0 + 1];
      const br = x[i0 + dj],
        bi = x[i0 + dj + 1];
      const cr = x[i0 + 2 * dj],
        ci = x[i0 + 2 * dj + 1];
      const t1r = br + cr,
        t1i = bi + ci;
      const t2r = ar - 0.5 * t1r,
        t2i = ai - 0.5 * t1i;
      const t3r = S3 * (br - cr),
        t3i = S3 * (bi - ci);
      y[o0] = ar + t1r;
      y[o0 + 1] = ai + t1i;
      // X1 = t2 − j·t3, X2 = t2 + j·t3
      const u1r = t2r + t3i,
        u1i = t2i - t3r;
      const u2r = t2r - t3i,
        u2i = t2i + t3r;
      y[o0 + dk] = u1r * w1r - u1i * w1i;
      y[o0 + dk + 1] = u1r * w1i + u1i * w1r;
      y[o0 + 2 * dk] = u2r * w2r - u2i * w2i;
      y[o0 + 2 * dk + 1] = u2r * w2i + u2i * w2r;
    }
  }
}

// ------------------------------------------------------------------------------------------------
// Radix 5

const COS_72 = Math.cos((2 * Math.PI) / 5);
const COS_144 = Math.cos((4 * Math.PI) / 5);
const SIN_72 = Math.sin((2 * Math.PI) / 5);
const SIN_144 = Math.sin((4 * Math.PI) / 5);

export function radix5(st: Stage, x: Arr, xo: number, y: Float64Array, yo: number): void {
  const C51 = COS_72,
    C52 = COS_144,
    S51 = SIN_72,
    S52 = SIN_144;
  const s = st.stride;
  const m = st.len / 5;
  const tw = st.twiddles;
  const dj = 2 * s * m;
  const dk = 2 * s;
  for (let p = 0; p < m; p++) {
    let w1r = 1,
      w1i = 0,
      w2r = 1,
      w2i = 0,
      w3r = 1,
      w3i = 0,
      w4r = 1,
      w4i = 0;
    if (m > 1) {
      const w = 8 * p;
      w1r = tw[w];
      w1i = tw[w + 1];
      w2r = tw[w + 2];
      w2i = tw[w + 3];
      w3r = tw[w + 4];
      w3i = tw[w + 5];
      w4r = tw[w + 6];
      w4i = tw[w + 7];
    }
    const ib = xo + 2 * s * p;
    const ob = yo + 10 * s * p;
    for (let q = 0; q < s; q++) {
      const i0 = ib + 2 * q;
      const o0 = ob + 2 * q;
      const ar = x[i0],
        ai = x[i0 + 1];
      const br = x[i0 + dj],
        bi = x[i0 + dj + 1];
      const cr = x[i0 + 2 * dj],
        ci = x[i0 + 2 * dj + 1];
      const dr = x[i0 + 3 * dj],
        di = x[i0 + 3 * dj + 1];
      const er = x[i0 + 4 * dj],
        ei = x[i0 + 4 * dj + 1];
      const s1r = br + er,
        s1i = bi + ei;
      const d1r = br - er,
        d1i = bi - ei;
      const s2r = cr + dr,
        s2i = ci + di;
      const d2r = cr - dr,
        d2i = ci - di;
      const p1r = ar + C51 * s1r + C52 * s2r,
        p1i = ai + C51 * s1i + C52 * s2i;
      const p2r = ar + C52 * s1r + C51 * s2r,
        p2i = ai + C52 * s1i + C51 * s2i;
      // q1 = S51·d1 + S52·d2, q2 = S52·d1 − S51·d2; X1 = p1 − j·q1, X4 = p1 + j·q1, X2 = p2 − j·q2, X3 = p2 + j·q2
      const q1r = S51 * d1r + S52 * d2r,
        q1i = S51 * d1i + S52 * d2i;
      const q2r = S52 * d1r - S51 * d2r,
        q2i = S52 * d1i - S51 * d2i;
      y[o0] = ar + s1r + s2r;
      y[o0 + 1] = ai + s1i + s2i;
      let ur = p1r + q1i,
        ui = p1i - q1r;
      y[o0 + dk] = ur * w1r - ui * w1i;
      y[o0 + dk + 1] = ur * w1i + ui * w1r;
      ur = p2r + q2i;
      ui = p2i - q2r;
      y[o0 + 2 * dk] = ur * w2r - ui * w2i;
      y[o0 + 2 * dk + 1] = ur * w2i + ui * w2r;
      ur = p2r - q2i;
      ui = p2i + q2r;
      y[o0 + 3 * dk] = ur * w3r - ui * w3i;
      y[o0 + 3 * dk + 1] = ur * w3i + ui * w3r;
      ur = p1r - q1i;
      ui = p1i + q1r;
      y[o0 + 4 * dk] = ur * w4r - ui * w4i;
      y[o0 + 4 * dk + 1] = ur * w4i + ui * w4r;
    }
  }
}

// ------------------------------------------------------------------------------------------------
// Generic odd radix (7, 11, 13, …)

/** Scratch and constants for the generic kernel of one radix. */
export interface OddRadixTables {
  readonly radix: number;
  /** cos(2π·j/r), sin(2π·j/r) for j < r. */
  readonly cos: Float64Array;
  readonly sin: Float64Array;
  /** Scratch: sums x[j] + x[r−j] and differences x[j] − x[r−j], and the outputs (re, im). */
  readonly sum: Float64Array;
  readonly dif: Float64Array;
  readonly out: Float64Array;
}

export function oddRadixTables(radix: number): OddRadixTables {
  const cos = new Float64Array(radix);
  const sin = new Float64Array(radix);
  for (let j = 0; j < radix; j++) {
    cos[j] = Math.cos((2 * Math.PI * j) / radix);
    sin[j] = Math.sin((2 * Math.PI * j) / radix);
  }
  return {
    radix,
    cos,
    sin,
    sum: new Float64Array(radix + 1),
    dif: new Float64Array(radix + 1),
    out: new Float64Array(2 * radix),
  };
}

export function radixOdd(
  st: Stage,
  t: OddRadixTables,
  x: Arr,
  xo: number,
  y: Float64Array,
  yo: number,
): void {
  const r = st.radix;
  const h = (r - 1) >> 1;
  const s = st.stride;
  const m = st.len / r;
  const tw = st.twiddles;
  const dj = 2 * s * m;
  const dk = 2 * s;
  const { cos, sin, sum, dif, out } = t;
  for (let p = 0; p < m; p++) {
    const wb = 2 * p * (r - 1);
    const ib = xo + 2 * s * p;
    const ob = yo + 2 * r * s * p;
    for (let q = 0; q < s; q++) {
      const i0 = ib + 2 * q;
      const o0 = ob + 2 * q;
      const ar = x[i0],
        ai = x[i0 + 1];
      let x0r = ar,
        x0i = ai;
      for (let j = 1; j <= h; j++) {
        const br = x[i0 + j * dj],
          bi = x[i0 + j * dj + 1];
        const cr = x[i0 + (r - j) * dj],
          ci = x[i0 + (r - j) * dj + 1];
        sum[2 * j] = br + cr;
        sum[2 * j + 1] = bi + ci;
        dif[2 * j] = br - cr;
        dif[2 * j + 1] = bi - ci;
        x0r += br + cr;
        x0i += bi + ci;
      }
      out[0] = x0r;
      out[1] = x0i;
      for (let k = 1; k <= h; k++) {
        let pr = ar,
          pi = ai,
          qr = 0,
          qi = 0;
        let idx = 0;
        for (let j = 1; j <= h; j++) {
          idx += k;
          if (idx >= r) idx -= r;
          const c = cos[idx],
            sn = sin[idx];
          pr += c * sum[2 * j];
          pi += c * sum[2 * j + 1];
          qr += sn * dif[2 * j];
          qi += sn * dif[2 * j + 1];
        }
        // X_k = p − j·q, X_(r−k) = p + j·q
        out[2 * k] = pr + qi;
        out[2 * k + 1] = pi - qr;
        out[2 * (r - k)] = pr - qi;
        out[2 * (r - k) + 1] = pi + qr;
      }
      y[o0] = out[0];
      y[o0 + 1] = out[1];
      if (m > 1) {
        for (let k = 1; k < r; k++) {
          const wr = tw[wb + 2 * (k - 1)],
            wi = tw[wb + 2 * (k - 1) + 1];
          const ur = out[2 * k],
            ui = out[2 * k + 1];
          y[o0 + k * dk] = ur * wr - ui * wi;
          y[o0 + k * dk + 1] = ur * wi + ui * wr;
        }
      } else {
        for (let k = 1; k < r; k++) {
          y[o0 + k * dk] = out[2 * k];
          y[o0 + k * dk + 1] = out[2 * k + 1];
        }
      }
    }
  }
}

// ------------------------------------------------------------------------------------------------
// Radix 8: a radix-2 layer, the ±45° rotations, then two radix-4 butterflies.

const SQRT1_2 = Math.SQRT1_2;

export function radix8(st: Stage, x: Arr, xo: number, y: Float64Array, yo: number): void {
  const R2 = SQRT1_2;
  const s = st.stride;
  const m = st.len >> 3;
  if (m === 1) {
    radix8NoTwiddle(st, x, xo, y, yo);
    return;
  }
  const tw = st.twiddles;
  const dj = 2 * s * m;
  const dk = 2 * s;
  for (let p = 0; p < m; p++) {
    const ib = xo + 2 * s * p;
    const ob = yo + 16 * s * p;
    const w = 14 * p;
    for (let q = 0; q < s; q++) {
      const i0 = ib + 2 * q;
      const i1 = i0 + dj,
        i2 = i1 + dj,
        i3 = i2 + dj,
        i4 = i3 + dj,
        i5 = i4 + dj,
        i6 = i5 + dj,
        i7 = i6 + dj;
      const x0r = x[i0],
        x0i = x[i0 + 1],
        x4r = x[i4],
        x4i = x[i4 + 1];
      const a0r = x0r + x4r,
        a0i = x0i + x4i,
        b0r = x0r - x4r,
        b0i = x0i - x4i;
      const x1r = x[i1],
        x1i = x[i1 + 1],
        x5r = x[i5],
        x5i = x[i5 + 1];
      const a1r = x1r + x5r,
        a1i = x1i + x5i;
      let b1r = x1r - x5r,
        b1i = x1i - x5i;
      const x2r = x[i2],
        x2i = x[i2 + 1],
        x6r = x[i6],
        x6i = x[i6 + 1];
      const a2r = x2r + x6r,
        a2i = x2i + x6i;
      // b2·(−j)
      const b2r = x2i - x6i,
        b2i = x6r - x2r;
      const x3r = x[i3],
        x3i = x[i3 + 1],
        x7r = x[i7],
        x7i = x[i7 + 1];
      const a3r = x3r + x7r,
        a3i = x3i + x7i;
      let b3r = x3r - x7r,
        b3i = x3i - x7i;
      // b1·e^(−jπ/4), b3·e^(−j3π/4)
      let t = b1r;
      b1r = R2 * (t + b1i);
      b1i = R2 * (b1i - t);
      t = b3r;
      b3r = R2 * (b3i - t);
      b3i = -R2 * (t + b3i);
      // Radix 4 on a → X0, X2, X4, X6
      const e0r = a0r + a2r,
        e0i = a0i + a2i,
        e1r = a0r - a2r,
        e1i = a0i - a2i;
      const e2r = a1r + a3r,
        e2i = a1i + a3i,
        e3r = a1i - a3i,
        e3i = a3r - a1r;
      // Radix 4 on b → X1, X3, X5, X7
      const f0r = b0r + b2r,
        f0i = b0i + b2i,
        f1r = b0r - b2r,
        f1i = b0i - b2i;
      const f2r = b1r + b3r,
        f2i = b1i + b3i,
        f3r = b1i - b3i,
        f3i = b3r - b1r;
      const o0 = ob + 2 * q;
      y[o0] = e0r + e2r;
      y[o0 + 1] = e0i + e2i;
      let ur = f0r + f2r,
        ui = f0i + f2i;
      let wr = tw[w],
        wi = tw[w + 1];
      y[o0 + dk] = ur * wr - ui * wi;
      y[o0 + dk + 1] = ur * wi + ui * wr;
      ur = e1r + e3r;
      ui = e1i + e3i;
      wr = tw[w + 2];
      wi = tw[w + 3];
      y[o0 + 2 * dk] = ur * wr - ui * wi;
      y[o0 + 2 * dk + 1] = ur * wi + ui * wr;
      ur = f1r + f3r;
      ui = f1i + f3i;
      wr = tw[w + 4];
      wi = tw[w + 5];
      y[o0 + 3 * dk] = ur * wr - ui * wi;
      y[o0 + 3 * dk + 1] = ur * wi + ui * wr;
      ur = e0r - e2r;
      ui = e0i - e2i;
      wr = tw[w + 6];
      wi = tw[w + 7];
      y[o0 + 4 * dk] = ur * wr - ui * wi;
      y[o0 + 4 * dk + 1] = ur * wi + ui * wr;
      ur = f0r - f2r;
      ui = f0i - f2i;
      wr = tw[w + 8];
      wi = tw[w + 9];
      y[o0 + 5 * dk] = ur * wr - ui * wi;
      y[o0 + 5 * dk + 1] = ur * wi + ui * wr;
      ur = e1r - e3r;
      ui = e1i - e3i;
      wr = tw[w + 10];
      wi = tw[w + 11];
      y[o0 + 6 * dk] = ur * wr - ui * wi;
      y[o0 + 6 * dk + 1] = ur * wi + ui * wr;
      ur = f1r - f3r;
      ui = f1i - f3i;
      wr = tw[w + 12];
      wi = tw[w + 13];
      y[o0 + 7 * dk] = ur * wr - ui * wi;
      y[o0 + 7 * dk + 1] = ur * wi + ui * wr;
    }
  }
}

/** The last stage of a plan (len = 8): no twiddles. */
function radix8NoTwiddle(st: Stage, x: Arr, xo: number, y: Float64Array, yo: number): void {
  const R2 = SQRT1_2;
  const s = st.stride;
  const m = st.len >> 3;
  const dj = 2 * s * m;
  const dk = 2 * s;
  for (let p = 0; p < m; p++) {
    const ib = xo + 2 * s * p;
    const ob = yo + 16 * s * p;
    for (let q = 0; q < s; q++) {
      const i0 = ib + 2 * q;
      const i1 = i0 + dj,
        i2 = i1 + dj,
        i3 = i2 + dj,
        i4 = i3 + dj,
        i5 = i4 + dj,
        i6 = i5 + dj,
        i7 = i6 + dj;
      const x0r = x[i0],
        x0i = x[i0 + 1],
        x4r = x[i4],
        x4i = x[i4 + 1];
      const a0r = x0r + x4r,
        a0i = x0i + x4i,
        b0r = x0r - x4r,
        b0i = x0i - x4i;
      const x1r = x[i1],
        x1i = x[i1 + 1],
        x5r = x[i5],
        x5i = x[i5 + 1];
      const a1r = x1r + x5r,
        a1i = x1i + x5i;
      let b1r = x1r - x5r,
        b1i = x1i - x5i;
      const x2r = x[i2],
        x2i = x[i2 + 1],
        x6r = x[i6],
        x6i = x[i6 + 1];
      const a2r = x2r + x6r,
        a2i = x2i + x6i;
      // b2·(−j)
      const b2r = x2i - x6i,
        b2i = x6r - x2r;
      const x3r = x[i3],
        x3i = x[i3 + 1],
        x7r = x[i7],
        x7i = x[i7 + 1];
      const a3r = x3r + x7r,
        a3i = x3i + x7i;
      let b3r = x3r - x7r,
        b3i = x3i - x7i;
      // b1·e^(−jπ/4), b3·e^(−j3π/4)
      let t = b1r;
      b1r = R2 * (t + b1i);
      b1i = R2 * (b1i - t);
      t = b3r;
      b3r = R2 * (b3i - t);
      b3i = -R2 * (t + b3i);
      // Radix 4 on a → X0, X2, X4, X6
      const e0r = a0r + a2r,
        e0i = a0i + a2i,
        e1r = a0r - a2r,
        e1i = a0i - a2i;
      const e2r = a1r + a3r,
        e2i = a1i + a3i,
        e3r = a1i - a3i,
        e3i = a3r - a1r;
      // Radix 4 on b → X1, X3, X5, X7
      const f0r = b0r + b2r,
        f0i = b0i + b2i,
        f1r = b0r - b2r,
        f1i = b0i - b2i;
      const f2r = b1r + b3r,
        f2i = b1i + b3i,
        f3r = b1i - b3i,
        f3i = b3r - b1r;
      const o0 = ob + 2 * q;
      y[o0] = e0r + e2r;
      y[o0 + 1] = e0i + e2i;
      y[o0 + dk] = f0r + f2r;
      y[o0 + dk + 1] = f0i + f2i;
      y[o0 + 2 * dk] = e1r + e3r;
      y[o0 + 2 * dk + 1] = e1i + e3i;
      y[o0 + 3 * dk] = f1r + f3r;
      y[o0 + 3 * dk + 1] = f1i + f3i;
      y[o0 + 4 * dk] = e0r - e2r;
      y[o0 + 4 * dk + 1] = e0i - e2i;
      y[o0 + 5 * dk] = f0r - f2r;
      y[o0 + 5 * dk + 1] = f0i - f2i;
      y[o0 + 6 * dk] = e1r - e3r;
      y[o0 + 6 * dk + 1] = e1i - e3i;
      y[o0 + 7 * dk] = f1r - f3r;
      y[o0 + 7 * dk + 1] = f1i - f3i;
    }
  }
}
