// Benchmark-only kernels (electron/engine/backends/webgpu/devtimer.ts): the copy that measures the
// device's bandwidth ceiling, and the steps of the spectrogram, overlap-save FIR and correlation as
// separate passes with a buffer between each, around the FFT planner's transforms. `phasor bench` times
// these "unfused" pipelines beside the processors to show what fusing the steps gains. One invocation
// per output value; the entry points share one parameter block (which fields an entry uses is said at it).
//   copy4:       ys4[i] = xs4[i]
//   decodeI16:   ys[i] = i16 sample i of raw · f0
//   frameWindow: frame f, point j: ys[f·n + j] = xs[f·hop + j] · tab[j]
//   power:       ys[i] = |cx[i]|² · (f1 for a real frame's DC and Nyquist bins, else f0); period = bins
//   toDb:        ys[i] = 10·log10(xs[i]) floored at f2
//   gatherOs:    segment s, point j: frame s·seg + j − (n − 1) of the input (`hop` frames, `lanes` values
//                a frame: real → (x, 0), complex → (I, Q)), zero outside
//   cmul:        cy[i] = cx[i] · ctab[i mod period]
//   scatterOs:   output frame f, lane v: point (n − 1) + f mod seg of segment f / seg, lane v
//   gatherReal:  segment s, point j: xs[s·seg + j], zero at and past `hop` values
//   square:      ys[i] = xs[i]²
//   chunkSums:   ys[c] = Σ xs[c·CHUNK …], `len` values in all
//   energy:      lag l: Σ xs[l … l + n) from whole chunks (tab) and the squares (xs) at both ends
//   score:       lag l = s·seg + t: |xs[s·len + t]| / (f0 · √tab[l]), 0 where the energy is 0

const WG: u32 = 256u; //! threads per workgroup
const CHUNK: u32 = 64u; //! squares per chunk sum
// 10·log10(2): 10·log10(p) = DB · log2(p)
const DB: f32 = 3.0102999566398120;

struct Params {
  total: u32, // invocations that do work
  groupsX: u32,
  n: u32, // frame length, taps, template length
  hop: u32, // frame step; values (gatherReal) or frames (gatherOs) of the input
  len: u32, // FFT points of a segment; chunkSums: values in all
  seg: u32, // outputs (frames, lags) per segment
  lanes: u32, // values per frame: 1 real, 2 complex
  period: u32, // bins of a row (power, cmul)
  f0: f32,
  f1: f32,
  f2: f32,
  f3: f32,
}

@group(0) @binding(0) var<storage, read> xs: array<f32>;
@group(0) @binding(1) var<storage, read_write> ys: array<f32>;
@group(0) @binding(2) var<storage, read> cx: array<vec2<f32>>;
@group(0) @binding(3) var<storage, read_write> cy: array<vec2<f32>>;
@group(0) @binding(4) var<storage, read> tab: array<f32>;
@group(0) @binding(5) var<storage, read> ctab: array<vec2<f32>>;
@group(0) @binding(6) var<storage, read> raw: array<u32>;
@group(0) @binding(7) var<uniform> p: Params;
@group(0) @binding(8) var<storage, read> xs4: array<vec4<f32>>;
@group(0) @binding(9) var<storage, read_write> ys4: array<vec4<f32>>;

fn index(gid: vec3<u32>) -> u32 {
  return gid.y * p.groupsX * WG + gid.x;
}

@compute @workgroup_size(WG)
fn copy4(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = index(gid);
  if (i < p.total) {
    ys4[i] = xs4[i];
  }
}

@compute @workgroup_size(WG)
fn decodeI16(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = index(gid);
  if (i >= p.total) {
    return;
  }
  let half = (raw[i >> 1u] >> (16u * (i & 1u))) & 0xffffu;
  ys[i] = f32(bitcast<i32>(half << 16u) >> 16u) * p.f0;
}

@compute @workgroup_size(WG)
fn frameWindow(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = index(gid);
  if (i >= p.total) {
    return;
  }
  let f = i / p.n;
  let j = i - f * p.n;
  ys[i] = xs[f * p.hop + j] * tab[j];
}

@compute @workgroup_size(WG)
fn power(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = index(gid);
  if (i >= p.total) {
    return;
  }
  let k = i % p.period;
  var s = p.f0;
  if (k == 0u || 2u * k == p.n) {
    s = p.f1;
  }
  let x = cx[i];
  ys[i] = dot(x, x) * s;
}

@compute @workgroup_size(WG)
fn toDb(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = index(gid);
  if (i >= p.total) {
    return;
  }
  let v = xs[i];
  var db = p.f2;
  if (v > 0.0) {
    db = max(DB * log2(v), p.f2);
  }
  ys[i] = db;
}

@compute @workgroup_size(WG)
fn gatherOs(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = index(gid);
  if (i >= p.total) {
    return;
  }
  let s = i / p.len;
  let j = i - s * p.len;
  let frame = i32(s * p.seg + j) - i32(p.n - 1u);
  var v = vec2<f32>(0.0, 0.0);
  if (frame >= 0 && u32(frame) < p.hop) {
    let at = u32(frame) * p.lanes;
    if (p.lanes == 2u) {
      v = vec2<f32>(xs[at], xs[at + 1u]);
    } else {
      v = vec2<f32>(xs[at], 0.0);
    }
  }
  cy[i] = v;
}

@compute @workgroup_size(WG)
fn cmul(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = index(gid);
  if (i >= p.total) {
    return;
  }
  let a = cx[i];
  let b = ctab[i % p.period];
  cy[i] = vec2<f32>(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

@compute @workgroup_size(WG)
fn scatterOs(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = index(gid);
  if (i >= p.total) {
    return;
  }
  let f = i / p.lanes;
  let lane = i - f * p.lanes;
  let s = f / p.seg;
  let v = cx[s * p.len + (p.n - 1u) + (f - s * p.seg)];
  if (lane == 0u) {
    ys[i] = v.x;
  } else {
    ys[i] = v.y;
  }
}

@compute @workgroup_size(WG)
fn gatherReal(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = index(gid);
  if (i >= p.total) {
    return;
  }
  let s = i / p.len;
  let at = s * p.seg + (i - s * p.len);
  var v = 0.0;
  if (at < p.hop) {
    v = xs[at];
  }
  ys[i] = v;
}

@compute @workgroup_size(WG)
fn square(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = index(gid);
  if (i < p.total) {
    ys[i] = xs[i] * xs[i];
  }
}

@compute @workgroup_size(WG)
fn chunkSums(@builtin(global_invocation_id) gid: vec3<u32>) {
  let c = index(gid);
  if (c >= p.total) {
    return;
  }
  let end = min(c * CHUNK + CHUNK, p.len);
  var acc = 0.0;
  for (var k = c * CHUNK; k < end; k++) {
    acc += xs[k];
  }
  ys[c] = acc;
}

@compute @workgroup_size(WG)
fn energy(@builtin(global_invocation_id) gid: vec3<u32>) {
  let l = index(gid);
  if (l >= p.total) {
    return;
  }
  let end = l + p.n;
  let c0 = (l + CHUNK - 1u) / CHUNK;
  let c1 = end / CHUNK;
  var acc = 0.0;
  if (c0 >= c1) {
    for (var k = l; k < end; k++) {
      acc += xs[k];
    }
  } else {
    for (var k = l; k < c0 * CHUNK; k++) {
      acc += xs[k];
    }
    for (var c = c0; c < c1; c++) {
      acc += tab[c];
    }
    for (var k = c1 * CHUNK; k < end; k++) {
      acc += xs[k];
    }
  }
  ys[l] = acc;
}

@compute @workgroup_size(WG)
fn score(@builtin(global_invocation_id) gid: vec3<u32>) {
  let l = index(gid);
  if (l >= p.total) {
    return;
  }
  let s = l / p.seg;
  let c = xs[s * p.len + (l - s * p.seg)];
  let e = tab[l];
  var v = 0.0;
  if (e > 0.0) {
    v = min(1.0, abs(c) / (p.f0 * sqrt(e)));
  }
  ys[l] = v;
}
