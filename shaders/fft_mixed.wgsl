// Batched mixed-radix complex FFT in workgroup memory for L = 2^a·3^b·5^c·7^d: a Stockham auto-sort of
// up to ten stages of radix 8, 7, 5, 4, 3 or 2 (R0…R9, in the order the planner chose), results in
// natural order.
//
// A workgroup transforms COLS sequences of L points (COLS·L points in workgroup memory). Sequence t,
// element i is read at  base + (t / period)·block + (t % period)·a + i·b  (p.read) and written at the same
// formula with p.write, so one kernel serves contiguous batches and both passes of a four-step
// plan. With OUTER, each output is multiplied by the four-step twiddle W_N^((t % period)·i) before the
// store. Twiddles come from float64-computed tables (WGSL's f32 cos/sin are too coarse).
//
// A stage of radix R has COLS·L/R butterflies; thread tid takes butterflies tid, tid + T, … . Each reads
// its R inputs, twiddled by W_(ns·R)^(r·k), into registers; after a barrier all write their outputs to
// their auto-sorted places (ns: the points already transformed together, the product of the earlier
// radices).
//
// The lines marked //! are replaced by the planner (electron/engine/backends/webgpu/mixed.ts): one
// source, one pipeline per size and layout. The values below make the file valid WGSL.

const L: u32 = 1000u; //! points of one transform
const COLS: u32 = 1u; //! transforms per workgroup
const T: u32 = 200u; //! threads per workgroup
const ROUNDS: u32 = 1u; //! butterflies a thread takes in the widest stage: ceil(COLS·L / (R·T))
const STAGES: u32 = 4u; //! stages: R0 … R(STAGES − 1) are used
const R0: u32 = 8u; //! radix of each stage (R0 first)
const R1: u32 = 5u; //!
const R2: u32 = 5u; //!
const R3: u32 = 5u; //!
const R4: u32 = 1u; //!
const R5: u32 = 1u; //!
const R6: u32 = 1u; //!
const R7: u32 = 1u; //!
const R8: u32 = 1u; //!
const R9: u32 = 1u; //!
const OUTER: bool = false; //! multiply by the four-step twiddles before the store
const LOAD_COLS_FAST: bool = false; //! adjacent threads load adjacent transforms (strided columns)
const STORE_COLS_FAST: bool = false; //! adjacent threads store adjacent transforms (transposed output)

const P: u32 = COLS * L;
const RADICES = array<u32, 10>(R0, R1, R2, R3, R4, R5, R6, R7, R8, R9);

// cos and sin of 2π/3, 2π·m/5 and 2π·m/7
const S3: f32 = 0.86602540378443864676;
const C51: f32 = 0.30901699437494742410;
const C52: f32 = -0.80901699437494742410;
const S51: f32 = 0.95105651629515357212;
const S52: f32 = 0.58778525229247312917;
const C71: f32 = 0.62348980185873353053;
const C72: f32 = -0.22252093395631440429;
const C73: f32 = -0.90096886790241912624;
const S71: f32 = 0.78183148246802980871;
const S72: f32 = 0.97492791218182360702;
const S73: f32 = 0.43388373911755812048;
const HALF_SQRT2: f32 = 0.70710678118654752440;

struct Params {
  count: u32, // transforms in this dispatch
  period: u32,
  block: u32,
  groupsX: u32, // workgroups along x of the dispatch
  read: vec4<u32>, // base, a, b of the loads (w unused)
  write: vec4<u32>, // base, a, b of the stores; w: outerSplit, W_N^m = outer[m % w] · outer[w + m / w]
  scale: f32,
  sign: f32, // exponent sign: −1 forward, +1 inverse (one pipeline serves both directions)
}

@group(0) @binding(0) var<storage, read> src: array<vec2<f32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec2<f32>>;
// (cos, sin)(2π·m/L) for m < L
@group(0) @binding(2) var<storage, read> tw: array<vec2<f32>>;
// (cos, sin)(2π·m/N) for m < split, then (cos, sin)(2π·m·split/N)  (split = p.write.w)
@group(0) @binding(3) var<storage, read> outer: array<vec2<f32>>;
@group(0) @binding(4) var<uniform> p: Params;

var<workgroup> buf: array<vec2<f32>, P>;
var<private> tid: u32;

fn cmul(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
  return vec2<f32>(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

// v times e^(sign·iπ/2)
fn isign(v: vec2<f32>) -> vec2<f32> {
  return p.sign * vec2<f32>(-v.y, v.x);
}

// (cos, sin) from a table → e^(sign·iθ)
fn conjIf(c: vec2<f32>) -> vec2<f32> {
  return vec2<f32>(c.x, p.sign * c.y);
}

// Sequence t's element i at base + (t / period)·block + (t % period)·a + i·b
fn address(t: u32, i: u32, s: vec4<u32>) -> u32 {
  return s.x + (t / p.period) * p.block + (t % p.period) * s.y + i * s.z;
}

// A butterfly's values: R of the 8 slots used.
alias Slots = array<vec2<f32>, 8>;

// The DFTs of the butterflies, of x[0 … R).
fn dft2(x: Slots) -> Slots {
  return Slots(x[0] + x[1], x[0] - x[1], x[2], x[3], x[4], x[5], x[6], x[7]);
}

fn dft3(x: Slots) -> Slots {
  let sum = x[1] + x[2];
  let m = x[0] - 0.5 * sum;
  let d = S3 * isign(x[1] - x[2]);
  return Slots(x[0] + sum, m + d, m - d, x[3], x[4], x[5], x[6], x[7]);
}

// DFT of four values; radix 4 and the two halves of radix 8
fn four(a: vec2<f32>, b: vec2<f32>, c: vec2<f32>, d: vec2<f32>) -> array<vec2<f32>, 4> {
  let s0 = a + c;
  let d0 = a - c;
  let s1 = b + d;
  let d1 = isign(b - d);
  return array<vec2<f32>, 4>(s0 + s1, d0 + d1, s0 - s1, d0 - d1);
}

fn dft4(x: Slots) -> Slots {
  let y = four(x[0], x[1], x[2], x[3]);
  return Slots(y[0], y[1], y[2], y[3], x[4], x[5], x[6], x[7]);
}

fn dft5(x: Slots) -> Slots {
  let b1 = x[1] + x[4];
  let b2 = x[2] + x[3];
  let d1 = x[1] - x[4];
  let d2 = x[2] - x[3];
  let m1 = x[0] + C51 * b1 + C52 * b2;
  let m2 = x[0] + C52 * b1 + C51 * b2;
  let n1 = isign(S51 * d1 + S52 * d2);
  let n2 = isign(S52 * d1 - S51 * d2);
  return Slots(x[0] + b1 + b2, m1 + n1, m2 + n2, m2 - n2, m1 - n1, x[5], x[6], x[7]);
}

fn dft7(x: Slots) -> Slots {
  let b1 = x[1] + x[6];
  let b2 = x[2] + x[5];
  let b3 = x[3] + x[4];
  let d1 = x[1] - x[6];
  let d2 = x[2] - x[5];
  let d3 = x[3] - x[4];
  let m1 = x[0] + C71 * b1 + C72 * b2 + C73 * b3;
  let m2 = x[0] + C72 * b1 + C73 * b2 + C71 * b3;
  let m3 = x[0] + C73 * b1 + C71 * b2 + C72 * b3;
  let n1 = isign(S71 * d1 + S72 * d2 + S73 * d3);
  let n2 = isign(S72 * d1 - S73 * d2 - S71 * d3);
  let n3 = isign(S73 * d1 - S71 * d2 + S72 * d3);
  return Slots(x[0] + b1 + b2 + b3, m1 + n1, m2 + n2, m3 + n3, m3 - n3, m2 - n2, m1 - n1, x[7]);
}

// Radix 8 as two DFTs of four (even and odd inputs) joined by W_8^k
fn dft8(x: Slots) -> Slots {
  let e = four(x[0], x[2], x[4], x[6]);
  let o = four(x[1], x[3], x[5], x[7]);
  let o1 = HALF_SQRT2 * (o[1] + isign(o[1]));
  let o2 = isign(o[2]);
  let o3 = HALF_SQRT2 * (isign(o[3]) - o[3]);
  return Slots(e[0] + o[0], e[1] + o1, e[2] + o2, e[3] + o3, e[0] - o[0], e[1] - o1, e[2] - o2, e[3] - o3);
}

fn butterfly(R: u32, x: Slots) -> Slots {
  switch R {
    case 2u: {
      return dft2(x);
    }
    case 3u: {
      return dft3(x);
    }
    case 4u: {
      return dft4(x);
    }
    case 5u: {
      return dft5(x);
    }
    case 7u: {
      return dft7(x);
    }
    default: {
      return dft8(x);
    }
  }
}

// One Stockham stage of radix R after stages whose radices multiply to ns. Loops run over constant
// bounds (ROUNDS, 8) so that the registers are indexed by constants once unrolled.
fn stage(R: u32, ns: u32) {
  let s = L / R; // butterflies per transform
  let stride = L / (ns * R); // W_(ns·R)^m = W_L^(m·stride)
  var v: array<Slots, ROUNDS>;
  for (var b = 0u; b < ROUNDS; b++) {
    let q = tid + b * T;
    if (q < COLS * s) {
      let c = q / s;
      let j = q % s;
      let k = j % ns;
      var x: Slots;
      for (var r = 0u; r < 8u; r++) {
        if (r < R) {
          x[r] = cmul(buf[c * L + j + r * s], conjIf(tw[r * k * stride]));
        }
      }
      v[b] = butterfly(R, x);
    }
  }
  workgroupBarrier();
  for (var b = 0u; b < ROUNDS; b++) {
    let q = tid + b * T;
    if (q < COLS * s) {
      let j = q % s;
      let d = (q / s) * L + (j / ns) * ns * R + j % ns;
      for (var r = 0u; r < 8u; r++) {
        if (r < R) {
          buf[d + r * ns] = v[b][r];
        }
      }
    }
  }
  workgroupBarrier();
}

// Element e of the workgroup's points → (transform c, index i): transforms side by side in memory,
// or, with colsFast, adjacent e in adjacent transforms (strided columns, transposed rows).
fn slot(e: u32, colsFast: bool) -> vec2<u32> {
  if (colsFast) {
    return vec2<u32>(e % COLS, e / COLS);
  }
  return vec2<u32>(e / L, e % L);
}

@compute @workgroup_size(T)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
  tid = lid;
  let first = (wid.y * p.groupsX + wid.x) * COLS;
  for (var e = tid; e < P; e += T) {
    let ci = slot(e, LOAD_COLS_FAST);
    let t = first + ci.x;
    if (t < p.count) {
      buf[ci.x * L + ci.y] = src[address(t, ci.y, p.read)];
    }
  }
  workgroupBarrier();
  var ns = 1u;
  for (var st = 0u; st < STAGES; st++) {
    let r = RADICES[st];
    stage(r, ns);
    ns *= r;
  }
  for (var e = tid; e < P; e += T) {
    let ci = slot(e, STORE_COLS_FAST);
    let t = first + ci.x;
    if (t < p.count) {
      var x = buf[ci.x * L + ci.y] * p.scale;
      if (OUTER) {
        let m = (t % p.period) * ci.y;
        let split = p.write.w;
        x = cmul(x, conjIf(cmul(outer[m % split], outer[split + m / split])));
      }
      dst[address(t, ci.y, p.write)] = x;
    }
  }
}
