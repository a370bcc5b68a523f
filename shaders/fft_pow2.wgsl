// Batched power-of-two complex FFT, Stockham auto-sort, results in natural order.
//
// A transform of L points is done by L/E threads that hold E = min(8, L) points each in registers: a
// first stage of radix FIRST (2, 4 or 8; the thread does E/FIRST of its butterflies), then STAGES
// radix-8 stages. Every register is named by a constant index (no loop indexes them), so the driver keeps
// them in registers; the twiddles W^r of a radix-8 stage are three table loads (r = 1, 2, 4) and four
// products. Points move between threads through workgroup memory between stages only: the first
// stage's inputs come straight from the source and the last stage's outputs go straight to the
// destination, each thread's loads and stores E coalesced rows apart.
//
// A workgroup transforms COLS sequences at once. Sequence t, element i is read at
//   inBase + (t / period)·block + (t % period)·inA + i·inB
// and written at the same formula with the out* strides, so one kernel serves contiguous batches and
// both passes of a four-step plan (strided columns, transposed stores). Threads are laid out with
// adjacent threads on adjacent elements of one sequence, or, when both the loads and the stores are
// column-fast (strided columns), on adjacent sequences; a side laid out the other way goes through
// workgroup memory. With OUTER, each output is multiplied by the four-step twiddle W_N^((t % period)·i)
// before the store. Twiddles come from float64-computed tables.
//
// Rounds (ROUNDS > 1, entry `main` only, one sequence a workgroup, direct loads and stores): a size whose
// points do not all fit workgroup memory at once (8192 points = 64 KiB against 48 KiB) still runs in one
// pass, its points in registers (L/8 threads, 8 each), so global memory is read once and written once
// (a four-step reads and writes every point twice). Each exchange between stages then goes through
// workgroup memory in ROUNDS rounds of SPAN = L/ROUNDS points: round q moves the points of positions
// [q·SPAN, (q+1)·SPAN): every thread writes those of its outputs that land there, barrier, every thread
// reads those of its inputs that lie there (registers k of [q·8/ROUNDS, (q+1)·8/ROUNDS)), barrier. Two
// barriers a round instead of two an exchange; the arithmetic and twiddles are the one-round kernel's.
//
// Entry point `main16` (its section below) is the same transform of contiguous sequences with 16 points
// a thread and radix-16 stages: a planner option, one exchange fewer for 2048 and 4096 points.
//
// The lines marked //! are replaced by the planner (electron/engine/backends/webgpu/shaders.ts): one
// source, one pipeline per size and direction. The values below make the file valid WGSL on its own.

const L: u32 = 1024u; //! points of one transform
const LOG2L: u32 = 10u; //! log2(L)
const COLS: u32 = 1u; //! transforms per workgroup
const E: u32 = 8u; //! points a thread holds: min(8, L)
const FIRST: u32 = 2u; //! radix of the first stage: L = FIRST · 8^STAGES
const STAGES: u32 = 3u; //! radix-8 stages after the first
const PITCH: u32 = 1024u; //! workgroup-memory words of one sequence (L, or more against bank conflicts)
const SIGN: f32 = -1.0; //! exponent sign: −1 forward, +1 inverse
const OUTER: bool = false; //! multiply by the four-step twiddles before the store
const LOAD_COLS_FAST: bool = false; //! adjacent sequences are adjacent in the source (strided columns)
const STORE_COLS_FAST: bool = false; //! adjacent sequences are adjacent in the destination (transposed)
const ROUNDS: u32 = 1u; //! rounds of an exchange through workgroup memory: 1, or 2, 4, 8 (see above)
const HOIST: bool = true; //! a stage's twiddles loaded before the barrier that precedes it (see twiddles8)

const TL: u32 = L / E; // threads of one transform
const T: u32 = COLS * TL; // threads of the workgroup
const REG_COLS_FAST: bool = LOAD_COLS_FAST && STORE_COLS_FAST;
const SQRT_HALF: f32 = 0.70710678118654752;
const SPAN: u32 = L / ROUNDS; // points one round of an exchange holds
const KR: u32 = 8u / ROUNDS; // registers a thread reads a round

alias C8 = array<vec2<f32>, 8>;
alias C4 = array<vec2<f32>, 4>;
alias C3 = array<vec2<f32>, 3>;
alias U8 = array<u32, 8>;

struct Params {
  count: u32, // transforms in this dispatch
  period: u32,
  block: u32,
  groupsX: u32, // workgroups along x of the dispatch
  inBase: u32,
  inA: u32,
  inB: u32,
  outBase: u32,
  outA: u32,
  outB: u32,
  outerShift: u32, // W_N^m = fine[m & outerMask] · coarse[m >> outerShift]
  outerMask: u32,
  scale: f32,
}

@group(0) @binding(0) var<storage, read> src: array<vec2<f32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec2<f32>>;
// (cos, sin)(2π·m/L) for m < L
@group(0) @binding(2) var<storage, read> tw: array<vec2<f32>>;
// (cos, sin)(2π·m/N) for m ≤ outerMask, then (cos, sin)(2π·(m << outerShift)/N)
@group(0) @binding(3) var<storage, read> outer: array<vec2<f32>>;
@group(0) @binding(4) var<uniform> p: Params;

var<workgroup> buf: array<vec2<f32>, COLS * PITCH / ROUNDS>;

fn cmul(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
  return vec2<f32>(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

// v · e^(SIGN·iπ/2)
fn rot(v: vec2<f32>) -> vec2<f32> {
  return vec2<f32>(-SIGN * v.y, SIGN * v.x);
}

// v · e^(SIGN·iπ/4)
fn w8(v: vec2<f32>) -> vec2<f32> {
  return SQRT_HALF * (v + rot(v));
}

// W_L^m in the transform's direction
fn twiddle(m: u32) -> vec2<f32> {
  let c = tw[m];
  return vec2<f32>(c.x, SIGN * c.y);
}

fn outerTwiddle(m: u32) -> vec2<f32> {
  let c = cmul(outer[m & p.outerMask], outer[p.outerMask + 1u + (m >> p.outerShift)]);
  return vec2<f32>(c.x, SIGN * c.y);
}

// Where sequence t starts in a buffer laid out with strides (block, a) and element stride b.
fn origin(t: u32, base: u32, a: u32) -> u32 {
  return base + (t / p.period) * p.block + (t % p.period) * a;
}

// The DFT of 8 points, outputs in natural order.
fn dft8(a: C8) -> C8 {
  // two radix-4 butterflies (even and odd inputs), then a radix-2 step with W_8^k
  let e0 = a[0] + a[4];
  let e1 = a[0] - a[4];
  let e2 = a[2] + a[6];
  let e3 = rot(a[2] - a[6]);
  let o0 = a[1] + a[5];
  let o1 = a[1] - a[5];
  let o2 = a[3] + a[7];
  let o3 = rot(a[3] - a[7]);
  let E0 = e0 + e2;
  let E2 = e0 - e2;
  let E1 = e1 + e3;
  let E3 = e1 - e3;
  let O0 = o0 + o2;
  let O2 = rot(o0 - o2);
  let O1 = w8(o1 + o3);
  let O3 = rot(w8(o1 - o3));
  return C8(E0 + O0, E1 + O1, E2 + O2, E3 + O3, E0 - O0, E1 - O1, E2 - O2, E3 - O3);
}

// Four DFTs of 2 points over registers (b, b + 4); outputs in the same registers.
fn dft2x4(a: C8) -> C8 {
  return C8(a[0] + a[4], a[1] + a[5], a[2] + a[6], a[3] + a[7], a[0] - a[4], a[1] - a[5], a[2] - a[6], a[3] - a[7]);
}

// Two DFTs of 4 points over registers (b, b + 2, b + 4, b + 6); outputs in the same registers.
fn dft4x2(a: C8) -> C8 {
  let t0 = a[0] + a[4];
  let t1 = a[0] - a[4];
  let t2 = a[2] + a[6];
  let t3 = rot(a[2] - a[6]);
  let u0 = a[1] + a[5];
  let u1 = a[1] - a[5];
  let u2 = a[3] + a[7];
  let u3 = rot(a[3] - a[7]);
  return C8(t0 + t2, u0 + u2, t1 + t3, u1 + u3, t0 - t2, u0 - u2, t1 - t3, u1 - u3);
}

// The first stage on a thread's 8 registers (butterfly b takes registers b + r·8/FIRST).
fn firstStage(a: C8) -> C8 {
  if (FIRST == 8u) {
    return dft8(a);
  } else if (FIRST == 4u) {
    return dft4x2(a);
  }
  return dft2x4(a);
}

// Where register k's first-stage output goes: butterfly j = tid + (k % B0)·TL, output r = k / B0, at
// j·FIRST + r.
fn firstPlace(tid: u32, k: u32) -> u32 {
  const B0 = 8u / FIRST;
  return (tid + (k % B0) * TL) * FIRST + k / B0;
}

// Workgroup memory at base + k·stride, k < 8.
fn get8(base: u32, stride: u32) -> C8 {
  return C8(buf[base], buf[base + stride], buf[base + 2u * stride], buf[base + 3u * stride],
    buf[base + 4u * stride], buf[base + 5u * stride], buf[base + 6u * stride], buf[base + 7u * stride]);
}

fn put8(base: u32, stride: u32, a: C8) {
  buf[base] = a[0];
  buf[base + stride] = a[1];
  buf[base + 2u * stride] = a[2];
  buf[base + 3u * stride] = a[3];
  buf[base + 4u * stride] = a[4];
  buf[base + 5u * stride] = a[5];
  buf[base + 6u * stride] = a[6];
  buf[base + 7u * stride] = a[7];
}

// Source elements o + (tid + k·TL)·inB, k < 8.
fn load8(o: u32, tid: u32) -> C8 {
  return load8at(o + tid * p.inB, TL * p.inB);
}

// Source elements b + k·s, k < 8.
fn load8at(b: u32, s: u32) -> C8 {
  return C8(src[b], src[b + s], src[b + 2u * s], src[b + 3u * s], src[b + 4u * s], src[b + 5u * s],
    src[b + 6u * s], src[b + 7u * s]);
}

// Stores register k as element i + k·step of the sequence at o, scaled.
fn putOut8(o: u32, i: u32, step: u32, x: C8) {
  put(o, i, x[0]);
  put(o, i + step, x[1]);
  put(o, i + 2u * step, x[2]);
  put(o, i + 3u * step, x[3]);
  put(o, i + 4u * step, x[4]);
  put(o, i + 5u * step, x[5]);
  put(o, i + 6u * step, x[6]);
  put(o, i + 7u * step, x[7]);
}

// Stores element i of sequence t (scaled, with the four-step twiddle when OUTER).
fn store(o: u32, t: u32, i: u32, x: vec2<f32>) {
  var v = x;
  if (OUTER) {
    v = cmul(v, outerTwiddle((t % p.period) * i));
  }
  put(o, i, v);
}

// Stores element i of the sequence at o, scaled.
fn put(o: u32, i: u32, x: vec2<f32>) {
  dst[o + i * p.outB] = x * p.scale;
}

// The four-step twiddles of a thread's outputs (elements tid + r·TL of column `col`): W_N^(col·tid) and
// W_N^(col·TL·r) for r = 1, 2, 4 from the tables (loaded before the stages, so their latency hides behind
// them), the other r as products in outer8 (eight loads, not sixteen).
fn outerLoad(col: u32, tid: u32) -> C4 {
  return C4(outerTwiddle(col * tid), outerTwiddle(col * TL), outerTwiddle(2u * col * TL),
    outerTwiddle(4u * col * TL));
}

fn outer8(x: C8, w: C4) -> C8 {
  let w0 = w[0];
  let s1 = w[1];
  let s2 = w[2];
  let s4 = w[3];
  let s3 = cmul(s1, s2);
  return C8(cmul(x[0], w0), cmul(x[1], cmul(w0, s1)), cmul(x[2], cmul(w0, s2)), cmul(x[3], cmul(w0, s3)),
    cmul(x[4], cmul(w0, s4)), cmul(x[5], cmul(w0, cmul(s4, s1))), cmul(x[6], cmul(w0, cmul(s4, s2))),
    cmul(x[7], cmul(w0, cmul(s4, s3))));
}

// The radix-8 stage's twiddles W_L^(r·step) for r = 1, 2, 4, where the stage over sub-transforms of 2^lns
// points gives butterfly tid the step (tid mod 2^lns)·L/2^(lns+3). With HOIST, `stages` loads a stage's
// twiddles before the barrier that precedes it, so the loads' latency hides behind the exchange (three more
// registers live across it: the planner leaves it off where that measured slower).
fn twiddles8(tid: u32, lns: u32) -> C3 {
  let step = (tid & ((1u << lns) - 1u)) << (LOG2L - lns - 3u);
  return C3(twiddle(step), twiddle(2u * step), twiddle(4u * step));
}

// Those twiddles applied, W^r for the other r as products of two of them.
fn twiddle8(a: C8, w: C3) -> C8 {
  let w1 = w[0];
  let w2 = w[1];
  let w4 = w[2];
  let w3 = cmul(w1, w2);
  return C8(a[0], cmul(a[1], w1), cmul(a[2], w2), cmul(a[3], w3), cmul(a[4], w4), cmul(a[5], cmul(w1, w4)),
    cmul(a[6], cmul(w2, w4)), cmul(a[7], cmul(w3, w4)));
}

// ROUNDS > 1: a thread's registers x[r] to positions at[r] of the sequence, and back the points at
// tid + k·TL, in rounds of SPAN points (see the top of the file). The caller has passed a barrier since
// workgroup memory was last read. A position below the round's start wraps to ≥ SPAN and is skipped.
fn inRounds(x: C8, at: U8, tid: u32) -> C8 {
  var y: C8;
  for (var q = 0u; q < ROUNDS; q++) {
    let lo = q * SPAN;
    if (q > 0u) {
      workgroupBarrier();
    }
    putIn(at[0] - lo, x[0]);
    putIn(at[1] - lo, x[1]);
    putIn(at[2] - lo, x[2]);
    putIn(at[3] - lo, x[3]);
    putIn(at[4] - lo, x[4]);
    putIn(at[5] - lo, x[5]);
    putIn(at[6] - lo, x[6]);
    putIn(at[7] - lo, x[7]);
    workgroupBarrier();
    y[0] = takeIn(y[0], 0u, q, tid);
    y[1] = takeIn(y[1], 1u, q, tid);
    y[2] = takeIn(y[2], 2u, q, tid);
    y[3] = takeIn(y[3], 3u, q, tid);
    y[4] = takeIn(y[4], 4u, q, tid);
    y[5] = takeIn(y[5], 5u, q, tid);
    y[6] = takeIn(y[6], 6u, q, tid);
    y[7] = takeIn(y[7], 7u, q, tid);
  }
  return y;
}

// Stores v at index i of the round (its position less the round's start) when that lies in the round.
fn putIn(i: u32, v: vec2<f32>) {
  if (i < SPAN) {
    buf[i] = v;
  }
}

// Register k (position tid + k·TL) is read in round k / KR, at tid + (k % KR)·TL of it; else y stays.
fn takeIn(y: vec2<f32>, k: u32, q: u32, tid: u32) -> vec2<f32> {
  if (k / KR == q) {
    return buf[tid + (k % KR) * TL];
  }
  return y;
}

// Transforms of fewer than 8 points (E = L = FIRST, one thread each), registers in a loop.
fn small(lid: u32, first: u32) {
  let t = first + lid;
  if (t >= p.count) {
    return;
  }
  var x: array<vec2<f32>, 4>;
  let o = origin(t, p.inBase, p.inA);
  for (var k = 0u; k < E; k++) {
    x[k] = src[o + k * p.inB];
  }
  if (L == 4u) {
    let t0 = x[0] + x[2];
    let t1 = x[0] - x[2];
    let t2 = x[1] + x[3];
    let t3 = rot(x[1] - x[3]);
    x = array<vec2<f32>, 4>(t0 + t2, t1 + t3, t0 - t2, t1 - t3);
  } else if (L == 2u) {
    x = array<vec2<f32>, 4>(x[0] + x[1], x[0] - x[1], x[2], x[3]);
  }
  let out = origin(t, p.outBase, p.outA);
  for (var k = 0u; k < E; k++) {
    store(out, t, k, x[k]);
  }
}

// The first stage and the radix-8 stages on one sequence: register k holds element tid + k·TL before
// and after; `row` is the sequence's place in workgroup memory. Every thread of the workgroup calls it.
// With ROUNDS > 1 (row 0) each exchange goes through inRounds.
fn stages(xin: C8, row: u32, tid: u32) -> C8 {
  var lns = LOG2L - 3u * STAGES;
  var w: C3;
  if (STAGES > 0u && HOIST) {
    w = twiddles8(tid, lns);
  }
  var x = firstStage(xin);
  if (STAGES > 0u && ROUNDS > 1u) {
    x = inRounds(x, U8(firstPlace(tid, 0u), firstPlace(tid, 1u), firstPlace(tid, 2u), firstPlace(tid, 3u),
      firstPlace(tid, 4u), firstPlace(tid, 5u), firstPlace(tid, 6u), firstPlace(tid, 7u)), tid);
  } else if (STAGES > 0u) {
    buf[row + firstPlace(tid, 0u)] = x[0];
    buf[row + firstPlace(tid, 1u)] = x[1];
    buf[row + firstPlace(tid, 2u)] = x[2];
    buf[row + firstPlace(tid, 3u)] = x[3];
    buf[row + firstPlace(tid, 4u)] = x[4];
    buf[row + firstPlace(tid, 5u)] = x[5];
    buf[row + firstPlace(tid, 6u)] = x[6];
    buf[row + firstPlace(tid, 7u)] = x[7];
    workgroupBarrier();
    x = get8(row + tid, TL);
  }

  // Radix-8 stages over sub-transforms of ns = FIRST·8^s points (log2 lns): butterfly tid, k = tid % ns,
  // input r twiddled by W_(8·ns)^(r·k) = W_L^(r·step); outputs to (tid / ns)·8·ns + k + r·ns.
  for (var s = 0u; s < STAGES; s++) {
    let k = tid & ((1u << lns) - 1u);
    if (!HOIST) {
      w = twiddles8(tid, lns);
    }
    x = dft8(twiddle8(x, w));
    if (s + 1u < STAGES) {
      if (HOIST) {
        w = twiddles8(tid, lns + 3u);
      }
      workgroupBarrier();
      let o = row + ((tid >> lns) << (lns + 3u)) + k;
      let ns = 1u << lns;
      if (ROUNDS > 1u) {
        x = inRounds(x, U8(o, o + ns, o + 2u * ns, o + 3u * ns, o + 4u * ns, o + 5u * ns, o + 6u * ns,
          o + 7u * ns), tid);
      } else {
        put8(o, ns, x);
        workgroupBarrier();
        x = get8(row + tid, TL);
      }
    }
    lns += 3u;
  }
  return x;
}

@compute @workgroup_size(T)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
  let first = (wid.y * p.groupsX + wid.x) * COLS;
  if (E < 8u) {
    small(lid, first);
    return;
  }
  var c = lid / TL;
  var tid = lid % TL;
  if (REG_COLS_FAST) {
    c = lid % COLS;
    tid = lid / COLS;
  }
  let t = first + c;
  let row = c * PITCH;
  var x: C8;

  // Inputs: register k holds element tid + k·TL.
  if (LOAD_COLS_FAST == REG_COLS_FAST) {
    if (t < p.count) {
      x = load8(origin(t, p.inBase, p.inA), tid);
    }
  } else {
    for (var u = 0u; u < 8u; u++) {
      let e = lid + u * T;
      let lc = e % COLS;
      let li = e / COLS;
      if (first + lc < p.count) {
        buf[lc * PITCH + li] = src[origin(first + lc, p.inBase, p.inA) + li * p.inB];
      }
    }
    workgroupBarrier();
    x = get8(row + tid, TL);
    workgroupBarrier();
  }

  var ow: C4;
  if (OUTER && STORE_COLS_FAST == REG_COLS_FAST && t < p.count) {
    ow = outerLoad(t % p.period, tid);
  }
  x = stages(x, row, tid);

  // Outputs: register r holds element tid + r·TL.
  if (STORE_COLS_FAST == REG_COLS_FAST) {
    if (t < p.count) {
      let o = origin(t, p.outBase, p.outA);
      if (OUTER) {
        x = outer8(x, ow);
      }
      putOut8(o, tid, TL, x);
    }
  } else {
    workgroupBarrier();
    put8(row + tid, TL, x);
    workgroupBarrier();
    for (var u = 0u; u < 8u; u++) {
      let e = lid + u * T;
      let sc = e % COLS;
      let si = e / COLS;
      let ts = first + sc;
      if (ts < p.count) {
        store(origin(ts, p.outBase, p.outA), ts, si, buf[sc * PITCH + si]);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// The radix-16 variant, entry point `main16` (the planner's `radix16` option; contiguous batches only:
// no OUTER, no column-fast sides, no rounds). A transform of L points is done by L/16 threads that hold
// 16 points each: a first stage of radix FIRST16 (2, 4, 8 or 16; the thread does 16/FIRST16 of its
// butterflies), then STAGES16 radix-16 stages, so 4096 = 16·16·16 and 2048 = 8·16·16 take two exchanges
// through workgroup memory where `main` takes three. A radix-16 butterfly is two passes of four radix-4
// butterflies in registers with the internal twiddles W_16^(n2·k1) as constants; a stage's twiddles
// W^r, r = 1…15, are four table loads (r = 1, 2, 4, 8) and eleven products. With PAD16 > 0 workgroup
// index i is stored at i + (i >> PAD16): one word skipped every 2^PAD16 against bank conflicts of the
// stride-FIRST16 stores after the first stage (PITCH then includes the skipped words).

const FIRST16: u32 = 4u; //! main16: radix of the first stage: L = FIRST16 · 16^STAGES16
const STAGES16: u32 = 2u; //! main16: radix-16 stages after the first
const PAD16: u32 = 0u; //! main16: log2 of the words between skipped ones in workgroup memory; 0: none

const TL16: u32 = max(L / 16u, 1u); // threads of one transform
const T16: u32 = COLS * TL16; // threads of the workgroup
const B16: u32 = 16u / FIRST16; // first-stage butterflies a thread does
const COS_PI8: f32 = 0.92387953251128676;
const SIN_PI8: f32 = 0.38268343236508977;

alias C16 = array<vec2<f32>, 16>;
alias U16 = array<u32, 16>;

// v · W_16 and v · W_16^3, W_16 = e^(SIGN·iπ/8)
fn w16(v: vec2<f32>) -> vec2<f32> {
  return cmul(v, vec2<f32>(COS_PI8, SIGN * SIN_PI8));
}

fn w16x3(v: vec2<f32>) -> vec2<f32> {
  return cmul(v, vec2<f32>(SIN_PI8, SIGN * COS_PI8));
}

// The DFT of 4 points, outputs in natural order.
fn dft4(a0: vec2<f32>, a1: vec2<f32>, a2: vec2<f32>, a3: vec2<f32>) -> C4 {
  let t0 = a0 + a2;
  let t1 = a0 - a2;
  let t2 = a1 + a3;
  let t3 = rot(a1 - a3);
  return C4(t0 + t2, t1 + t3, t0 - t2, t1 - t3);
}

// The DFT of 16 points, outputs in natural order: y_n2 = DFT4 of inputs n2 + 4·n1, times W_16^(n2·k1),
// then the DFT4 over n2 of each k1 gives output k1 + 4·k2.
fn dft16(a: C16) -> C16 {
  let y0 = dft4(a[0], a[4], a[8], a[12]);
  let y1 = dft4(a[1], a[5], a[9], a[13]);
  let y2 = dft4(a[2], a[6], a[10], a[14]);
  let y3 = dft4(a[3], a[7], a[11], a[15]);
  let z0 = dft4(y0[0], y1[0], y2[0], y3[0]);
  let z1 = dft4(y0[1], w16(y1[1]), w8(y2[1]), w16x3(y3[1]));
  let z2 = dft4(y0[2], w8(y1[2]), rot(y2[2]), rot(w8(y3[2])));
  let z3 = dft4(y0[3], w16x3(y1[3]), rot(w8(y2[3])), -w16(y3[3]));
  return C16(z0[0], z1[0], z2[0], z3[0], z0[1], z1[1], z2[1], z3[1], z0[2], z1[2], z2[2], z3[2], z0[3], z1[3],
    z2[3], z3[3]);
}

// Registers b + r·8 and back (the two halves of a thread's 16).
fn lo8(a: C16) -> C8 {
  return C8(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
}

fn hi8(a: C16) -> C8 {
  return C8(a[8], a[9], a[10], a[11], a[12], a[13], a[14], a[15]);
}

fn join16(l: C8, h: C8) -> C16 {
  return C16(l[0], l[1], l[2], l[3], l[4], l[5], l[6], l[7], h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]);
}

// The first stage on a thread's 16 registers: butterfly b takes registers b + r·B16, its output r goes to
// the same register.
fn firstStage16(a: C16) -> C16 {
  if (FIRST16 == 16u) {
    return dft16(a);
  } else if (FIRST16 == 8u) {
    // registers b + 2r: the even ones and the odd ones, each a DFT of 8
    let e = dft8(C8(a[0], a[2], a[4], a[6], a[8], a[10], a[12], a[14]));
    let o = dft8(C8(a[1], a[3], a[5], a[7], a[9], a[11], a[13], a[15]));
    return C16(e[0], o[0], e[1], o[1], e[2], o[2], e[3], o[3], e[4], o[4], e[5], o[5], e[6], o[6], e[7], o[7]);
  } else if (FIRST16 == 4u) {
    // registers b + 4r, b < 4
    let u0 = dft4(a[0], a[4], a[8], a[12]);
    let u1 = dft4(a[1], a[5], a[9], a[13]);
    let u2 = dft4(a[2], a[6], a[10], a[14]);
    let u3 = dft4(a[3], a[7], a[11], a[15]);
    return C16(u0[0], u1[0], u2[0], u3[0], u0[1], u1[1], u2[1], u3[1], u0[2], u1[2], u2[2], u3[2], u0[3], u1[3],
      u2[3], u3[3]);
  }
  let l = lo8(a);
  let h = hi8(a);
  return join16(C8(l[0] + h[0], l[1] + h[1], l[2] + h[2], l[3] + h[3], l[4] + h[4], l[5] + h[5], l[6] + h[6],
    l[7] + h[7]), C8(l[0] - h[0], l[1] - h[1], l[2] - h[2], l[3] - h[3], l[4] - h[4], l[5] - h[5],
    l[6] - h[6], l[7] - h[7]));
}

// The radix-16 stage's twiddles W_L^(r·step) for r = 1, 2, 4, 8 (the stage over sub-transforms of 2^lns
// points: step = (tid mod 2^lns)·L/2^(lns+4)), loaded before the barrier that precedes the stage.
fn twiddles16(tid: u32, lns: u32) -> C4 {
  let step = (tid & ((1u << lns) - 1u)) << (LOG2L - lns - 4u);
  return C4(twiddle(step), twiddle(2u * step), twiddle(4u * step), twiddle(8u * step));
}

// Those twiddles applied, W^r for r = 1…15 as products of them.
fn twiddle16(a: C16, w: C4) -> C16 {
  let t1 = w[0];
  let t2 = w[1];
  let t4 = w[2];
  let t8 = w[3];
  let t3 = cmul(t1, t2);
  let t5 = cmul(t1, t4);
  let t6 = cmul(t2, t4);
  let t7 = cmul(t3, t4);
  return C16(a[0], cmul(a[1], t1), cmul(a[2], t2), cmul(a[3], t3), cmul(a[4], t4), cmul(a[5], t5),
    cmul(a[6], t6), cmul(a[7], t7), cmul(a[8], t8), cmul(a[9], cmul(t1, t8)), cmul(a[10], cmul(t2, t8)),
    cmul(a[11], cmul(t3, t8)), cmul(a[12], cmul(t4, t8)), cmul(a[13], cmul(t5, t8)),
    cmul(a[14], cmul(t6, t8)), cmul(a[15], cmul(t7, t8)));
}

// Workgroup index i of a row, with the skipped words of PAD16.
fn at16(row: u32, i: u32) -> u32 {
  if (PAD16 > 0u) {
    return row + i + (i >> PAD16);
  }
  return row + i;
}

// Registers to row indices base + r·stride, and row indices base + k·stride to registers (every
// register by a constant index, as in the rest of the file).
fn put16(row: u32, base: u32, stride: u32, a: C16) {
  put16at(row, U16(base, base + stride, base + 2u * stride, base + 3u * stride, base + 4u * stride,
    base + 5u * stride, base + 6u * stride, base + 7u * stride, base + 8u * stride, base + 9u * stride,
    base + 10u * stride, base + 11u * stride, base + 12u * stride, base + 13u * stride, base + 14u * stride,
    base + 15u * stride), a);
}

// Register r to row index i[r].
fn put16at(row: u32, i: U16, a: C16) {
  buf[at16(row, i[0])] = a[0];
  buf[at16(row, i[1])] = a[1];
  buf[at16(row, i[2])] = a[2];
  buf[at16(row, i[3])] = a[3];
  buf[at16(row, i[4])] = a[4];
  buf[at16(row, i[5])] = a[5];
  buf[at16(row, i[6])] = a[6];
  buf[at16(row, i[7])] = a[7];
  buf[at16(row, i[8])] = a[8];
  buf[at16(row, i[9])] = a[9];
  buf[at16(row, i[10])] = a[10];
  buf[at16(row, i[11])] = a[11];
  buf[at16(row, i[12])] = a[12];
  buf[at16(row, i[13])] = a[13];
  buf[at16(row, i[14])] = a[14];
  buf[at16(row, i[15])] = a[15];
}

fn get16(row: u32, base: u32, stride: u32) -> C16 {
  let b = row + base;
  if (PAD16 == 0u) {
    return C16(buf[b], buf[b + stride], buf[b + 2u * stride], buf[b + 3u * stride], buf[b + 4u * stride],
      buf[b + 5u * stride], buf[b + 6u * stride], buf[b + 7u * stride], buf[b + 8u * stride],
      buf[b + 9u * stride], buf[b + 10u * stride], buf[b + 11u * stride], buf[b + 12u * stride],
      buf[b + 13u * stride], buf[b + 14u * stride], buf[b + 15u * stride]);
  }
  return C16(buf[at16(row, base)], buf[at16(row, base + stride)], buf[at16(row, base + 2u * stride)],
    buf[at16(row, base + 3u * stride)], buf[at16(row, base + 4u * stride)], buf[at16(row, base + 5u * stride)],
    buf[at16(row, base + 6u * stride)], buf[at16(row, base + 7u * stride)], buf[at16(row, base + 8u * stride)],
    buf[at16(row, base + 9u * stride)], buf[at16(row, base + 10u * stride)],
    buf[at16(row, base + 11u * stride)], buf[at16(row, base + 12u * stride)],
    buf[at16(row, base + 13u * stride)], buf[at16(row, base + 14u * stride)],
    buf[at16(row, base + 15u * stride)]);
}

// First-stage butterfly j = tid + (k % B16)·TL16 (register k, output r = k / B16) goes to j·FIRST16 + r.
fn firstPlace16(tid: u32, k: u32) -> u32 {
  return (tid + (k % B16) * TL16) * FIRST16 + k / B16;
}

// The stages on one sequence: register k holds element tid + k·TL16 before and after. Every thread of
// the workgroup calls it.
fn stages16(xin: C16, row: u32, tid: u32) -> C16 {
  if (STAGES16 == 0u) {
    return firstStage16(xin);
  }
  var lns = LOG2L - 4u * STAGES16;
  var w = twiddles16(tid, lns);
  var x = firstStage16(xin);
  put16at(row, U16(firstPlace16(tid, 0u), firstPlace16(tid, 1u), firstPlace16(tid, 2u),
    firstPlace16(tid, 3u), firstPlace16(tid, 4u), firstPlace16(tid, 5u), firstPlace16(tid, 6u),
    firstPlace16(tid, 7u), firstPlace16(tid, 8u), firstPlace16(tid, 9u), firstPlace16(tid, 10u),
    firstPlace16(tid, 11u), firstPlace16(tid, 12u), firstPlace16(tid, 13u), firstPlace16(tid, 14u),
    firstPlace16(tid, 15u)), x);
  workgroupBarrier();
  x = get16(row, tid, TL16);

  // Radix-16 stages over sub-transforms of ns = FIRST16·16^s points (log2 lns), as in `stages`.
  for (var s = 0u; s < STAGES16; s++) {
    let k = tid & ((1u << lns) - 1u);
    x = dft16(twiddle16(x, w));
    if (s + 1u < STAGES16) {
      w = twiddles16(tid, lns + 4u);
      workgroupBarrier();
      put16(row, ((tid >> lns) << (lns + 4u)) + k, 1u << lns, x);
      workgroupBarrier();
      x = get16(row, tid, TL16);
    }
    lns += 4u;
  }
  return x;
}

@compute @workgroup_size(T16)
fn main16(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
  let c = lid / TL16;
  let tid = lid % TL16;
  let t = (wid.y * p.groupsX + wid.x) * COLS + c;
  var x: C16;
  // register k: element tid + k·TL16, loaded and stored 16 coalesced rows apart
  if (t < p.count) {
    let b = origin(t, p.inBase, p.inA) + tid * p.inB;
    let s = TL16 * p.inB;
    x = join16(load8at(b, s), load8at(b + 8u * s, s));
  }
  x = stages16(x, c * PITCH, tid);
  if (t < p.count) {
    let o = origin(t, p.outBase, p.outA);
    putOut8(o, tid, TL16, lo8(x));
    putOut8(o, tid + 8u * TL16, TL16, hi8(x));
  }
}

// ---------------------------------------------------------------------------------------------------
// The spectrogram's fused kernel (electron/engine/backends/webgpu/spectrogram.ts), entry point `spectrum`:
// one frame a sequence, read, windowed and packed at the load, its levels reduced to display columns at
// the store, so the data crosses memory once. Frame f starts at value q.inBase + f·q.hop of the stream.
//   Complex input (REAL_INPUT false): the frame's L = n complex points z[i] = x[i]·win[i]; the power of
//     each bin, row position k holding bin (k + L − L/2) mod L (fftshift order).
//   Real input (REAL_INPUT true, n = 2L): z[i] = (x[2i]·win[2i], x[2i+1]·win[2i+1]) read as L complex
//     points; after the transform X[k] = E[k] + W_n^k·O[k] with E = (Z[k] + conj Z[L−k])/2 and
//     O = (Z[k] − conj Z[L−k])/(2i), for k ≤ L (rtw holds (cos, sin)(2π·k/n)).
// The power |X|²·norm (a real input's DC and Nyquist bins ·normEdge) of column c is written as dBFS
// floored at floorDb to rows[f·width + c], and as linear power to lin when keepLin. With one column a
// bin (direct) each thread writes its bins' columns from registers; else the powers land in workgroup
// memory (bin k at buf[row + k].x, the Nyquist bin at buf[row].y) and column c takes the max over bins
// [edges[c], edges[c+1]).

const REAL_INPUT: bool = false; //! spectrum: frames of real samples (n = 2L), else of complex ones
// 10·log10(2): 10·log10(v) = DB · log2(v)
const DB: f32 = 3.0102999566398120;

struct SpecParams {
  count: u32, // frames in this dispatch
  groupsX: u32,
  inBase: u32, // frame 0's first value: a float index (real input) or a complex one
  hop: u32, // values between frame starts, in the same units
  width: u32, // columns of a row
  keepLin: u32,
  direct: u32, // 1: one column a bin, written from registers without the column pass
  norm: f32,
  normEdge: f32,
  floorDb: f32,
}

@group(0) @binding(5) var<storage, read> srcReal: array<f32>;
@group(0) @binding(6) var<storage, read_write> rows: array<f32>;
@group(0) @binding(7) var<storage, read_write> lin: array<f32>;
@group(0) @binding(8) var<storage, read> win: array<f32>;
@group(0) @binding(9) var<storage, read> edges: array<u32>;
@group(0) @binding(10) var<uniform> q: SpecParams;

// Point i of the frame starting at s, windowed (`pairs`: s is even, so a real pair is one vec2 load).
fn framePoint(s: u32, i: u32, pairs: bool) -> vec2<f32> {
  if (REAL_INPUT) {
    let j = 2u * i;
    let w = vec2<f32>(win[j], win[j + 1u]);
    if (pairs) {
      return src[s / 2u + i] * w;
    }
    return vec2<f32>(srcReal[s + j], srcReal[s + j + 1u]) * w;
  }
  return src[s + i] * win[i];
}

fn loadFrame(s: u32, tid: u32) -> C8 {
  let pairs = (s & 1u) == 0u;
  return C8(framePoint(s, tid, pairs), framePoint(s, tid + TL, pairs), framePoint(s, tid + 2u * TL, pairs),
    framePoint(s, tid + 3u * TL, pairs), framePoint(s, tid + 4u * TL, pairs), framePoint(s, tid + 5u * TL, pairs),
    framePoint(s, tid + 6u * TL, pairs), framePoint(s, tid + 7u * TL, pairs));
}

// Real input: bin k ≤ L of the spectrum from Z[k] = z and Z[(L − k) mod L] in workgroup memory.
fn realBin(row: u32, k: u32, z: vec2<f32>) -> vec2<f32> {
  let c = buf[row + (L - k) % L];
  let zc = vec2<f32>(c.x, -c.y);
  let e = 0.5 * (z + zc);
  let d = 0.5 * (z - zc);
  let w = rtw(k);
  return e + cmul(vec2<f32>(w.x, -w.y), vec2<f32>(d.y, -d.x));
}

fn rtw(k: u32) -> vec2<f32> {
  return outer[k];
}

// The scaled power of output k (element k of the transform, in register z).
fn binPower(row: u32, k: u32, z: vec2<f32>) -> f32 {
  if (REAL_INPUT) {
    let x = realBin(row, k, z);
    return dot(x, x) * select(q.norm, q.normEdge, k == 0u);
  }
  return dot(z, z) * q.norm;
}

// The power at row position k (its bin's, after the stores of binPower).
fn level(row: u32, k: u32) -> f32 {
  if (REAL_INPUT) {
    if (k == L) {
      return buf[row].y;
    }
    return buf[row + k].x;
  }
  return buf[row + (k + L - L / 2u) % L].x;
}

fn toDb(v: f32) -> f32 {
  if (v > 0.0) {
    return max(DB * log2(v), q.floorDb);
  }
  return q.floorDb;
}

// Column col of frame f's row: the level m in dBFS, and linear when asked.
fn emit(f: u32, col: u32, m: f32) {
  let o = f * q.width + col;
  rows[o] = toDb(m);
  if (q.keepLin == 1u) {
    lin[o] = m;
  }
}

// Without display columns (one bin each): output k of the transform, in register z, straight to its row
// position.
fn emitBin(f: u32, row: u32, k: u32, z: vec2<f32>) {
  var col = k;
  if (!REAL_INPUT) {
    col = (k + L / 2u) % L;
  }
  emit(f, col, binPower(row, k, z));
}

@compute @workgroup_size(T)
fn spectrum(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
  let c = lid / TL;
  let tid = lid % TL;
  let f = (wid.y * q.groupsX + wid.x) * COLS + c;
  let row = c * PITCH;
  var x: C8;
  if (f < q.count) {
    x = loadFrame(q.inBase + f * q.hop, tid);
  }
  x = stages(x, row, tid);

  // a real input's post-process reads Z[L − k] of other threads
  workgroupBarrier();
  if (REAL_INPUT) {
    put8(row + tid, TL, x);
    workgroupBarrier();
  }
  if (q.direct == 1u) {
    if (f < q.count) {
      emitBin(f, row, tid, x[0]);
      emitBin(f, row, tid + TL, x[1]);
      emitBin(f, row, tid + 2u * TL, x[2]);
      emitBin(f, row, tid + 3u * TL, x[3]);
      emitBin(f, row, tid + 4u * TL, x[4]);
      emitBin(f, row, tid + 5u * TL, x[5]);
      emitBin(f, row, tid + 6u * TL, x[6]);
      emitBin(f, row, tid + 7u * TL, x[7]);
      if (REAL_INPUT && tid == 0u) {
        let xn = realBin(row, L, x[0]);
        emit(f, L, dot(xn, xn) * q.normEdge);
      }
    }
    return;
  }
  let p0 = binPower(row, tid, x[0]);
  let p1 = binPower(row, tid + TL, x[1]);
  let p2 = binPower(row, tid + 2u * TL, x[2]);
  let p3 = binPower(row, tid + 3u * TL, x[3]);
  let p4 = binPower(row, tid + 4u * TL, x[4]);
  let p5 = binPower(row, tid + 5u * TL, x[5]);
  let p6 = binPower(row, tid + 6u * TL, x[6]);
  let p7 = binPower(row, tid + 7u * TL, x[7]);
  var nyquist = 0.0;
  if (REAL_INPUT && tid == 0u) {
    let xn = realBin(row, L, x[0]);
    nyquist = dot(xn, xn) * q.normEdge;
  }
  workgroupBarrier();
  buf[row + tid] = vec2<f32>(p0, nyquist);
  buf[row + tid + TL] = vec2<f32>(p1, 0.0);
  buf[row + tid + 2u * TL] = vec2<f32>(p2, 0.0);
  buf[row + tid + 3u * TL] = vec2<f32>(p3, 0.0);
  buf[row + tid + 4u * TL] = vec2<f32>(p4, 0.0);
  buf[row + tid + 5u * TL] = vec2<f32>(p5, 0.0);
  buf[row + tid + 6u * TL] = vec2<f32>(p6, 0.0);
  buf[row + tid + 7u * TL] = vec2<f32>(p7, 0.0);
  workgroupBarrier();

  if (f < q.count) {
    for (var col = tid; col < q.width; col += TL) {
      let lo = edges[col];
      let hi = edges[col + 1u];
      var m = level(row, lo);
      for (var k = lo + 1u; k < hi; k++) {
        m = max(m, level(row, k));
      }
      emit(f, col, m);
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// The fused overlap-save filter (electron/engine/backends/webgpu/fir.ts), entry point `convolve`: a
// sequence (one workgroup row) is one segment of N points of two real sequences packed as one complex
// sequence (real part sequence 2r, imaginary part 2r + 1; the filter is real, so the parts stay apart).
// Real sequence s is lane s % V of segment s / V: its point i is value cv.inBase + (seg·S + i)·V + lane of
// the stream (zero at or past cv.available). The forward FFT, the product with the filter's spectrum H
// (scaled by 1/N on the host) and the inverse FFT (conj → the forward stages → conj) run in the workgroup;
// point n ≥ M − 1 of the result is output t = n − (M − 1) of the segment, lane `lane`, written to
// outReal[seg·outSeg + t·V + lane] (outSeg = S·V: output frame seg·S + t). N = L, or with SPLIT N = 2L as two halves of L points (the even points and the odd
// ones, one after the other through workgroup memory), joined by a radix-2 step in registers:
//   X[m] = E[m] + W_N^m·O[m], X[m + L] = E[m] − W_N^m·O[m]; back: E' = Y[m] + Y[m + L],
//   O' = (Y[m] − Y[m + L])·conj(W_N^m).
// The table at binding 3 holds H[k] for k < N, then (SPLIT) (cos, sin)(2π·m/N) for m < L.
// With cv.score = 1 (the correlator, electron/engine/backends/webgpu/correlator.ts: the template reversed
// as the filter, so output t of segment seg is the correlation c of lag seg·S + t; real input as one
// lane, complex input as two, the real and imaginary parts of one segment, with the conjugated template
// as a complex filter) the store writes the normalized score |c| / (cv.norm·√E) instead of c, E the
// energy of the lag's window, segment points [t, t + M). After the transforms, workgroup memory takes
// the segment's sums of squares over chunks of 4, 16 and 64 points (the points read again from the
// source) and the sums of runs of consecutive chunks of 64; a window's energy is then at most 3 single
// points and 3 chunks of 4 and of 16 at each end plus one run and at most one more chunk of 64 (SPLIT: a
// thread's lags come in neighbouring pairs, which share that sum over their common M − 1 points and add
// one point each). Every term is positive (no cancellation), and a lag's energy depends only on its
// segment's points, so the scores do not depend on how the stream was split.

const SPLIT: bool = false; //! convolve: segments of N = 2L points (two halves), else N = L
const SCORE: bool = true; //! convolve: with the correlator's score store (used where cv.score = 1)

struct ConvParams {
  count: u32, // rows (pairs of real sequences) in this dispatch
  groupsX: u32,
  seqs: u32, // real sequences: segments · V
  lanes: u32, // V
  segment: u32, // S: outputs a segment
  keep: u32, // M − 1: points a segment shares with the one before
  frames: u32, // output frames of this dispatch
  available: u32, // values in srcReal
  inBase: u32, // value index of the dispatch's first input frame
  outSeg: u32, // values of outReal between the outputs of consecutive segments (S·V for the FIR)
  outBase: u32, // score: index in outReal of the dispatch's first output
  score: u32, // 1: write the correlator's scores (see above), 0: the filter's outputs
  norm: f32, // score: the template's norm
}

@group(0) @binding(11) var<storage, read_write> outReal: array<f32>;
@group(0) @binding(12) var<uniform> cv: ConvParams;

// Where real sequence s lies, computed once a row (no division per point): its point i is srcReal[inAt +
// i·V] when inAt + i·V < inEnd; its output t goes to outReal[outAt + t·V] when t < outEnd.
struct Seq {
  inAt: u32,
  inEnd: u32,
  outAt: u32,
  outEnd: u32,
}

fn seqOf(s: u32) -> Seq {
  let seg = s / cv.lanes;
  let lane = s % cv.lanes;
  let first = seg * cv.segment;
  var q = Seq(cv.inBase + first * cv.lanes + lane, cv.available, seg * cv.outSeg + lane, 0u);
  if (s >= cv.seqs) {
    q.inEnd = 0u;
  } else if (first < cv.frames) {
    q.outEnd = cv.frames - first;
  }
  return q;
}

fn seqPoint(q: Seq, i: u32) -> f32 {
  let a = q.inAt + i * cv.lanes;
  if (a >= q.inEnd) {
    return 0.0;
  }
  return srcReal[a];
}

// Point i of a row: its two real sequences as one complex value.
fn rowPoint(q0: Seq, q1: Seq, i: u32) -> vec2<f32> {
  return vec2<f32>(seqPoint(q0, i), seqPoint(q1, i));
}

// Points b + k·s of a row, k < 8 (`convolve`: b = tid·step + off, s = TL·step).
fn loadRow(q0: Seq, q1: Seq, b: u32, s: u32) -> C8 {
  return C8(rowPoint(q0, q1, b), rowPoint(q0, q1, b + s), rowPoint(q0, q1, b + 2u * s),
    rowPoint(q0, q1, b + 3u * s), rowPoint(q0, q1, b + 4u * s), rowPoint(q0, q1, b + 5u * s),
    rowPoint(q0, q1, b + 6u * s), rowPoint(q0, q1, b + 7u * s));
}

fn conj8(a: C8) -> C8 {
  let c = vec2<f32>(1.0, -1.0);
  return C8(a[0] * c, a[1] * c, a[2] * c, a[3] * c, a[4] * c, a[5] * c, a[6] * c, a[7] * c);
}

// x[k]·H[b + k·s]
fn filter8(x: C8, b: u32, s: u32) -> C8 {
  return C8(cmul(x[0], outer[b]), cmul(x[1], outer[b + s]), cmul(x[2], outer[b + 2u * s]),
    cmul(x[3], outer[b + 3u * s]), cmul(x[4], outer[b + 4u * s]), cmul(x[5], outer[b + 5u * s]),
    cmul(x[6], outer[b + 6u * s]), cmul(x[7], outer[b + 7u * s]));
}

// x[k]·(the split twiddle W_N^m, m = tid + k·TL; conjugated when `back`)
fn splitTw(x: vec2<f32>, m: u32, back: bool) -> vec2<f32> {
  let w = outer[2u * L + m];
  return cmul(x, vec2<f32>(w.x, select(-w.y, w.y, back)));
}

// SPLIT: the halves' spectra E[m], O[m] → the conjugated inputs of the inverse halves, (E', O').
fn join(e: vec2<f32>, o: vec2<f32>, m: u32) -> array<vec2<f32>, 2> {
  let wo = splitTw(o, m, false);
  let a = cmul(e + wo, outer[m]);
  let b = cmul(e - wo, outer[m + L]);
  let d = splitTw(a - b, m, true);
  return array<vec2<f32>, 2>(vec2<f32>(a.x + b.x, -(a.y + b.y)), vec2<f32>(d.x, -d.y));
}

// Writes point n of a row (register value z, conjugated): the outputs of its two sequences.
fn emitPoint(q0: Seq, q1: Seq, n: u32, z: vec2<f32>) {
  if (n < cv.keep) {
    return;
  }
  let t = n - cv.keep;
  if (t < q0.outEnd) {
    outReal[q0.outAt + t * cv.lanes] = z.x;
  }
  if (t < q1.outEnd) {
    outReal[q1.outAt + t * cv.lanes] = -z.y;
  }
}

// Points b + k·s of a row (k < 8) from the conjugated inverse in x.
fn emitRow(q0: Seq, q1: Seq, b: u32, s: u32, x: C8) {
  emitPoint(q0, q1, b, x[0]);
  emitPoint(q0, q1, b + s, x[1]);
  emitPoint(q0, q1, b + 2u * s, x[2]);
  emitPoint(q0, q1, b + 3u * s, x[3]);
  emitPoint(q0, q1, b + 4u * s, x[4]);
  emitPoint(q0, q1, b + 5u * s, x[5]);
  emitPoint(q0, q1, b + 6u * s, x[6]);
  emitPoint(q0, q1, b + 7u * s, x[7]);
}

// Points of a segment; where its chunk sums (of 4, 16 and 64 points) and the runs of K − 1 chunks of 64
// lie in a row of workgroup memory (x: the row's first sequence, y: its second): 0.34·NP words of the
// row's L (SPLIT: NP = 2L).
const NP: u32 = L * (1u + u32(SPLIT));
const AT16: u32 = NP / 4u;
const AT64: u32 = AT16 + NP / 16u;
const ATRUN: u32 = AT64 + NP / 64u;

// score: the sums of squares of the row's two segments into workgroup memory (read back by windowEnergy).
// Every thread of the workgroup calls it after the transforms.
fn rowEnergies(q0: Seq, q1: Seq, row: u32, tid: u32) {
  workgroupBarrier();
  for (var j = tid; j < NP / 4u; j += TL) {
    var s = vec2<f32>(0.0, 0.0);
    for (var i = 0u; i < 4u; i++) {
      let v = rowPoint(q0, q1, 4u * j + i);
      s = s + v * v;
    }
    buf[row + j] = s;
  }
  workgroupBarrier();
  for (var j = tid; j < NP / 16u; j += TL) {
    buf[row + AT16 + j] = chunkSum(row + 4u * j);
  }
  workgroupBarrier();
  for (var j = tid; j < NP / 64u; j += TL) {
    buf[row + AT64 + j] = chunkSum(row + AT16 + 4u * j);
  }
  workgroupBarrier();
  let runs = runLength();
  for (var c = tid; c < NP / 64u; c += TL) {
    // eight chunks a step, their loads independent of one another (a run is 62 chunks for a
    // 4096-sample template, and one thread sums it)
    let n = min(runs, NP / 64u - c);
    let at = row + AT64 + c;
    var s = vec2<f32>(0.0, 0.0);
    var i = 0u;
    for (; i + 8u <= n; i += 8u) {
      let q = ((buf[at + i] + buf[at + i + 1u]) + (buf[at + i + 2u] + buf[at + i + 3u])) +
        ((buf[at + i + 4u] + buf[at + i + 5u]) + (buf[at + i + 6u] + buf[at + i + 7u]));
      s = s + q;
    }
    for (; i < n; i++) {
      s = s + buf[at + i];
    }
    buf[row + ATRUN + c] = s;
  }
  workgroupBarrier();
}

// Chunks of 64 in a run: one less than a window holds at most. The windows windowEnergy sums have M
// points, or (SPLIT, whose scores come in pairs of lags) the M − 1 points two neighbouring lags share.
fn runLength() -> u32 {
  let w = select(cv.keep + 1u, cv.keep, SPLIT);
  return max(w / 64u, 1u) - 1u;
}

// Four consecutive sums of workgroup memory from `at`, added in order.
fn chunkSum(at: u32) -> vec2<f32> {
  return ((buf[at] + buf[at + 1u]) + buf[at + 2u]) + buf[at + 3u];
}

// The square of segment point i of the row's two sequences.
fn pointSq(q0: Seq, q1: Seq, i: u32) -> vec2<f32> {
  let v = rowPoint(q0, q1, i);
  return v * v;
}

// The energies of segment points [a, b) of the row's two sequences (b − a: the window runLength counts
// for): single points to a multiple of 4, chunks of 4 to a multiple of 16, of 16 to a multiple of 64,
// the whole chunks of 64 (a run, or a run and its next chunk), then chunks of 16 and 4 and single points
// to b: at most 3 terms of each size at each end. Each size's terms are counted first and added as three
// optional terms, not walked in a loop, so their loads go out together instead of one after another
// (the sum and its order are a walk's; on the lent H200 the kernel of a 255-sample template took 0.352 →
// 0.310 ms, of a 4096-sample one 0.497 → 0.471 ms).
fn windowEnergy(q0: Seq, q1: Seq, row: u32, a: u32, b: u32) -> vec2<f32> {
  let n1 = min((4u - a % 4u) % 4u, b - a);
  var e = points3(q0, q1, vec2<f32>(0.0, 0.0), a, n1);
  var i = a + n1;
  let n4 = min(((16u - i % 16u) % 16u) / 4u, (b - i) / 4u);
  e = chunks3(e, row + i / 4u, n4);
  i += 4u * n4;
  let n16 = min(((64u - i % 64u) % 64u) / 16u, (b - i) / 16u);
  e = chunks3(e, row + AT16 + i / 16u, n16);
  i += 16u * n16;
  let blocks = (b - i) / 64u;
  if (blocks > 0u) {
    let runs = runLength();
    let c = i / 64u;
    e = e + buf[row + ATRUN + c];
    if (blocks > runs) {
      e = e + buf[row + AT64 + c + runs];
    }
    i += 64u * blocks;
  }
  let m16 = (b - i) / 16u;
  e = chunks3(e, row + AT16 + i / 16u, m16);
  i += 16u * m16;
  let m4 = (b - i) / 4u;
  e = chunks3(e, row + i / 4u, m4);
  i += 4u * m4;
  return points3(q0, q1, e, i, b - i);
}

// e plus the squares of the first n (at most 3) segment points from `at`, in order.
fn points3(q0: Seq, q1: Seq, e: vec2<f32>, at: u32, n: u32) -> vec2<f32> {
  var s = e;
  if (n > 0u) {
    s = s + pointSq(q0, q1, at);
  }
  if (n > 1u) {
    s = s + pointSq(q0, q1, at + 1u);
  }
  if (n > 2u) {
    s = s + pointSq(q0, q1, at + 2u);
  }
  return s;
}

// e plus the first n (at most 3) chunk sums of workgroup memory from `at`, in order.
fn chunks3(e: vec2<f32>, at: u32, n: u32) -> vec2<f32> {
  var s = e;
  if (n > 0u) {
    s = s + buf[at];
  }
  if (n > 1u) {
    s = s + buf[at + 1u];
  }
  if (n > 2u) {
    s = s + buf[at + 2u];
  }
  return s;
}

fn scoreOf(c: f32, e: f32) -> f32 {
  if (e > 0.0 && cv.norm > 0.0) {
    return c / (cv.norm * sqrt(e));
  }
  return 0.0;
}

// score: the score of lag t from its correlation (register value z, conjugated) and window energies e,
// for each of the row's two sequences, or with two lanes (complex input: one segment a row, its real
// and imaginary parts) for the one.
fn storeScore(q0: Seq, q1: Seq, t: u32, z: vec2<f32>, e: vec2<f32>) {
  if (cv.lanes == 2u) {
    if (t < q0.outEnd) {
      outReal[cv.outBase + q0.outAt + t] = scoreOf(length(z), e.x + e.y);
    }
    return;
  }
  if (t < q0.outEnd) {
    outReal[cv.outBase + q0.outAt + t] = scoreOf(abs(z.x), e.x);
  }
  if (t < q1.outEnd) {
    outReal[cv.outBase + q1.outAt + t] = scoreOf(abs(z.y), e.y);
  }
}

// score: point n of a row (register value z) as the score of lag n − (M − 1).
fn scorePoint(q0: Seq, q1: Seq, row: u32, n: u32, z: vec2<f32>) {
  if (n < cv.keep) {
    return;
  }
  let t = n - cv.keep;
  if (t < max(q0.outEnd, q1.outEnd)) {
    storeScore(q0, q1, t, z, windowEnergy(q0, q1, row, t, n + 1u));
  }
}

// score: points tid + k·TL of a row, from the conjugated inverse in x.
fn scoreRow(q0: Seq, q1: Seq, row: u32, tid: u32, x: C8) {
  scorePoint(q0, q1, row, tid, x[0]);
  scorePoint(q0, q1, row, tid + TL, x[1]);
  scorePoint(q0, q1, row, tid + 2u * TL, x[2]);
  scorePoint(q0, q1, row, tid + 3u * TL, x[3]);
  scorePoint(q0, q1, row, tid + 4u * TL, x[4]);
  scorePoint(q0, q1, row, tid + 5u * TL, x[5]);
  scorePoint(q0, q1, row, tid + 6u * TL, x[6]);
  scorePoint(q0, q1, row, tid + 7u * TL, x[7]);
}

// SPLIT score: points n = 2m and n + 1 of a row (registers z0 of the even half, z1 of the odd one), the
// lags t = n − (M − 1) and t + 1, whose windows share the M − 1 points [t + 1, n + 1): that sum once,
// plus point t for the first and point n + 1 for the second.
fn scorePair(q0: Seq, q1: Seq, row: u32, n: u32, z0: vec2<f32>, z1: vec2<f32>) {
  if (n + 1u < cv.keep) {
    return;
  }
  let t1 = n + 1u - cv.keep;
  let live = n >= cv.keep && t1 - 1u < max(q0.outEnd, q1.outEnd);
  if (!live && t1 >= max(q0.outEnd, q1.outEnd)) {
    return;
  }
  let inner = windowEnergy(q0, q1, row, t1, n + 1u);
  if (live) {
    let v = rowPoint(q0, q1, t1 - 1u);
    storeScore(q0, q1, t1 - 1u, z0, v * v + inner);
  }
  let w = rowPoint(q0, q1, n + 1u);
  storeScore(q0, q1, t1, z1, inner + w * w);
}

// SPLIT score: the pairs of points 2(tid + k·TL), from the even half e and the odd half o.
fn scorePairs(q0: Seq, q1: Seq, row: u32, tid: u32, e: C8, o: C8) {
  scorePair(q0, q1, row, 2u * tid, e[0], o[0]);
  scorePair(q0, q1, row, 2u * (tid + TL), e[1], o[1]);
  scorePair(q0, q1, row, 2u * (tid + 2u * TL), e[2], o[2]);
  scorePair(q0, q1, row, 2u * (tid + 3u * TL), e[3], o[3]);
  scorePair(q0, q1, row, 2u * (tid + 4u * TL), e[4], o[4]);
  scorePair(q0, q1, row, 2u * (tid + 5u * TL), e[5], o[5]);
  scorePair(q0, q1, row, 2u * (tid + 6u * TL), e[6], o[6]);
  scorePair(q0, q1, row, 2u * (tid + 7u * TL), e[7], o[7]);
}

@compute @workgroup_size(T)
fn convolve(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
  let c = lid / TL;
  let tid = lid % TL;
  let r = (wid.y * cv.groupsX + wid.x) * COLS + c;
  let row = c * PITCH;
  let live = r < cv.count;
  let q0 = seqOf(2u * r);
  let q1 = seqOf(2u * r + 1u);
  if (!SPLIT) {
    var x: C8;
    if (live) {
      x = loadRow(q0, q1, tid, TL);
    }
    x = stages(x, row, tid);
    x = conj8(filter8(x, tid, TL));
    workgroupBarrier();
    x = stages(x, row, tid);
    if (SCORE && cv.score == 1u) {
      rowEnergies(q0, q1, row, tid);
      if (live) {
        scoreRow(q0, q1, row, tid, x);
      }
      return;
    }
    if (live) {
      emitRow(q0, q1, tid, TL, x);
    }
    return;
  }
  var e: C8;
  var o: C8;
  if (live) {
    e = loadRow(q0, q1, 2u * tid, 2u * TL);
    o = loadRow(q0, q1, 2u * tid + 1u, 2u * TL);
  }
  e = stages(e, row, tid);
  workgroupBarrier();
  o = stages(o, row, tid);
  // the radix-2 step, the filter and the radix-2 step back, point m = tid + k·TL of each half
  let j0 = join(e[0], o[0], tid);
  let j1 = join(e[1], o[1], tid + TL);
  let j2 = join(e[2], o[2], tid + 2u * TL);
  let j3 = join(e[3], o[3], tid + 3u * TL);
  let j4 = join(e[4], o[4], tid + 4u * TL);
  let j5 = join(e[5], o[5], tid + 5u * TL);
  let j6 = join(e[6], o[6], tid + 6u * TL);
  let j7 = join(e[7], o[7], tid + 7u * TL);
  let ye = C8(j0[0], j1[0], j2[0], j3[0], j4[0], j5[0], j6[0], j7[0]);
  let yo = C8(j0[1], j1[1], j2[1], j3[1], j4[1], j5[1], j6[1], j7[1]);
  workgroupBarrier();
  e = stages(ye, row, tid);
  workgroupBarrier();
  o = stages(yo, row, tid);
  if (SCORE && cv.score == 1u) {
    rowEnergies(q0, q1, row, tid);
    if (live) {
      scorePairs(q0, q1, row, tid, e, o);
    }
    return;
  }
  if (live) {
    emitRow(q0, q1, 2u * tid, 2u * TL, e);
    emitRow(q0, q1, 2u * tid + 1u, 2u * TL, o);
  }
}

// The fused overlap-save filter with 16 points a thread, entry point `convolve16`: `convolve` for segments
// of N = L points (no SPLIT) with the FIR's store (no score), its transforms by `stages16` (the radix-16
// stages of `main16`, one exchange through workgroup memory fewer). Register k holds point tid + k·TL16.

@compute @workgroup_size(T16)
fn convolve16(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
  let c = lid / TL16;
  let tid = lid % TL16;
  let r = (wid.y * cv.groupsX + wid.x) * COLS + c;
  let row = c * PITCH;
  let live = r < cv.count;
  let q0 = seqOf(2u * r);
  let q1 = seqOf(2u * r + 1u);
  let hi = tid + 8u * TL16;
  var x: C16;
  if (live) {
    x = join16(loadRow(q0, q1, tid, TL16), loadRow(q0, q1, hi, TL16));
  }
  x = stages16(x, row, tid);
  x = join16(conj8(filter8(lo8(x), tid, TL16)), conj8(filter8(hi8(x), hi, TL16)));
  workgroupBarrier();
  x = stages16(x, row, tid);
  if (live) {
    emitRow(q0, q1, tid, TL16, lo8(x));
    emitRow(q0, q1, hi, TL16, hi8(x));
  }
}
