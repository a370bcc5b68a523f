// The spectrogram's kernels around the FFT (electron/engine/backends/webgpu/spectrogram.ts):
//   windowed: frame f, point j = src[inBase + f·hop + j] · window[j] (complex: I/Q pairs), one row per frame;
//   levels: the power of each bin, |X|² · norm (a real input's DC and Nyquist bins · normEdge; complex
//           rows in fftshift order), the max over each display column's bins [edges[c], edges[c+1]),
//           written as linear power and as dBFS floored at floorDb;
//   fold:   one invocation per column runs through the frames in order: the exponential average of the
//           linear power (a·new + (1 − a)·avg, the first frame since reset initialises it) and the peak
//           hold (max of the dB rows), kept in `state`; the average in dB and the peak follow the rows.

const WG: u32 = 256u; //! threads per workgroup
// 10·log10(2): 10·log10(p) = DB · log2(p)
const DB: f32 = 3.0102999566398120;

struct Params {
  n: u32, // frame length
  hop: u32, // samples between frame starts
  count: u32, // frames of this dispatch
  groupsX: u32,
  bins: u32, // bins per frame
  width: u32, // values per row (columns)
  complexIn: u32,
  total: u32, // invocations that do work
  first: u32, // fold: 1 when this dispatch's first frame starts the average
  inBase: u32, // windowed: value index of frame 0's first sample in src
  norm: f32,
  normEdge: f32,
  floorDb: f32,
  alpha: f32,
}

@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read> win: array<f32>;
@group(0) @binding(2) var<storage, read_write> frames: array<f32>;
@group(0) @binding(3) var<storage, read> spec: array<vec2<f32>>;
@group(0) @binding(4) var<storage, read_write> rows: array<f32>;
@group(0) @binding(5) var<storage, read_write> lin: array<f32>;
@group(0) @binding(6) var<storage, read_write> state: array<f32>;
@group(0) @binding(7) var<storage, read> edges: array<u32>;
@group(0) @binding(8) var<uniform> p: Params;

fn index(gid: vec3<u32>) -> u32 {
  return gid.y * p.groupsX * WG + gid.x;
}

fn toDb(v: f32) -> f32 {
  if (v > 0.0) {
    return max(DB * log2(v), p.floorDb);
  }
  return p.floorDb;
}

@compute @workgroup_size(WG)
fn windowed(@builtin(global_invocation_id) gid: vec3<u32>) {
  let g = index(gid);
  if (g >= p.total) {
    return;
  }
  let f = g / p.n;
  let j = g % p.n;
  let w = win[j];
  let s = f * p.hop + j;
  if (p.complexIn == 1u) {
    frames[2u * g] = src[p.inBase + 2u * s] * w;
    frames[2u * g + 1u] = src[p.inBase + 2u * s + 1u] * w;
  } else {
    frames[g] = src[p.inBase + s] * w;
  }
}

fn power(f: u32, k: u32) -> f32 {
  if (p.complexIn == 1u) {
    // row position k holds bin (k − ⌊n/2⌋) mod n
    let x = spec[f * p.n + (k + p.n - p.n / 2u) % p.n];
    return dot(x, x) * p.norm;
  }
  let x = spec[f * p.bins + k];
  var s = p.norm;
  if (k == 0u || 2u * k == p.n) {
    s = p.normEdge;
  }
  return dot(x, x) * s;
}

@compute @workgroup_size(WG)
fn levels(@builtin(global_invocation_id) gid: vec3<u32>) {
  let g = index(gid);
  if (g >= p.total) {
    return;
  }
  let f = g / p.width;
  let c = g % p.width;
  let lo = edges[c];
  let hi = edges[c + 1u];
  var m = power(f, lo);
  for (var k = lo + 1u; k < hi; k++) {
    m = max(m, power(f, k));
  }
  lin[g] = m;
  rows[g] = toDb(m);
}

@compute @workgroup_size(WG)
fn fold(@builtin(global_invocation_id) gid: vec3<u32>) {
  let c = index(gid);
  if (c >= p.width) {
    return;
  }
  let w = p.width;
  var avg = state[c];
  var peak = state[w + c];
  for (var f = 0u; f < p.count; f++) {
    let v = lin[f * w + c];
    if (f == 0u && p.first == 1u) {
      avg = v;
    } else {
      avg = p.alpha * v + (1.0 - p.alpha) * avg;
    }
    peak = max(peak, rows[f * w + c]);
  }
  state[c] = avg;
  state[w + c] = peak;
  rows[p.count * w + c] = toDb(avg);
  rows[(p.count + 1u) * w + c] = peak;
}
