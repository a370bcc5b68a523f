// The normalized correlator's kernels (electron/engine/backends/webgpu/correlator.ts), lags as
// scipy.signal.correlate(x, t, mode='valid'):
//   score[l] = |Σ_k x[l + k]·conj(t[k])| / (‖t‖·‖x[l … l + M)‖), 0 where the window's energy is 0.
// src is the stream's window on the device (sample i at value VPS·i), its sample 0 the first lag's.
// gather, spectrum and score are the overlap-save passes for segments larger than the fused kernel takes
// (shaders/fft_pow2.wgsl `convolve` with cv.score computes the scores of smaller ones in one pass).
//   direct:   short templates: each lag's sum and window energy computed in one loop (an FFT's error,
//             relative to the whole segment, would swamp the score of a lag whose window is faint).
//   gather:   overlap-save rows of L points, S = L − M + 1 lags each, one segment a row (complex values,
//             or reals for the real FFT); samples at or past `available` values are zeros. Each segment is
//             transformed on its own, so a lag's score does not depend on how the stream was split. The
//             same pass sums the energies of each row's chunks of 8 and of 64 samples, in float32: every
//             term is positive, so the sums have no cancellation, and a lag's energy depends only on its
//             segment's samples (WGSL has no float64: energies are never differences of running sums).
//   spectrum: real rows: the half-length FFT's output → rfft bins → product with conj(T) → the inverse's
//             input (real.wgsl's rfftPost, the product and irfftPre in one pass; the tables as there).
//   runs:     for every chunk of 64 of a row, the sum of the R = runLength() chunks from it (the chunks
//             of 64 a window holds, less one): eight independent loads a step.
//   score:    the correlation from the inverse FFT of the row, the window energy from the row's samples
//             and chunk sums (at most 7 + 7 single samples and chunks of 8, a run and one chunk of 64,
//             7 + 7 chunks of 8 and single samples; each size's terms counted first and added as
//             optional terms, so their loads go out together), written at outBase.
// Candidate peaks of a push (its scores at outBase, `lags` of them), as the CPU backend's findPeaks takes
// them: local maxima (> 0, greater than the left neighbour, not less than the right one):
//   candHist:      a histogram of the candidates' scores (BINS bins over [0, 1]);
//   candThreshold: the lowest bin from which the candidates fit the list (`capacity`), and the counts;
//   candExtract:   the candidates from that bin up, in any order (the host orders them).
// The host selects the peaks from the list; the list holds every candidate stronger than any it leaves
// out, so that selection equals the one over all candidates whenever it finds enough peaks.

const WG: u32 = 256u; //! threads per workgroup
const BINS: u32 = 2048u;
/** Lags one invocation of candHist looks at. */
const HIST_PER: u32 = 16u;
/** Words of the candidate list's header, after the histogram: count, minBin, total, band. */
const HEAD: u32 = 4u;

struct Params {
  lags: u32, // lags of this dispatch (candidates: of the push)
  groupsX: u32,
  vps: u32, // values per sample: 1 real, 2 complex
  templateLength: u32, // M
  total: u32, // invocations that do work
  size: u32, // L
  segment: u32, // S
  available: u32, // values in src
  inBase: u32, // sample index of this dispatch's first lag in src
  outBase: u32, // index in scores of this dispatch's first lag
  capacity: u32, // candidates the list holds
  templateNorm: f32,
}

@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(2) var<storage, read_write> energy8: array<f32>;
@group(0) @binding(4) var<storage, read> e8: array<f32>;
@group(0) @binding(5) var<storage, read_write> scores: array<f32>;
@group(0) @binding(6) var<uniform> p: Params;
// rows and the inverse's output y: L values a segment, complex ones as two floats
@group(0) @binding(7) var<storage, read_write> rows: array<f32>;
@group(0) @binding(8) var<storage, read> y: array<f32>;
@group(0) @binding(9) var<storage, read> tmpl: array<f32>;
@group(0) @binding(10) var<storage, read> rowIn: array<f32>;
@group(0) @binding(12) var<storage, read_write> energy64: array<f32>;
@group(0) @binding(13) var<storage, read> e64: array<f32>;
@group(0) @binding(14) var<storage, read> scoresIn: array<f32>;
// the histogram (BINS), the header (HEAD), then `capacity` lags and `capacity` scores (their bits)
@group(0) @binding(15) var<storage, read_write> cand: array<atomic<u32>>;
// spectrum: the half FFT's output z, the inverse's input, conj(T) (L/2 + 1 bins), (cos, sin)(2π·k/L)
@group(0) @binding(16) var<storage, read> z: array<vec2<f32>>;
@group(0) @binding(17) var<storage, read_write> zOut: array<vec2<f32>>;
@group(0) @binding(18) var<storage, read> spec: array<vec2<f32>>;
@group(0) @binding(19) var<storage, read> tw: array<vec2<f32>>;
// runs: the sums of R chunks of 64 from each chunk of 64 of the rows (written by runs, read by score)
@group(0) @binding(20) var<storage, read_write> runsOut: array<f32>;
@group(0) @binding(21) var<storage, read> runsIn: array<f32>;

var<workgroup> shared8: array<f32, WG>;
var<workgroup> localHist: array<atomic<u32>, BINS>;
var<workgroup> parts: array<u32, WG>;

fn index(gid: vec3<u32>) -> u32 {
  return gid.y * p.groupsX * WG + gid.x;
}

fn cmul(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
  return vec2<f32>(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

fn conj(a: vec2<f32>) -> vec2<f32> {
  return vec2<f32>(a.x, -a.y);
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
  scores[p.outBase + l] = normalized(length(acc), e);
}

// Eight consecutive row points an invocation (total = segments · L/8): the row's values, the energy of
// those 8 samples, and (every eighth invocation, from the workgroup's sums) of the 64 samples they start.
@compute @workgroup_size(WG)
fn gather(
  @builtin(global_invocation_id) gid: vec3<u32>,
  @builtin(local_invocation_index) lid: u32,
) {
  let g = index(gid);
  let live = g < p.total;
  var e = 0.0;
  if (live) {
    let per = p.size / 8u;
    let seg = g / per;
    let q = g % per;
    let first = seg * p.segment + 8u * q;
    let at = seg * p.size + 8u * q;
    for (var i = 0u; i < 8u; i++) {
      let v = sample(first + i);
      if (p.vps == 2u) {
        rows[2u * (at + i)] = v.x;
        rows[2u * (at + i) + 1u] = v.y;
      } else {
        rows[at + i] = v.x;
      }
      e = e + dot(v, v);
    }
    energy8[g] = e;
  }
  shared8[lid] = e;
  workgroupBarrier();
  if (live && lid % 8u == 0u) {
    var s = 0.0;
    for (var i = 0u; i < 8u; i++) {
      s = s + shared8[lid + i];
    }
    energy64[g / 8u] = s;
  }
}

// bin m ≤ L/2 of the rfft of a row, from the half-length FFT z of that row (base: its first point)
fn rfftBin(base: u32, h: u32, m: u32) -> vec2<f32> {
  let zk = z[base + m % h];
  let zc = conj(z[base + (h - m) % h]);
  let e = 0.5 * (zk + zc);
  let d = 0.5 * (zk - zc);
  let o = vec2<f32>(d.y, -d.x); // d / i
  let w = tw[m];
  return e + cmul(vec2<f32>(w.x, -w.y), o);
}

// Real rows: one invocation per point of the inverse's half-length input (total = segments · L/2).
@compute @workgroup_size(WG)
fn spectrum(@builtin(global_invocation_id) gid: vec3<u32>) {
  let g = index(gid);
  if (g >= p.total) {
    return;
  }
  let h = p.size / 2u;
  let row = g / h;
  let k = g % h;
  let base = row * h;
  var xk = cmul(rfftBin(base, h, k), spec[k]);
  var xc = conj(cmul(rfftBin(base, h, h - k), spec[h - k]));
  if (k == 0u) {
    xk.y = 0.0;
    xc.y = 0.0;
  }
  let e = 0.5 * (xk + xc);
  let o = cmul(0.5 * (xk - xc), tw[k]); // · W^−k
  zOut[g] = e + vec2<f32>(-o.y, o.x);
}

fn square(i: u32) -> f32 {
  if (p.vps == 2u) {
    let v = vec2<f32>(rowIn[2u * i], rowIn[2u * i + 1u]);
    return dot(v, v);
  }
  let v = rowIn[i];
  return v * v;
}

// Chunks of 64 in a run: one less than the fewest whole ones a window of M samples holds (it holds R or
// R + 1 once it is aligned to 64); 0 for windows under 128 samples.
fn runLength() -> u32 {
  return max(p.templateLength / 64u, 1u) - 1u;
}

// One invocation a chunk of 64 of the rows (total = segments · L/64): the sum of the run from it, within
// its row.
@compute @workgroup_size(WG)
fn runs(@builtin(global_invocation_id) gid: vec3<u32>) {
  let g = index(gid);
  if (g >= p.total) {
    return;
  }
  let per = p.size / 64u;
  let n = min(runLength(), per - g % per);
  var s = 0.0;
  var i = 0u;
  for (; i + 8u <= n; i += 8u) {
    s = s + (((e64[g + i] + e64[g + i + 1u]) + (e64[g + i + 2u] + e64[g + i + 3u])) +
      ((e64[g + i + 4u] + e64[g + i + 5u]) + (e64[g + i + 6u] + e64[g + i + 7u])));
  }
  for (; i < n; i++) {
    s = s + e64[g + i];
  }
  runsOut[g] = s;
}

// e plus the squares of the first n (at most 7) row samples from at.
fn squares7(e: f32, at: u32, n: u32) -> f32 {
  var s = e;
  for (var k = 0u; k < 7u; k++) {
    if (k < n) {
      s = s + square(at + k);
    }
  }
  return s;
}

// e plus the first n (at most 7) sums of chunks of 8 from index at of e8.
fn chunks7(e: f32, at: u32, n: u32) -> f32 {
  var s = e;
  for (var k = 0u; k < 7u; k++) {
    if (k < n) {
      s = s + e8[at + k];
    }
  }
  return s;
}

// The energy of row points [a, b) of segment seg (b − a = M): single samples up to a multiple of 8,
// chunks of 8 up to a multiple of 64, the whole chunks of 64 (a run, or a run and the chunk after it),
// then chunks of 8 and single samples to b.
fn windowEnergy(seg: u32, a: u32, b: u32) -> f32 {
  let rb = seg * p.size;
  let b8 = seg * (p.size / 8u);
  let b64 = seg * (p.size / 64u);
  let n1 = min((8u - a % 8u) % 8u, b - a);
  var e = squares7(0.0, rb + a, n1);
  var i = a + n1;
  let n8 = min(((64u - i % 64u) % 64u) / 8u, (b - i) / 8u);
  e = chunks7(e, b8 + i / 8u, n8);
  i += 8u * n8;
  let blocks = (b - i) / 64u;
  if (blocks > 0u) {
    let runs = runLength();
    let c = b64 + i / 64u;
    if (runs > 0u) {
      e = e + runsIn[c];
    }
    if (blocks > runs) {
      e = e + e64[c + runs];
    }
    i += 64u * blocks;
  }
  let m8 = (b - i) / 8u;
  e = chunks7(e, b8 + i / 8u, m8);
  i += 8u * m8;
  return squares7(e, rb + i, b - i);
}

@compute @workgroup_size(WG)
fn score(@builtin(global_invocation_id) gid: vec3<u32>) {
  let l = index(gid);
  if (l >= p.total) {
    return;
  }
  let seg = l / p.segment;
  let j = l % p.segment;
  let at = seg * p.size + j;
  var c: f32;
  if (p.vps == 2u) {
    c = length(vec2<f32>(y[2u * at], y[2u * at + 1u]));
  } else {
    c = abs(y[at]);
  }
  scores[p.outBase + l] = normalized(c, windowEnergy(seg, j, j + p.templateLength));
}

// A candidate as findPeaks (electron/engine/backends/stream.ts) takes it, among the push's lags.
fn isCandidate(i: u32) -> bool {
  let v = scoresIn[p.outBase + i];
  if (!(v > 0.0)) {
    return false;
  }
  if (i > 0u && !(v > scoresIn[p.outBase + i - 1u])) {
    return false;
  }
  if (i + 1u < p.lags && v < scoresIn[p.outBase + i + 1u]) {
    return false;
  }
  return true;
}

fn binOf(v: f32) -> u32 {
  return min(BINS - 1u, u32(max(v, 0.0) * f32(BINS)));
}

// HIST_PER lags an invocation, strided by the workgroup; per-workgroup counts added to the histogram.
@compute @workgroup_size(WG)
fn candHist(
  @builtin(global_invocation_id) gid: vec3<u32>,
  @builtin(local_invocation_index) lid: u32,
) {
  for (var b = lid; b < BINS; b += WG) {
    atomicStore(&localHist[b], 0u);
  }
  workgroupBarrier();
  let first = (index(gid) - lid) * HIST_PER + lid;
  for (var r = 0u; r < HIST_PER; r++) {
    let i = first + r * WG;
    if (i < p.lags && isCandidate(i)) {
      atomicAdd(&localHist[binOf(scoresIn[p.outBase + i])], 1u);
    }
  }
  workgroupBarrier();
  for (var b = lid; b < BINS; b += WG) {
    let n = atomicLoad(&localHist[b]);
    if (n > 0u) {
      atomicAdd(&cand[b], n);
    }
  }
}

// One workgroup: WG parts of BINS / WG bins, then the bins from the top while the list has room.
@compute @workgroup_size(WG)
fn candThreshold(@builtin(local_invocation_index) lid: u32) {
  let per = BINS / WG;
  var s = 0u;
  for (var b = lid * per; b < lid * per + per; b++) {
    s += atomicLoad(&cand[b]);
  }
  parts[lid] = s;
  workgroupBarrier();
  if (lid == 0u) {
    var total = 0u;
    for (var t = 0u; t < WG; t++) {
      total += parts[t];
    }
    var band = 0u;
    var t = WG;
    while (t > 0u && band + parts[t - 1u] <= p.capacity) {
      band += parts[t - 1u];
      t--;
    }
    var minBin = t * per;
    while (minBin > 0u && band + atomicLoad(&cand[minBin - 1u]) <= p.capacity) {
      band += atomicLoad(&cand[minBin - 1u]);
      minBin--;
    }
    atomicStore(&cand[BINS + 1u], minBin);
    atomicStore(&cand[BINS + 2u], total);
    atomicStore(&cand[BINS + 3u], band);
  }
}

@compute @workgroup_size(WG)
fn candExtract(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = index(gid);
  if (i >= p.lags || !isCandidate(i)) {
    return;
  }
  let v = scoresIn[p.outBase + i];
  if (binOf(v) < atomicLoad(&cand[BINS + 1u])) {
    return;
  }
  let k = atomicAdd(&cand[BINS], 1u);
  if (k < p.capacity) {
    atomicStore(&cand[BINS + HEAD + k], i);
    atomicStore(&cand[BINS + HEAD + p.capacity + k], bitcast<u32>(v));
  }
}
