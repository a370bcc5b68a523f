// Bluestein's chirp-z transform of any length N through power-of-two FFTs of M ≥ 2N − 1 points:
//   X[k] = w[k] · Σ_n (x[n]·w[n]) · conj(w[k − n]),   w[n] = e^(SIGN·iπ·n²/N)
// pre: a = x·w zero-padded to M; mul: A ·= FFT_M(conj w)/M (the filter, computed in float64 on the host);
// post: X = w · IFFT_M(A) · scale. The FFTs between them are fft_pow2.wgsl's.
// One invocation per output point; rows of a batch are consecutive.

const WG: u32 = 256u; //! threads per workgroup

struct Params {
  n: u32, // transform length N
  m: u32, // padded length M
  total: u32, // points this dispatch writes
  groupsX: u32,
  inBase: u32,
  outBase: u32,
  scale: f32,
}

@group(0) @binding(0) var<storage, read> src: array<vec2<f32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec2<f32>>;
// pre and post: the chirp w[n] (n < N); mul: the filter spectrum (M points)
@group(0) @binding(2) var<storage, read> table: array<vec2<f32>>;
@group(0) @binding(3) var<uniform> p: Params;

fn cmul(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
  return vec2<f32>(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

fn index(gid: vec3<u32>) -> u32 {
  return gid.y * p.groupsX * WG + gid.x;
}

@compute @workgroup_size(WG)
fn pre(@builtin(global_invocation_id) gid: vec3<u32>) {
  let g = index(gid);
  if (g >= p.total) {
    return;
  }
  let row = g / p.m;
  let j = g % p.m;
  var v = vec2<f32>(0.0, 0.0);
  if (j < p.n) {
    v = cmul(src[p.inBase + row * p.n + j], table[j]);
  }
  dst[p.outBase + g] = v;
}

@compute @workgroup_size(WG)
fn mul(@builtin(global_invocation_id) gid: vec3<u32>) {
  let g = index(gid);
  if (g >= p.total) {
    return;
  }
  dst[p.outBase + g] = cmul(src[p.inBase + g], table[g % p.m]);
}

@compute @workgroup_size(WG)
fn post(@builtin(global_invocation_id) gid: vec3<u32>) {
  let g = index(gid);
  if (g >= p.total) {
    return;
  }
  let row = g / p.n;
  let k = g % p.n;
  dst[p.outBase + g] = cmul(src[p.inBase + row * p.m + k], table[k]) * p.scale;
}
