// Batched power-of-two complex FFT in workgroup memory: Stockham auto-sort, radix 8 stages and one
// radix 4 or 2 stage for the rest, results in natural order.
//
// A workgroup transforms COLS sequences of L points at once (COLS·L points in workgroup memory). Sequence
// t, element i is read at  inBase + (t / period)·block + (t % period)·inA + i·inB  and written at the
// same formula with the out* strides, so one kernel serves contiguous batches and both passes of a
// four-step plan (strided columns, transposed stores). With OUTER, each output is multiplied by the
// four-step twiddle W_N^((t % period)·i) before the store. Twiddles come from float64-computed tables.
//
// The lines marked //! are replaced by the planner (electron/engine/backends/webgpu/shaders.ts): one
// source, one pipeline per size and direction. The values below make the file valid WGSL on its own.

const L: u32 = 1024u; //! points of one transform
const COLS: u32 = 1u; //! transforms per workgroup
const T: u32 = 128u; //! threads per workgroup
const E: u32 = 8u; //! points per thread: COLS·L / T
const STAGES8: u32 = 3u; //! radix-8 stages
const LAST: u32 = 2u; //! radix of the last stage: 4, 2, or 1 (none)
const SIGN: f32 = -1.0; //! exponent sign: −1 forward, +1 inverse
const OUTER: bool = false; //! multiply by the four-step twiddles before the store
const LOAD_COLS_FAST: bool = false; //! adjacent threads load adjacent transforms (strided columns)
const STORE_COLS_FAST: bool = false; //! adjacent threads store adjacent transforms (transposed output)

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

var<workgroup> buf: array<vec2<f32>, COLS * L>;
var<private> tid: u32;

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

fn address(t: u32, i: u32, base: u32, a: u32, b: u32) -> u32 {
  return base + (t / p.period) * p.block + (t % p.period) * a + i * b;
}

// One Stockham stage of radix R over sub-transforms of ns points: each thread reads and transforms its
// butterflies into registers, then (after a barrier) writes them to their auto-sorted places.
// Butterfly q of a stage reads its r-th input, twiddled by W_(ns·R)^(r·k).
fn input(R: u32, ns: u32, q: u32, r: u32) -> vec2<f32> {
  let s = L / R;
  let c = q / s;
  let j = q % s;
  let k = j % ns;
  return cmul(buf[c * L + j + r * s], twiddle(r * k * (L / (ns * R))));
}

// Writes the thread's butterflies (R outputs each, in v) to their places, then waits for the workgroup.
fn place(v: ptr<function, array<vec2<f32>, E>>, R: u32, ns: u32) {
  workgroupBarrier();
  let s = L / R;
  for (var b = 0u; b < E / R; b++) {
    let q = tid + b * T;
    let j = q % s;
    let d = (q / s) * L + (j / ns) * ns * R + j % ns;
    for (var r = 0u; r < R; r++) {
      buf[d + r * ns] = (*v)[b * R + r];
    }
  }
  workgroupBarrier();
}

fn stage8(ns: u32) {
  var v: array<vec2<f32>, E>;
  for (var b = 0u; b < E / 8u; b++) {
    let q = tid + b * T;
    var a: array<vec2<f32>, 8>;
    for (var r = 0u; r < 8u; r++) {
      a[r] = input(8u, ns, q, r);
    }
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
    v[b * 8u + 0u] = E0 + O0;
    v[b * 8u + 4u] = E0 - O0;
    v[b * 8u + 1u] = E1 + O1;
    v[b * 8u + 5u] = E1 - O1;
    v[b * 8u + 2u] = E2 + O2;
    v[b * 8u + 6u] = E2 - O2;
    v[b * 8u + 3u] = E3 + O3;
    v[b * 8u + 7u] = E3 - O3;
  }
  place(&v, 8u, ns);
}

fn stage4(ns: u32) {
  var v: array<vec2<f32>, E>;
  for (var b = 0u; b < E / 4u; b++) {
    let q = tid + b * T;
    let a0 = input(4u, ns, q, 0u);
    let a1 = input(4u, ns, q, 1u);
    let a2 = input(4u, ns, q, 2u);
    let a3 = input(4u, ns, q, 3u);
    let t0 = a0 + a2;
    let t1 = a0 - a2;
    let t2 = a1 + a3;
    let t3 = rot(a1 - a3);
    v[b * 4u + 0u] = t0 + t2;
    v[b * 4u + 1u] = t1 + t3;
    v[b * 4u + 2u] = t0 - t2;
    v[b * 4u + 3u] = t1 - t3;
  }
  place(&v, 4u, ns);
}

fn stage2(ns: u32) {
  var v: array<vec2<f32>, E>;
  for (var b = 0u; b < E / 2u; b++) {
    let q = tid + b * T;
    let a0 = input(2u, ns, q, 0u);
    let a1 = input(2u, ns, q, 1u);
    v[b * 2u] = a0 + a1;
    v[b * 2u + 1u] = a0 - a1;
  }
  place(&v, 2u, ns);
}

@compute @workgroup_size(T)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
  tid = lid;
  let first = (wid.y * p.groupsX + wid.x) * COLS;
  for (var u = 0u; u < E; u++) {
    let e = tid + u * T;
    var c = e / L;
    var i = e % L;
    if (LOAD_COLS_FAST) {
      c = e % COLS;
      i = e / COLS;
    }
    let t = first + c;
    if (t < p.count) {
      buf[c * L + i] = src[address(t, i, p.inBase, p.inA, p.inB)];
    }
  }
  workgroupBarrier();
  var ns = 1u;
  for (var s = 0u; s < STAGES8; s++) {
    stage8(ns);
    ns *= 8u;
  }
  if (LAST == 4u) {
    stage4(ns);
  } else if (LAST == 2u) {
    stage2(ns);
  }
  for (var u = 0u; u < E; u++) {
    let e = tid + u * T;
    var c = e / L;
    var i = e % L;
    if (STORE_COLS_FAST) {
      c = e % COLS;
      i = e / COLS;
    }
    let t = first + c;
    if (t < p.count) {
      var x = buf[c * L + i] * p.scale;
      if (OUTER) {
        x = cmul(x, outerTwiddle((t % p.period) * i));
      }
      dst[address(t, i, p.outBase, p.outA, p.outB)] = x;
    }
  }
}
