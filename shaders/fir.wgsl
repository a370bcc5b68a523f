// The FIR filter's kernels (electron/engine/backends/webgpu/fir.ts): y = lfilter(taps, 1, x) per lane of
// V interleaved real lanes. src is the stream's window on the device: frame i of it holds values
// [inBase + i·V, inBase + (i + 1)·V), the first M − 1 frames the history of the first output frame.
//   direct:  y[f, v] = Σ_k taps[k]·x[f + M − 1 − k, v]; products summed in blocks of 8, the blocks with
//            compensated (Kahan) summation, so long filters keep float32 accuracy.
//   gather:  overlap-save segments of L points, S = L − M + 1 outputs each; two lanes share one complex
//            row (lane 2p real, lane 2p + 1 imaginary: the taps are real); values at or past `available`
//            are zeros (the end of the stream).
//   scatter: output frame f, lane v from the row's point M − 1 + f mod S (after the FFT, the product with
//            the taps' spectrum and the inverse FFT).

const WG: u32 = 256u; //! threads per workgroup

struct Params {
  frames: u32, // output frames of this dispatch
  groupsX: u32,
  lanes: u32, // V
  numtaps: u32, // M
  total: u32, // invocations that do work
  size: u32, // L
  segment: u32, // S
  pairs: u32, // complex rows per segment: ceil(V / 2)
  available: u32, // values in src
  inBase: u32, // value index of this dispatch's first input frame
}

@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read> taps: array<f32>;
@group(0) @binding(2) var<storage, read_write> dst: array<f32>;
@group(0) @binding(3) var<storage, read_write> rows: array<vec2<f32>>;
@group(0) @binding(4) var<storage, read> y: array<vec2<f32>>;
@group(0) @binding(5) var<uniform> p: Params;

fn index(gid: vec3<u32>) -> u32 {
  return gid.y * p.groupsX * WG + gid.x;
}

@compute @workgroup_size(WG)
fn direct(@builtin(global_invocation_id) gid: vec3<u32>) {
  let g = index(gid);
  if (g >= p.total) {
    return;
  }
  let V = p.lanes;
  let M = p.numtaps;
  let f = g / V;
  let v = g % V;
  // x[f + M − 1 − k] for k = 0 … M − 1, newest first
  let newest = p.inBase + (f + M - 1u) * V + v;
  var sum = 0.0;
  var comp = 0.0;
  var k = 0u;
  loop {
    if (k >= M) {
      break;
    }
    let end = min(k + 8u, M);
    var block = 0.0;
    for (var i = k; i < end; i++) {
      block = block + taps[i] * src[newest - i * V];
    }
    let yk = block - comp;
    let t = sum + yk;
    comp = (t - sum) - yk;
    sum = t;
    k = end;
  }
  dst[g] = sum;
}

@compute @workgroup_size(WG)
fn gather(@builtin(global_invocation_id) gid: vec3<u32>) {
  let g = index(gid);
  if (g >= p.total) {
    return;
  }
  let r = g / p.size;
  let j = g % p.size;
  let seg = r / p.pairs;
  let lane = 2u * (r % p.pairs);
  let a = p.inBase + (seg * p.segment + j) * p.lanes + lane;
  var v = vec2<f32>(0.0, 0.0);
  if (a < p.available) {
    v.x = src[a];
    if (lane + 1u < p.lanes) {
      v.y = src[a + 1u];
    }
  }
  rows[g] = v;
}

@compute @workgroup_size(WG)
fn scatter(@builtin(global_invocation_id) gid: vec3<u32>) {
  let g = index(gid);
  if (g >= p.total) {
    return;
  }
  let f = g / p.lanes;
  let v = g % p.lanes;
  let seg = f / p.segment;
  let r = seg * p.pairs + v / 2u;
  let c = y[r * p.size + p.numtaps - 1u + f % p.segment];
  dst[g] = select(c.y, c.x, v % 2u == 0u);
}
