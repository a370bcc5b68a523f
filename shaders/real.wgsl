// Real-input transforms around the complex FFT (numpy.fft.rfft / irfft conventions).
// Even N: the N reals of a row are read as H = N/2 complex values z[n] = x[2n] + i·x[2n+1];
//   rfftPost:  X[k] = E[k] + W^k·O[k],  E = (Z[k] + conj Z[H−k])/2,  O = (Z[k] − conj Z[H−k])/(2i),  k ≤ H
//   irfftPre:  Z[k] = E[k] + i·O[k],    E = (X[k] + conj X[H−k])/2,  O = (X[k] − conj X[H−k])·W^−k/2
//   with W = e^(−2πi/N) from a float64-computed table; the inverse FFT of H points (1/H) then gives x.
// Odd N: the full complex FFT of N points, with widen / take (rfft) and hermitian / realPart (irfft).
// One invocation per output value; rows of a batch are consecutive.

const WG: u32 = 256u; //! threads per workgroup

struct Params {
  n: u32, // real length N
  total: u32, // values this dispatch writes
  groupsX: u32,
  inBase: u32, // in the input's own units (complex values, or floats for widen)
  outBase: u32,
}

@group(0) @binding(0) var<storage, read> src: array<vec2<f32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec2<f32>>;
// (cos, sin)(2π·k/N) for k ≤ N/2
@group(0) @binding(2) var<storage, read> tw: array<vec2<f32>>;
@group(0) @binding(3) var<uniform> p: Params;
@group(0) @binding(4) var<storage, read> srcReal: array<f32>;
@group(0) @binding(5) var<storage, read_write> dstReal: array<f32>;

fn cmul(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
  return vec2<f32>(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

fn conj(a: vec2<f32>) -> vec2<f32> {
  return vec2<f32>(a.x, -a.y);
}

fn index(gid: vec3<u32>) -> u32 {
  return gid.y * p.groupsX * WG + gid.x;
}

// Even N: H complex in per row, H + 1 bins out.
@compute @workgroup_size(WG)
fn rfftPost(@builtin(global_invocation_id) gid: vec3<u32>) {
  let g = index(gid);
  if (g >= p.total) {
    return;
  }
  let h = p.n / 2u;
  let row = g / (h + 1u);
  let k = g % (h + 1u);
  let base = p.inBase + row * h;
  let zk = src[base + k % h];
  let zc = conj(src[base + (h - k) % h]);
  let e = 0.5 * (zk + zc);
  let d = 0.5 * (zk - zc);
  let o = vec2<f32>(d.y, -d.x); // d / i
  let w = tw[k];
  dst[p.outBase + g] = e + cmul(vec2<f32>(w.x, -w.y), o);
}

// Even N: H + 1 bins in per row, H complex out. The imaginary parts of DC and Nyquist are ignored.
@compute @workgroup_size(WG)
fn irfftPre(@builtin(global_invocation_id) gid: vec3<u32>) {
  let g = index(gid);
  if (g >= p.total) {
    return;
  }
  let h = p.n / 2u;
  let row = g / h;
  let k = g % h;
  let base = p.inBase + row * (h + 1u);
  var xk = src[base + k];
  var xc = conj(src[base + h - k]);
  if (k == 0u) {
    xk.y = 0.0;
    xc.y = 0.0;
  }
  let e = 0.5 * (xk + xc);
  let o = cmul(0.5 * (xk - xc), tw[k]); // · W^−k
  dst[p.outBase + g] = e + vec2<f32>(-o.y, o.x);
}

// Odd N: N reals in per row, N complex out.
@compute @workgroup_size(WG)
fn widen(@builtin(global_invocation_id) gid: vec3<u32>) {
  let g = index(gid);
  if (g >= p.total) {
    return;
  }
  dst[p.outBase + g] = vec2<f32>(srcReal[p.inBase + g], 0.0);
}

// Odd N: the first (N + 1)/2 of N complex values per row.
@compute @workgroup_size(WG)
fn take(@builtin(global_invocation_id) gid: vec3<u32>) {
  let g = index(gid);
  if (g >= p.total) {
    return;
  }
  let bins = p.n / 2u + 1u;
  dst[p.outBase + g] = src[p.inBase + (g / bins) * p.n + g % bins];
}

// Odd N: (N + 1)/2 bins in per row, the full Hermitian spectrum of N out (imaginary part of DC ignored).
@compute @workgroup_size(WG)
fn hermitian(@builtin(global_invocation_id) gid: vec3<u32>) {
  let g = index(gid);
  if (g >= p.total) {
    return;
  }
  let bins = p.n / 2u + 1u;
  let row = g / p.n;
  let k = g % p.n;
  let base = p.inBase + row * bins;
  var v: vec2<f32>;
  if (k < bins) {
    v = src[base + k];
  } else {
    v = conj(src[base + p.n - k]);
  }
  if (k == 0u) {
    v.y = 0.0;
  }
  dst[p.outBase + g] = v;
}

// Odd N: the real parts of N complex values per row.
@compute @workgroup_size(WG)
fn realPart(@builtin(global_invocation_id) gid: vec3<u32>) {
  let g = index(gid);
  if (g >= p.total) {
    return;
  }
  dstReal[p.outBase + g] = src[p.inBase + g].x;
}
