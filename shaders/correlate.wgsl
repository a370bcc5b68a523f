// The normalized correlator's kernels (electron/engine/backends/webgpu/correlator.ts), lags as
// scipy.signal.correlate(x, t, mode='valid'):
//   score[l] = |Σ_k x[l + k]·conj(t[k])| / (‖t‖·‖x[l … l + M)‖), 0 where the window's energy is 0.
// src is the stream's window on the device (sample i at value VPS·i), its sample 0 the first lag's.
//   direct:   short templates: each lag's sum and window energy computed in one loop (an FFT's error,
//             relative to the whole segment, would swamp the score of a lag whose window is faint).
//   gather:   overlap-save rows of L points, S = L − M + 1 lags each, one segment a row (complex values,
//             or reals for the real FFT); samples at or past `available` values are zeros. Each segment is
//             transformed on its own, so a lag's score does not depend on how the stream was split.
//   chunks:   the energy of each chunk of B samples (B = CHUNK) from each segment's start, summed in
//             float32: every term is positive, so the sum has no cancellation whatever the stream's
//             length, and a lag's energy depends only on its segment's samples.
//   score:    the correlation from the inverse FFT of the row (after the product with conj(T)), the
//             window energy as the partial chunk at its start, the whole chunks, the partial chunk at its
//             end; WGSL has no float64, so energies are never differences of running sums.

const WG: u32 = 256u; //! threads per workgroup
const CHUNK: u32 = 64u; //! samples per energy chunk

struct Params {
  lags: u32, // lags of this dispatch
  groupsX: u32,
  vps: u32, // values per sample: 1 real, 2 complex
  templateLength: u32, // M
  total: u32, // invocations that do work
  size: u32, // L
  segment: u32, // S
  available: u32, // values in src
  inBase: u32, // sample index of this dispatch's first lag in src
  chunksPerSegment: u32, // ceil(L / CHUNK)
  templateNorm: f32,
}

@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> rows: array<vec2<f32>>;
@group(0) @binding(2) var<storage, read_write> energy: array<f32>;
@group(0) @binding(3) var<storage, read> y: array<vec2<f32>>;
@group(0) @binding(4) var<storage, read> chunkEnergy: array<f32>;
@group(0) @binding(5) var<storage, read_write> scores: array<f32>;
@group(0) @binding(6) var<uniform> p: Params;
@group(0) @binding(7) var<storage, read_write> rowsReal: array<f32>;
@group(0) @binding(8) var<storage, read> yReal: array<f32>;
@group(0) @binding(9) var<storage, read> tmpl: array<f32>;

fn index(gid: vec3<u32>) -> u32 {
  return gid.y * p.groupsX * WG + gid.x;
}

// Sample i (from inBase) as a complex value; zero past the end of the stream.
fn sample(i: u32) -> vec2<f32> {
  let a = (p.inBase + i) * p.vps;
  if (a >= p.available) {
    return vec2<f32>(0.0, 0.0);
  }
  if (p.vps == 2u) {
    return vec2<f32>(src[a], src[a + 1u]);
  }
  return vec2<f32>(src[a], 0.0);
}

fn normalized(c: f32, e: f32) -> f32 {
  if (e > 0.0 && p.templateNorm > 0.0) {
    return c / (p.templateNorm * sqrt(e));
  }
  return 0.0;
}

@compute @workgroup_size(WG)
fn direct(@builtin(global_invocation_id) gid: vec3<u32>) {
  let l = index(gid);
  if (l >= p.total) {
    return;
  }
  var acc = vec2<f32>(0.0, 0.0);
  var e = 0.0;
  for (var k = 0u; k < p.templateLength; k++) {
    let v = sample(l + k);
    var t = vec2<f32>(tmpl[k], 0.0);
    if (p.vps == 2u) {
      t = vec2<f32>(tmpl[2u * k], tmpl[2u * k + 1u]);
    }
    // v · conj(t)
    acc = acc + vec2<f32>(v.x * t.x + v.y * t.y, v.y * t.x - v.x * t.y);
    e = e + dot(v, v);
  }
  scores[l] = normalized(length(acc), e);
}

@compute @workgroup_size(WG)
fn gatherComplex(@builtin(global_invocation_id) gid: vec3<u32>) {
  let g = index(gid);
  if (g >= p.total) {
    return;
  }
  rows[g] = sample((g / p.size) * p.segment + g % p.size);
}

@compute @workgroup_size(WG)
fn gatherReal(@builtin(global_invocation_id) gid: vec3<u32>) {
  let g = index(gid);
  if (g >= p.total) {
    return;
  }
  rowsReal[g] = sample((g / p.size) * p.segment + g % p.size).x;
}

@compute @workgroup_size(WG)
fn chunks(@builtin(global_invocation_id) gid: vec3<u32>) {
  let c = index(gid);
  if (c >= p.total) {
    return;
  }
  let start = (c / p.chunksPerSegment) * p.segment + (c % p.chunksPerSegment) * CHUNK;
  var s = 0.0;
  for (var i = start; i < start + CHUNK; i++) {
    let v = sample(i);
    s = s + dot(v, v);
  }
  energy[c] = s;
}

@compute @workgroup_size(WG)
fn score(@builtin(global_invocation_id) gid: vec3<u32>) {
  let l = index(gid);
  if (l >= p.total) {
    return;
  }
  let seg = l / p.segment;
  let j = l % p.segment;
  var c: f32;
  if (p.vps == 2u) {
    c = length(y[seg * p.size + j]);
  } else {
    c = abs(yReal[seg * p.size + j]);
  }
  // the window [j, j + M) from the segment's start, in chunks of that segment
  let base = seg * p.segment;
  let end = j + p.templateLength;
  let c0 = (j + CHUNK - 1u) / CHUNK;
  let c1 = end / CHUNK;
  var e = 0.0;
  if (c0 >= c1) {
    for (var i = j; i < end; i++) {
      let v = sample(base + i);
      e = e + dot(v, v);
    }
  } else {
    for (var i = j; i < c0 * CHUNK; i++) {
      let v = sample(base + i);
      e = e + dot(v, v);
    }
    for (var k = c0; k < c1; k++) {
      e = e + chunkEnergy[seg * p.chunksPerSegment + k];
    }
    for (var i = c1 * CHUNK; i < end; i++) {
      let v = sample(base + i);
      e = e + dot(v, v);
    }
  }
  scores[l] = normalized(c, e);
}
