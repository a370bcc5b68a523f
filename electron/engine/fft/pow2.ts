// Power-of-two complex FFT (n ≥ 16): in-place radix-4 decimation in time, with one JavaScript function
// generated per size.
//
// Algorithm. A leaf pass gathers the input in bit-reversed order and does the first butterflies (radix 4
// when log2 n is even, radix 8 when odd), writing contiguous blocks; radix-4 passes of growing length then
// combine the quarters of each block in place. An in-place butterfly reads and writes the same four places,
// so V8 computes each index once for the load and the store (a Stockham stage, which reads one place and
// writes another, pays twice). Passes of length ≤ CHUNK run chunk by chunk while the chunk sits in L1;
// longer passes sweep the whole array. The last pass writes the caller's output (float64 or float32, any
// offset), and for the inverse also conjugates and scales: ifft(x) = conj(fft(conj(x))) / n.
//
// Why generated code: in V8 the cost of these loops is mostly index arithmetic, overflow checks and bounds
// checks, not floating point. In a function where every length, stride and loop bound is a literal,
// TurboFan folds the index arithmetic and drops most overflow checks: the same kernels with those values
// as arguments measured ≈ 20% slower on average. Each plan therefore builds its kernels with
// `new Function` from the templates below (numbers only, no caller data reaches the source), once per
// (input type, output type, direction) actually used, so every kernel stays monomorphic. Where code
// generation is refused (e.g. --disallow-code-generation-from-strings), Pow2Kernels.create() returns null
// and the plan falls back to the generic Stockham kernels.
//
// Accuracy: float64 throughout; twiddles from Math.cos/sin of exactly reduced angles. Float32 output is the
// correctly rounded float32 of that float64 result.

/** A generated transform: n complex values from x[xo…] to out[oo…] (offsets in array elements). */
export type Pow2Kernel = (
  x: Float64Array | Float32Array,
  xo: number,
  out: Float64Array | Float32Array,
  oo: number,
) => void;

/** Complex values per chunk for the cache-blocked passes: 2048 × 16 bytes = 32 KiB, one L1 data cache. */
const CHUNK = 2048;

/**
 * Up to this size the work array and tables are plain JavaScript arrays (packed doubles), above it typed
 * arrays. Both are equally fast in a fresh process, but once any ArrayBuffer in the thread has been
 * detached (a transfer through postMessage or structuredClone, a WebAssembly memory growing, a web stream
 * handing over its buffer) V8 adds a detach check to every typed-array access for the rest of the process,
 * which costs these kernels ≈ 25%; plain arrays are immune. Above this size they would put large objects
 * on the JavaScript heap (and past 2^27 doubles exceed V8's array limit).
 */
const PLAIN_ARRAYS_MAX = 1 << 16;

/** Smallest size handled here; smaller sizes use the Stockham kernels. */
export const POW2_MIN = 16;

function bitReverse(v: number, bits: number): number {
  let r = 0;
  for (let i = 0; i < bits; i++) {
    r = (r << 1) | (v & 1);
    v >>>= 1;
  }
  return r;
}

/** Twiddles of a radix-4 DIT pass of length len: w^i, w^2i, w^3i (w = e^(−2πi/len)) for i < len/4, as 6 values per i. */
function passTwiddles(len: number): Float64Array {
  const q = len / 4;
  const tw = new Float64Array(6 * q);
  for (let i = 0; i < q; i++) {
    for (let k = 1; k <= 3; k++) {
      // Reduce i·k modulo len first so the angle stays in [0, 2π): cos/sin accurate to an ulp.
      const angle = (-2 * Math.PI * ((i * k) % len)) / len;
      tw[6 * i + 2 * (k - 1)] = Math.cos(angle);
      tw[6 * i + 2 * (k - 1) + 1] = Math.sin(angle);
    }
  }
  return tw;
}

/**
 * A plain array holding the same values, with V8's packed-double element kind (filled by push, never holey,
 * so loads need no hole check).
 */
function packedDoubles(a: Float64Array): number[] {
  const r: number[] = [];
  // A non-integer first keeps the kind double from the start (integer pushes would start it as small ints).
  r.push(0.5);
  for (let i = 0; i < a.length; i++) r.push(a[i]);
  r.shift();
  return r;
}

// ------------------------------------------------------------------------------------------------
// Code templates. Names: x/xo input, z the plan's work array (a local constant, see compile()), rv and
// tw0… the tables, out/oo the output. Lengths are in array elements (2 per complex value).

const SQRT1_2 = String(Math.SQRT1_2);

/** Leaf radix 4: block b = DFT4 of x[r + j·n/4], r = bitrev(b), written to z[8b…]. */
function leaf4(d: number, b0: string, b1: string, neg: string): string {
  return `for (let b = ${b0}; b < ${b1}; b++) {
  const i0 = xo + rv[b], o0 = 8 * b;
  const ar = x[i0], ai = ${neg}x[i0 + 1], br = x[i0 + ${d}], bi = ${neg}x[i0 + ${d + 1}];
  const cr = x[i0 + ${2 * d}], ci = ${neg}x[i0 + ${2 * d + 1}], dr = x[i0 + ${3 * d}], di = ${neg}x[i0 + ${3 * d + 1}];
  const t0r = ar + cr, t0i = ai + ci, t1r = ar - cr, t1i = ai - ci;
  const t2r = br + dr, t2i = bi + di, t3r = bi - di, t3i = dr - br;
  z[o0] = t0r + t2r; z[o0 + 1] = t0i + t2i; z[o0 + 2] = t1r + t3r; z[o0 + 3] = t1i + t3i;
  z[o0 + 4] = t0r - t2r; z[o0 + 5] = t0i - t2i; z[o0 + 6] = t1r - t3r; z[o0 + 7] = t1i - t3i;
}
`;
}

/** Leaf radix 8: a radix-2 layer, the ±45° rotations, two radix-4 butterflies; written to z[16b…]. */
function leaf8(d: number, b0: string, b1: string, neg: string): string {
  const re = (j: number) => (j === 0 ? 'x[i0]' : `x[i0 + ${j * d}]`);
  const im = (j: number) => `${neg}x[i0 + ${j * d + 1}]`;
  return `for (let b = ${b0}; b < ${b1}; b++) {
  const i0 = xo + rv[b], o0 = 16 * b;
  const x0r = ${re(0)}, x0i = ${im(0)}, x4r = ${re(4)}, x4i = ${im(4)};
  const a0r = x0r + x4r, a0i = x0i + x4i, b0r = x0r - x4r, b0i = x0i - x4i;
  const x1r = ${re(1)}, x1i = ${im(1)}, x5r = ${re(5)}, x5i = ${im(5)};
  const a1r = x1r + x5r, a1i = x1i + x5i, c1r = x1r - x5r, c1i = x1i - x5i;
  const x2r = ${re(2)}, x2i = ${im(2)}, x6r = ${re(6)}, x6i = ${im(6)};
  const a2r = x2r + x6r, a2i = x2i + x6i, b2r = x2i - x6i, b2i = x6r - x2r;
  const x3r = ${re(3)}, x3i = ${im(3)}, x7r = ${re(7)}, x7i = ${im(7)};
  const a3r = x3r + x7r, a3i = x3i + x7i, c3r = x3r - x7r, c3i = x3i - x7i;
  const b1r = ${SQRT1_2} * (c1r + c1i), b1i = ${SQRT1_2} * (c1i - c1r);
  const b3r = ${SQRT1_2} * (c3i - c3r), b3i = -${SQRT1_2} * (c3r + c3i);
  const e0r = a0r + a2r, e0i = a0i + a2i, e1r = a0r - a2r, e1i = a0i - a2i;
  const e2r = a1r + a3r, e2i = a1i + a3i, e3r = a1i - a3i, e3i = a3r - a1r;
  const f0r = b0r + b2r, f0i = b0i + b2i, f1r = b0r - b2r, f1i = b0i - b2i;
  const f2r = b1r + b3r, f2i = b1i + b3i, f3r = b1i - b3i, f3i = b3r - b1r;
  z[o0] = e0r + e2r; z[o0 + 1] = e0i + e2i; z[o0 + 2] = f0r + f2r; z[o0 + 3] = f0i + f2i;
  z[o0 + 4] = e1r + e3r; z[o0 + 5] = e1i + e3i; z[o0 + 6] = f1r + f3r; z[o0 + 7] = f1i + f3i;
  z[o0 + 8] = e0r - e2r; z[o0 + 9] = e0i - e2i; z[o0 + 10] = f0r - f2r; z[o0 + 11] = f0i - f2i;
  z[o0 + 12] = e1r - e3r; z[o0 + 13] = e1i - e3i; z[o0 + 14] = f1r - f3r; z[o0 + 15] = f1i - f3i;
}
`;
}

const loadTwiddles = (t: string) =>
  `const w1r = ${t}[w], w1i = ${t}[w + 1], w2r = ${t}[w + 2], w2i = ${t}[w + 3], w3r = ${t}[w + 4], w3i = ${t}[w + 5];`;

/**
 * One radix-4 DIT butterfly on z[ia], z[ib], z[ic], z[id]. With radix-2 bit-reversed order the second
 * quarter holds the odd-even residue (twiddle w^2i), the third the residue 1 (w^i), the fourth 3 (w^3i).
 * `store(k, re, im)` writes output quarter k.
 */
function butterfly(store: (k: number, re: string, im: string) => string): string {
  return `const ar = z[ia], ai = z[ia + 1];
    const xr = z[ib], xi = z[ib + 1];
    const cr = xr * w2r - xi * w2i, ci = xr * w2i + xi * w2r;
    const yr = z[ic], yi = z[ic + 1];
    const br = yr * w1r - yi * w1i, bi = yr * w1i + yi * w1r;
    const ur = z[id], ui = z[id + 1];
    const dr = ur * w3r - ui * w3i, di = ur * w3i + ui * w3r;
    const t0r = ar + cr, t0i = ai + ci, t1r = ar - cr, t1i = ai - ci;
    const t2r = br + dr, t2i = bi + di, t3r = bi - di, t3i = dr - br;
    ${store(0, 't0r + t2r', 't0i + t2i')}
    ${store(1, 't1r + t3r', 't1i + t3i')}
    ${store(2, 't0r - t2r', 't0i - t2i')}
    ${store(3, 't1r - t3r', 't1i - t3i')}`;
}

const inPlace = (k: number, re: string, im: string) => {
  const p = ['ia', 'ib', 'ic', 'id'][k];
  return `z[${p}] = ${re}; z[${p} + 1] = ${im};`;
};

/** Pass of length len (elements) inside [base, end): twiddles hoisted, blocks innermost (the chunk is in L1). */
function passInChunk(len: number, base: string, end: string, t: string): string {
  const h = len >> 2;
  return `for (let i = 0, w = 0; i < ${h}; i += 2, w += 6) {
  ${loadTwiddles(t)}
  for (let ia = ${base} + i; ia < ${end}; ia += ${len}) {
    const ib = ia + ${h}, ic = ia + ${2 * h}, id = ia + ${3 * h};
    ${butterfly(inPlace)}
  }
}
`;
}

/** Pass of length len over the whole array: blocks outermost, so each block streams through the cache once. */
function passWhole(len: number, n2: number, t: string): string {
  const h = len >> 2;
  return `for (let blk = 0; blk < ${n2}; blk += ${len}) {
  for (let i = 0, w = 0; i < ${h}; i += 2, w += 6) {
    const ia = blk + i, ib = ia + ${h}, ic = ia + ${2 * h}, id = ia + ${3 * h};
    ${loadTwiddles(t)}
    ${butterfly(inPlace)}
  }
}
`;
}

/** The last pass (len = n, one block): reads z, writes out[oo…], conjugated and scaled for the inverse. */
function finalPass(n2: number, t: string, scale: string | null): string {
  const h = n2 >> 2;
  const store = (k: number, re: string, im: string) => {
    const p = ['oa', 'ob', 'oc', 'od'][k];
    return scale === null
      ? `out[${p}] = ${re}; out[${p} + 1] = ${im};`
      : `out[${p}] = (${re}) * ${scale}; out[${p} + 1] = (${im}) * -${scale};`;
  };
  return `for (let i = 0, w = 0; i < ${h}; i += 2, w += 6) {
  const ia = i, ib = ia + ${h}, ic = ia + ${2 * h}, id = ia + ${3 * h};
  const oa = oo + i, ob = oa + ${h}, oc = oa + ${2 * h}, od = oa + ${3 * h};
  ${loadTwiddles(t)}
  ${butterfly(store)}
}
`;
}

// ------------------------------------------------------------------------------------------------

type PassFn = () => void;
type LeafFn = (x: Float64Array | Float32Array, xo: number) => void;
type FinalFn = (out: Float64Array | Float32Array, oo: number) => void;

/** Tables and generated kernels of one size. */
export class Pow2Kernels {
  readonly bytes: number;
  private readonly rv: Int32Array | number[];
  private readonly twiddles: Array<Float64Array | number[]>;
  /** Work array of every kernel of this plan (the passes run in place here). */
  private readonly z: Float64Array | number[];
  /** Pass lengths in complex values: 4·leaf, 16·leaf, … n. */
  private readonly lens: number[];
  /** Complex values per chunk: the longest pass ≤ CHUNK. Equal to n for small sizes (one function). */
  private readonly chunk: number;
  /** Indexed by inF32 | outF32 << 1 | inverse << 2. */
  private readonly kernels: Array<Pow2Kernel | undefined> = new Array<Pow2Kernel | undefined>(8).fill(
    undefined,
  );
  private passes: PassFn[] | null = null;
  private readonly leaves: Array<LeafFn | undefined> = [undefined, undefined, undefined, undefined];
  private readonly finals: Array<FinalFn | undefined> = [undefined, undefined, undefined, undefined];

  private constructor(
    readonly n: number,
    private readonly leafRadix: number,
  ) {
    const lg = Math.log2(n);
    const q = n / leafRadix;
    const rv = new Int32Array(q);
    const bits = lg - Math.log2(leafRadix);
    for (let b = 0; b < q; b++) rv[b] = 2 * bitReverse(b, bits);
    this.lens = [];
    for (let len = 4 * leafRadix; len <= n; len *= 4) this.lens.push(len);
    const twiddles = this.lens.map(passTwiddles);
    const inner = this.lens.filter((len) => len <= CHUNK);
    this.chunk = inner[inner.length - 1];
    const z = new Float64Array(2 * n);
    this.bytes = rv.byteLength + z.byteLength + twiddles.reduce((s, t) => s + t.byteLength, 0);
    const plain = n <= PLAIN_ARRAYS_MAX;
    this.rv = plain ? Array.from(rv) : rv;
    this.twiddles = plain ? twiddles.map(packedDoubles) : twiddles;
    this.z = plain ? packedDoubles(z) : z;
    // Probe once that code generation is allowed (throws EvalError otherwise).
    this.kernel(false, false, false);
  }

  /** The kernels for size n (a power of two ≥ POW2_MIN), or null where code generation is not allowed. */
  static create(n: number): Pow2Kernels | null {
    const lg = Math.round(Math.log2(n));
    if (n < POW2_MIN || 2 ** lg !== n) return null;
    try {
      return new Pow2Kernels(n, lg % 2 === 0 ? 4 : 8);
    } catch (e) {
      if (e instanceof EvalError) return null;
      throw e;
    }
  }

  /**
   * The kernel for this combination. Float32 and float64 arrays get separate compiled functions so that
   * each one's type feedback stays single (V8 slows down code that has seen both).
   */
  kernel(inF32: boolean, outF32: boolean, inverse: boolean): Pow2Kernel {
    const key = (inF32 ? 1 : 0) | (outF32 ? 2 : 0) | (inverse ? 4 : 0);
    return (this.kernels[key] ??= this.build(inF32, outF32, inverse));
  }

  /**
   * Compiles `body` as a function of `params` over the plan's tables. The tables come in through the
   * factory's parameters and are copied into local constants first: read straight from the closure, V8
   * reloads them (and each array's data pointer and length) around every store, ≈ 15% slower.
   */
  private compile<F>(name: string, params: string, body: string): F {
    const names = ['rv', 'z', ...this.twiddles.map((_, i) => `tw${i}`)];
    const locals = names.map((v) => `${v} = $${v}`).join(', ');
    // Offsets computed as doubles by a caller (2 ** k, a product) would make all index arithmetic floating
    // point; `| 0` makes them small integers (the plan keeps every index below 2^31).
    const ints = ['xo', 'oo']
      .filter((v) => params.split(', ').includes(v))
      .map((v) => `${v} |= 0;\n`)
      .join('');
    const factory = new Function(
      ...names.map((v) => `$${v}`),
      `'use strict';\nreturn function ${name}(${params}) {\n${ints}const ${locals};\n${body}};`,
    );
    return factory(this.rv, this.z, ...this.twiddles) as F;
  }

  private build(inF32: boolean, outF32: boolean, inverse: boolean): Pow2Kernel {
    const n = this.n;
    const n2 = 2 * n;
    const lens = this.lens;
    const last = lens.length - 1; // the final pass (len = n)
    const scale = inverse ? String(1 / n) : null;
    const neg = inverse ? '-' : '';
    const leaf = this.leafRadix === 4 ? leaf4 : leaf8;
    const d = (2 * n) / this.leafRadix;
    if (this.chunk === n) {
      // Small sizes: one function, everything in L1.
      let body = leaf(d, '0', String(n / this.leafRadix), neg);
      for (let p = 0; p < last; p++) body += passInChunk(2 * lens[p], '0', String(n2), `tw${p}`);
      body += finalPass(n2, `tw${last}`, scale);
      return this.compile<Pow2Kernel>(`fft${n}`, 'x, xo, out, oo', body);
    }
    // Large sizes: the chunked phase (leaf and in-chunk passes, chunk loop inside, all bounds literal), each
    // longer pass and the final pass are separate functions. One function for everything is as fast once
    // stable, but V8 compiles it while its first loop runs (on-stack replacement) and then deoptimizes it at
    // each later loop that had no type feedback yet: about 20 deopts at 65536 before it settles.
    const step = 2 * this.chunk;
    let chunked = `for (let c = 0; c < ${n2}; c += ${step}) {\nconst b0 = c / ${2 * this.leafRadix};\n`;
    chunked += leaf(d, 'b0', `b0 + ${this.chunk / this.leafRadix}`, neg);
    for (let p = 0; lens[p] <= this.chunk; p++)
      chunked += passInChunk(2 * lens[p], 'c', `c + ${step}`, `tw${p}`);
    chunked += '}\n';
    const li = (inF32 ? 1 : 0) | (inverse ? 2 : 0);
    const lf = (this.leaves[li] ??= this.compile<LeafFn>(`chunks${n}`, 'x, xo', chunked));
    const fi = (outF32 ? 1 : 0) | (inverse ? 2 : 0);
    const ff = (this.finals[fi] ??= this.compile<FinalFn>(
      `final${n}`,
      'out, oo',
      finalPass(n2, `tw${last}`, scale),
    ));
    const whole = this.wholePasses();
    return (x, xo, out, oo) => {
      lf(x, xo);
      for (let p = 0; p < whole.length; p++) whole[p]();
      ff(out, oo);
    };
  }

  /** The passes longer than a chunk, but the final one. */
  private wholePasses(): PassFn[] {
    if (this.passes !== null) return this.passes;
    this.passes = [];
    for (let p = 0; p < this.lens.length - 1; p++) {
      const len = this.lens[p];
      if (len > this.chunk) {
        this.passes.push(this.compile<PassFn>(`pass${len}`, '', passWhole(2 * len, 2 * this.n, `tw${p}`)));
      }
    }
    return this.passes;
  }
}
