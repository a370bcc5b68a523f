// Batched power-of-two complex FFT, Stockham auto-sort, results in natural order.
//
// A transform of L points is done by L/E threads that hold E = min(8, L) points each in registers: a
// first stage of radix FIRST (2, 4 or 8; the thread does E/FIRST of its butterflies), then STAGES
// radix-8 stages. Points move between threads through workgroup memory between stages only: the first
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

const TL: u32 = L / E; // threads of one transform
const T: u32 = COLS * TL; // threads of the workgroup
const REG_COLS_FAST: bool = LOAD_COLS_FAST && STORE_COLS_FAST;
const SQRT_HALF: f32 = 0.70710678118654752;

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

var<workgroup> buf: array<vec2<f32>, COLS * PITCH>;

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

// The DFT of 8 points in place, outputs in natural order.
fn dft8(x: ptr<function, array<vec2<f32>, 8>>, o: u32, s: u32) {
  let a0 = (*x)[o];
  let a1 = (*x)[o + s];
  let a2 = (*x)[o + 2u * s];
  let a3 = (*x)[o + 3u * s];
  let a4 = (*x)[o + 4u * s];
  let a5 = (*x)[o + 5u * s];
  let a6 = (*x)[o + 6u * s];
  let a7 = (*x)[o + 7u * s];
  // two radix-4 butterflies (even and odd inputs), then a radix-2 step with W_8^k
  let e0 = a0 + a4;
  let e1 = a0 - a4;
  let e2 = a2 + a6;
  let e3 = rot(a2 - a6);
  let o0 = a1 + a5;
  let o1 = a1 - a5;
  let o2 = a3 + a7;
  let o3 = rot(a3 - a7);
  let E0 = e0 + e2;
  let E2 = e0 - e2;
  let E1 = e1 + e3;
  let E3 = e1 - e3;
  let O0 = o0 + o2;
  let O2 = rot(o0 - o2);
  let O1 = w8(o1 + o3);
  let O3 = rot(w8(o1 - o3));
  (*x)[o] = E0 + O0;
  (*x)[o + 4u * s] = E0 - O0;
  (*x)[o + s] = E1 + O1;
  (*x)[o + 5u * s] = E1 - O1;
  (*x)[o + 2u * s] = E2 + O2;
  (*x)[o + 6u * s] = E2 - O2;
  (*x)[o + 3u * s] = E3 + O3;
  (*x)[o + 7u * s] = E3 - O3;
}

fn dft4(x: ptr<function, array<vec2<f32>, 8>>, o: u32, s: u32) {
  let a0 = (*x)[o];
  let a1 = (*x)[o + s];
  let a2 = (*x)[o + 2u * s];
  let a3 = (*x)[o + 3u * s];
  let t0 = a0 + a2;
  let t1 = a0 - a2;
  let t2 = a1 + a3;
  let t3 = rot(a1 - a3);
  (*x)[o] = t0 + t2;
  (*x)[o + s] = t1 + t3;
  (*x)[o + 2u * s] = t0 - t2;
  (*x)[o + 3u * s] = t1 - t3;
}

fn dft2(x: ptr<function, array<vec2<f32>, 8>>, o: u32, s: u32) {
  let a0 = (*x)[o];
  let a1 = (*x)[o + s];
  (*x)[o] = a0 + a1;
  (*x)[o + s] = a0 - a1;
}

@compute @workgroup_size(T)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
  let first = (wid.y * p.groupsX + wid.x) * COLS;
  var c = lid / TL;
  var tid = lid % TL;
  if (REG_COLS_FAST) {
    c = lid % COLS;
    tid = lid / COLS;
  }
  let t = first + c;
  let row = c * PITCH;
  var x: array<vec2<f32>, 8>;

  // Inputs: register k holds element tid + k·TL.
  if (LOAD_COLS_FAST == REG_COLS_FAST) {
    if (t < p.count) {
      let o = origin(t, p.inBase, p.inA);
      for (var k = 0u; k < E; k++) {
        x[k] = src[o + (tid + k * TL) * p.inB];
      }
    }
  } else {
    for (var u = 0u; u < E; u++) {
      let e = lid + u * T;
      let lc = e % COLS;
      let li = e / COLS;
      if (first + lc < p.count) {
        buf[lc * PITCH + li] = src[origin(first + lc, p.inBase, p.inA) + li * p.inB];
      }
    }
    workgroupBarrier();
    for (var k = 0u; k < E; k++) {
      x[k] = buf[row + tid + k * TL];
    }
    workgroupBarrier();
  }

  // First stage, radix FIRST, no twiddles: butterfly b of the thread (j = tid + b·TL) takes registers
  // b + r·E/FIRST and writes its outputs to j·FIRST + r.
  const B0: u32 = E / FIRST;
  for (var b = 0u; b < B0; b++) {
    if (FIRST == 8u) {
      dft8(&x, b, B0);
    } else if (FIRST == 4u) {
      dft4(&x, b, B0);
    } else if (FIRST == 2u) {
      dft2(&x, b, B0);
    }
  }
  if (STAGES > 0u) {
    for (var b = 0u; b < B0; b++) {
      let j = tid + b * TL;
      for (var r = 0u; r < FIRST; r++) {
        buf[row + j * FIRST + r] = x[b + r * B0];
      }
    }
    workgroupBarrier();
    for (var k = 0u; k < 8u; k++) {
      x[k] = buf[row + tid + k * TL];
    }
  }

  // Radix-8 stages over sub-transforms of ns = FIRST·8^(s−1) points (log2 lns).
  var lns = LOG2L - 3u * STAGES;
  for (var s = 0u; s < STAGES; s++) {
    let k = tid & ((1u << lns) - 1u);
    let step = k << (LOG2L - lns - 3u); // W_(8·ns)^(r·k) = W_L^(r·step)
    for (var r = 1u; r < 8u; r++) {
      x[r] = cmul(x[r], twiddle(r * step));
    }
    dft8(&x, 0u, 1u);
    if (s + 1u < STAGES) {
      workgroupBarrier();
      let d = row + ((tid >> lns) << (lns + 3u)) + k;
      for (var r = 0u; r < 8u; r++) {
        buf[d + (r << lns)] = x[r];
      }
      workgroupBarrier();
      for (var r = 0u; r < 8u; r++) {
        x[r] = buf[row + tid + r * TL];
      }
    }
    lns += 3u;
  }

  // Outputs: register r holds element tid + r·TL.
  if (STORE_COLS_FAST == REG_COLS_FAST) {
    if (t < p.count) {
      let o = origin(t, p.outBase, p.outA);
      for (var r = 0u; r < E; r++) {
        let i = tid + r * TL;
        var v = x[r] * p.scale;
        if (OUTER) {
          v = cmul(v, outerTwiddle((t % p.period) * i));
        }
        dst[o + i * p.outB] = v;
      }
    }
  } else {
    workgroupBarrier();
    for (var r = 0u; r < E; r++) {
      buf[row + tid + r * TL] = x[r];
    }
    workgroupBarrier();
    for (var u = 0u; u < E; u++) {
      let e = lid + u * T;
      let sc = e % COLS;
      let si = e / COLS;
      let ts = first + sc;
      if (ts < p.count) {
        var v = buf[sc * PITCH + si] * p.scale;
        if (OUTER) {
          v = cmul(v, outerTwiddle((ts % p.period) * si));
        }
        dst[origin(ts, p.outBase, p.outA) + si * p.outB] = v;
      }
    }
  }
}
