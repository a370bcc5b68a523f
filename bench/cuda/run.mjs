#!/usr/bin/env node
// The CUDA backend's benchmark, side by side with raw cuFFT and the unfused cuFFT pipelines (and CuPy,
// from bench/cuda/cupy_ref.py's output), in one run on the device. Every timing is taken natively with
// CUDA events (bench/cuda/bench.cu); this script only chooses the cases and prints the table, last.
//
//   node bench/cuda/run.mjs [--quick] [--json out.json] [--cupy cupy.txt]
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { openDevice, tuner } from './device.mjs';

const argv = process.argv.slice(2);
const opt = (name) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const quick = argv.includes('--quick');
const smoke = argv.includes('--smoke'); // tiny sizes, to check this script against the CPU emulation
const onlySizes = opt('--fft-sizes')?.split(',').map(Number); // only these C2C sizes, nothing else
const jsonPath = opt('--json') ?? 'cuda-bench.json';
const cupyPath = opt('--cupy');

const { addon, ctx, info } = await openDevice();
console.log(`device: ${info.device}; fatbin: ${addon.build.archs}`);
// setTuning through the addon's own list of knobs (cuda/tuning.def): a variant naming no knob fails here
const { knobs, tune } = tuner(addon, ctx);

const results = [];
async function measure(group, op, n, batch, cufft, reps = 10, e2e = true) {
  let r;
  try {
    r = await ctx.benchmark(op, n, batch, cufft, reps, e2e);
  } catch (err) {
    r = { op, n, batch, impl: cufft ? 'cufft' : 'cuda', available: false, reason: err.message };
  }
  r.group = group;
  results.push(r);
  return r;
}
const fmt = (x, d = 4) => (Number.isFinite(x) ? x.toFixed(d) : '-');
const sci = (x) => (Number.isFinite(x) && x >= 0 ? x.toExponential(2) : '-');
const rows = [];
async function pair(group, op, n, batch, withRef = true) {
  const a = await measure(group, op, n, batch, false);
  const b = withRef ? await measure(group, op, n, batch, true) : { available: false, reason: 'no reference' };
  console.log(
    `  ${op.padEnd(16)} n=${String(n).padEnd(9)} cuda ${fmt(a.kernelMs).padStart(9)} ms (${a.available ? a.plan : a.reason}) err ${sci(
      a.relError,
    )} | ref ${b.available ? fmt(b.kernelMs).padStart(9) + ' ms err ' + sci(b.relError) : b.reason}`,
  );
  if (a.endToEndDiffers > 0)
    console.log(
      `  ${op} n=${n}: the end-to-end output differs from the kernel-only output in ${a.endToEndDiffers} values`,
    );
  rows.push({ group, a, b });
}

const total = smoke ? 2 ** 14 : quick ? 2 ** 22 : 2 ** 27;
const copy = await measure('ceiling', 'copy', 2 ** 20, quick ? 16 : 128, false);
const h2d = await measure('ceiling', 'h2d', 2 ** 20, quick ? 8 : 32, false);
const d2h = await measure('ceiling', 'd2h', 2 ** 20, quick ? 8 : 32, false);
const bw = (r) => r.bytes / (r.kernelMs * 1e-3);
const copyBw = bw(copy),
  h2dBw = bw(h2d),
  d2hBw = bw(d2h);
console.log(
  `device-to-device copy ${(copyBw / 1e9).toFixed(0)} GB/s (read + written), pinned H2D ${(h2dBw / 1e9).toFixed(1)} GB/s, D2H ${(d2hBw / 1e9).toFixed(1)} GB/s`,
);

console.log(`batched C2C FFT, ${total} complex samples per run`);
const sizes = [];
for (let k = 6; k <= (smoke ? 10 : 24); k++) sizes.push(2 ** k);
if (!smoke) sizes.push(1000, 3000, 48000);
for (const n of onlySizes ?? sizes) await pair('fft', 'fft', n, Math.max(1, Math.floor(total / n)));
if (onlySizes) {
  for (const { a, b } of rows)
    console.log(
      `${a.n}: ${fmt(a.kernelMs)} ms (${a.plan}), cuFFT ${fmt(b.kernelMs)} ms, ratio ${(b.kernelMs / a.kernelMs).toFixed(2)}, e2e ${fmt(a.endToEndMs, 2)} ms`,
    );
  await ctx.dispose();
  process.exit(0);
}
console.log('real FFT');
for (const n of smoke ? [1024] : [1024, 4096, 65536])
  await pair('rfft', 'rfft', n, Math.max(1, Math.floor(total / n)));
console.log('2D FFT');
await pair('fft2', 'fft2', smoke ? 64 : 1024, 1);
if (!smoke) await pair('fft2', 'fft2', 1024, quick ? 4 : 64);
console.log('spectrogram, N = 4096, hop 1024 (75% overlap), real input');
const specSamples = smoke ? 2 ** 14 : quick ? 2 ** 22 : 2 ** 26;
await pair('spectrogram', 'spectrogram-i16', 4096, specSamples);
await pair('spectrogram', 'spectrogram-f32', 4096, specSamples);
console.log('FIR, complex input');
const firSamples = smoke ? 2 ** 14 : quick ? 2 ** 22 : 2 ** 26;
for (const taps of smoke ? [31, 255] : [31, 63, 127, 255, 511, 1023, 2047, 4095])
  await pair('fir', 'fir', taps, firSamples);
console.log('correlation, template 4096');
await pair('corr', 'corr', 4096, firSamples);
await pair('corr', 'corr-complex', 4096, firSamples);

console.log('variants');
const notes = [];
const varied = new Set(['twiddleTable', 'onePassMax', 'factorMax', 'osMaxH']);
for (const n of smoke ? [1024] : [1024, 4096, 16384]) {
  await tune({ twiddleTable: true });
  const v = await measure('variant-twiddle', 'fft', n, total / n, false, 10, false);
  await tune({});
  v.impl = 'cuda-twiddle-table';
  notes.push(
    `n=${n}: twiddles from table rows ${fmt(v.kernelMs)} ms, error ${sci(v.relError)} (default: computed)`,
  );
}
await tune({ onePassMax: 8192 });
{
  const v = await measure('variant-passes', 'fft', 16384, total / 16384, false, 10, false);
  v.impl = 'cuda-2pass';
  notes.push(`n=16384 as ${v.plan}: ${fmt(v.kernelMs)} ms`);
}
for (const fm of [1024, 4096]) {
  await tune({ factorMax: fm });
  for (const n of smoke ? [2 ** 13] : [2 ** 20, 2 ** 22, 2 ** 24]) {
    const v = await measure('variant-passes', 'fft', n, total / n, false, 10, false);
    v.impl = `cuda-factor${fm}`;
    notes.push(`n=${n} as ${v.plan}: ${fmt(v.kernelMs)} ms`);
  }
}
// the kernels' choices (the knobs' defaults), each against its alternative
for (const [tuning, n, what] of [
  [{ wide8192: false }, 8192, '16 elements per thread (radix 2·16·16·16)'],
  [{ contigKernel: 2 }, 2048, 'the transposed-pass kernel'],
  [{ contigKernel: 2 }, 4096, 'the transposed-pass kernel'],
  [{ flatSmall: false }, 16, 'direct loads'],
  [{ flatSmall: false }, 32, 'direct loads'],
  [{ direct: false }, 2 ** 16, 'the transposing strided-pass kernel'],
  [{ direct: false }, 2 ** 20, 'the transposing strided-pass kernel'],
  [{ direct: false }, 2 ** 24, 'the transposing strided-pass kernel'],
  [{ directCols: 16 }, 2 ** 20, '16 columns per direct strided block'],
  [{ directVariant: 2 }, 2 ** 20, 'pass twiddles from R/4 + 3 sincospif'],
  [{ directVariant: 4 }, 2 ** 21, 'internal twiddles from five sincospif a pass'],
  [{ fewTwiddles: false }, 16384, 'internal twiddles from five sincospif a pass'],
  [{ fewTwiddles: false }, 8192, 'internal twiddles from five sincospif a pass'],
  [{ stridedCols: 8 }, 2 ** 18, '8 columns per transposed-store block'],
  [{ stridedThreads: 512 }, 2 ** 18, '512-thread strided blocks (16 columns at L = 512)'],
  [{ swizzle: false }, 2 ** 21, 'the odd-stride shared layout'],
  [{ passTwiddleTable: true }, 2 ** 20, 'pass twiddles from the two-level table'],
  [{ mix64: false }, 64, 'the power-of-two kernel (radix 4·16)'],
  [{ mixedFixed: false }, 1000, 'the run-time plan kernel'],
  [{ mixedFixed: false }, 3000, 'the run-time plan kernel'],
  [{ factors: [512, 512] }, 2 ** 18, 'balanced factors (512 x 512)'],
  [{ factors: [1024, 1024] }, 2 ** 20, 'balanced factors (1024 x 1024)'],
  [{ mixedRegister: false }, 1000, 'the shared-memory mixed-radix kernel'],
  [{ mixedRegister: false }, 3000, 'the shared-memory mixed-radix kernel'],
  [{ mixedRegister: false }, 48000, 'the shared-memory mixed-radix kernel'],
  [{ mixedThreads: 128 }, 1000, 'mixed-radix blocks of about 128 threads'],
  [{ mixedThreads: 256 }, 3000, 'mixed-radix blocks of about 256 threads'],
  [{ mixedPad: 1 }, 3000, 'padded mixed-radix exchanges'],
  [{ mixedPad: 2 }, 1536, 'unpadded mixed-radix exchanges'],
  [{ fastBase: false }, 8192, 'column bases by 64-bit divisions'],
  [{ fastBase: false }, 2 ** 20, 'column bases by 64-bit divisions'],
]) {
  if (smoke && n > 2 ** 13) continue;
  for (const k of Object.keys(tuning)) varied.add(k);
  await tune(tuning);
  const v = await measure('variant-kernel', 'fft', n, total / n, false, 10, false);
  v.impl = `cuda-${Object.keys(tuning)[0]}`;
  await tune({});
  const d = await measure('variant-kernel', 'fft', n, total / n, false, 10, false);
  d.impl = 'cuda-default';
  notes.push(`n=${n} with ${what}: ${fmt(v.kernelMs)} ms (default ${fmt(d.kernelMs)} ms)`);
}
await tune({ osMaxH: 4096 });
for (const [op, n] of [
  ['fir', 1023],
  ['fir', 2047],
  ['corr', 4096],
  ['corr-complex', 4096],
]) {
  const v = await measure('variant-os', op, n, firSamples, false, 10, false);
  v.impl = 'cuda-maxH4096';
  notes.push(`${op} ${n} with segments ≤ 4096-point FFTs: ${fmt(v.kernelMs)} ms (${v.plan})`);
}
// the fused kernels of 8192-point segments: two 4096-point halves (osSplit, complex; the default), 512 threads of 16
// elements, or 256 of 32 (osWide, by kind)
for (const [op, n, tuning, what] of [
  ['fir', 2047, { osSplit: 0 }, '256 threads of 32 elements (the default: two 4096-point halves)'],
  ['fir', 2047, { osSplit: 0, osWide: 0 }, '512 threads of 16 elements (the default: two 4096-point halves)'],
  ['fir', 4095, { osSplit: 0 }, '256 threads of 32 elements (the default: two 4096-point halves)'],
  ['fir', 4095, { osSplit: 0, osWide: 0 }, '512 threads of 16 elements (the default: two 4096-point halves)'],
  ['fir-os', 4095, { osWide: 2 }, '256 threads of 32 elements (the default: 512 of 16)'],
  ['corr', 4096, { osWide: 4 }, '256 threads of 32 elements (the default: 512 of 16)'],
  [
    'corr-complex',
    4096,
    { osSplit: 0, osWide: 4 },
    '256 threads of 32 elements (the default: two 4096-point halves)',
  ],
]) {
  for (const k of Object.keys(tuning)) varied.add(k);
  await tune(tuning);
  const v = await measure('variant-os', op, n, firSamples, false, 10, false);
  v.impl = `cuda-${Object.entries(tuning)
    .map(([k, x]) => k + x)
    .join('-')}`;
  await tune({});
  const d = await measure('variant-os', op, n, firSamples, false, 10, false);
  d.impl = 'cuda-default';
  notes.push(
    `${op} ${n}, 8192-point segments on ${what}: ${fmt(v.kernelMs)} ms (${v.plan}; default ${fmt(d.kernelMs)} ms, ${d.plan})`,
  );
}
let switchAt = 0;
for (const taps of smoke ? [8, 64] : [1, 2, 3, 4, 8, 16, 24, 32, 48, 64, 96, 128, 192, 256]) {
  const d = await measure('variant-fir-switch', 'fir-direct', taps, firSamples, false, 10, false);
  const o = await measure('variant-fir-switch', 'fir-os', taps, firSamples, false, 10, false);
  notes.push(
    `real FIR ${taps} taps: direct ${fmt(d.kernelMs)} ms, overlap-save ${fmt(o.kernelMs)} ms (${o.plan})`,
  );
  if (!switchAt && o.kernelMs < d.kernelMs) switchAt = taps;
}
for (const s of notes) console.log(`  ${s}`);
console.log('  knobs varied above (cuda/tuning.def):');
for (const k of knobs.values())
  if (varied.has(k.name)) console.log(`    ${k.name} (default ${JSON.stringify(k.default)}): ${k.meaning}`);
console.log(`  direct form is slower than overlap-save from ${switchAt} taps on (real input)`);

const cupy = {};
if (cupyPath && existsSync(cupyPath)) {
  for (const line of readFileSync(cupyPath, 'utf8').split('\n')) {
    const m = line.match(/^(\S+)\s+([0-9.eE+-]+)$/);
    if (m) cupy[m[1]] = Number(m[2]);
  }
}

writeFileSync(
  jsonPath,
  JSON.stringify(
    {
      device: info.device,
      details: info.details,
      date: new Date().toISOString(),
      copyBw,
      h2dBw,
      d2hBw,
      firDirectSwitchTaps: switchAt,
      cupy,
      results,
    },
    null,
    1,
  ),
);

// The table, last.
const lines = [];
lines.push(
  `${info.device} — copy ${(copyBw / 1e9).toFixed(0)} GB/s, pinned H2D ${(h2dBw / 1e9).toFixed(1)} GB/s, D2H ${(d2hBw / 1e9).toFixed(1)} GB/s`,
);
lines.push(
  ['op', 'n', 'ms', 'Gsmp/s', 'GB/s', '%copy', 'ref ms', 'ratio', 'e2e ms', '%H2D', '%bus', 'error', 'target']
    .map((h, i) => (i === 0 ? h.padEnd(16) : i === 12 ? h : h.padStart(8)))
    .join(' '),
);
const targets = [];
for (const { group, a, b } of rows) {
  if (!a.available) {
    lines.push(`${a.op.padEnd(16)} ${String(a.n).padStart(8)} unavailable: ${a.reason}`);
    continue;
  }
  const gbs = a.bytes / (a.kernelMs * 1e-3) / 1e9;
  const ratio = b.available && b.kernelMs > 0 ? b.kernelMs / a.kernelMs : NaN;
  // bytes copied up: the spectrogram's input (its rows are larger), the correlator's samples (its scores are
  // 4 bytes a lag whatever the input), the real FFT's n reals, otherwise half of what the kernel reads and
  // writes; bytes copied back: the rest of what the kernel reads and writes
  const inBytes =
    group === 'spectrogram'
      ? a.batch * (a.op.endsWith('i16') ? 2 : 4)
      : group === 'corr'
        ? a.batch * (a.op === 'corr-complex' ? 8 : 4)
        : group === 'rfft'
          ? a.n * a.batch * 4
          : a.bytes / 2;
  const outBytes = a.bytes - inBytes;
  const e2eS = a.endToEndMs * 1e-3;
  const e2ePct = a.endToEndMs > 0 ? (inBytes / e2eS / h2dBw) * 100 : NaN;
  // the bus floor: the larger of the two copies at the measured pinned bandwidths (they run concurrently)
  const busPct = a.endToEndMs > 0 ? (Math.max(inBytes / h2dBw, outBytes / d2hBw) / e2eS) * 100 : NaN;
  let target = '';
  const pow2 = (a.n & (a.n - 1)) === 0;
  if (group === 'fft' && pow2) {
    const want = a.n <= 8192 ? 0.95 : 0.9;
    target = `≥${want}× cuFFT ${ratio >= want ? 'met' : 'MISSED'}`;
  } else if (group === 'spectrogram') target = `≥4× unfused ${ratio >= 4 ? 'met' : 'MISSED'}`;
  else if (group === 'fir' || group === 'corr') {
    target = `≥2.5× cuFFT pipeline ${ratio >= 2.5 ? 'met' : 'MISSED'}`;
    const key =
      group === 'fir' ? `oaconvolve_${a.n}` : a.op === 'corr' ? 'correlate_real' : 'correlate_complex';
    if (cupy[key]) {
      const x = cupy[key] / a.kernelMs;
      target += `; ${x.toFixed(1)}× CuPy ${x >= 8 ? 'met' : 'MISSED'}`;
    }
  }
  if (group === 'fft' && pow2 && a.n >= 2 ** 16)
    target += `; e2e ≥80% H2D ${e2ePct >= 80 ? 'met' : 'MISSED'}`;
  if (a.endToEndDiffers > 0) target += `; e2e output DIFFERS in ${a.endToEndDiffers} values`;
  if (target) targets.push(`${a.op} ${a.n}: ${target}`);
  lines.push(
    [
      a.op.padEnd(16),
      String(a.n).padStart(8),
      fmt(a.kernelMs).padStart(8),
      (a.samplesPerSecond / 1e9).toFixed(1).padStart(8),
      gbs.toFixed(0).padStart(8),
      ((gbs * 1e9 * 100) / copyBw).toFixed(0).padStart(8),
      (b.available ? fmt(b.kernelMs) : '-').padStart(8),
      (Number.isFinite(ratio) ? ratio.toFixed(2) : '-').padStart(8),
      (a.endToEndMs > 0 ? fmt(a.endToEndMs, 2) : '-').padStart(8),
      (Number.isFinite(e2ePct) ? e2ePct.toFixed(0) : '-').padStart(8),
      (Number.isFinite(busPct) ? busPct.toFixed(0) : '-').padStart(8),
      (Number.isFinite(a.relError) && a.relError >= 0 ? a.relError.toExponential(1) : '-').padStart(8),
      target,
    ].join(' '),
  );
}
lines.push(
  'ms: kernel-only median (CUDA events, data on the device); ref: raw cuFFT, or for spectrogram/FIR/correlation the unfused',
  'cuFFT pipeline; ratio = ref ms / cuda ms; e2e: from pinned host memory and back, the same data as ms, in pieces (copies up on',
  'one stream, kernels on another, copies back on a third); %H2D: input bytes per e2e second over the pinned H2D bandwidth;',
  '%bus: the bus floor, max(input bytes / pinned H2D, output bytes / D2H bandwidth), over the e2e time (100: both copies',
  'at full speed and everything else hidden behind them); error: relative L2 (FFT, FIR), max |dB| (spectrogram),',
  `max |score| (correlation) against float64. CuPy: ${
    Object.keys(cupy).length
      ? Object.entries(cupy)
          .map(([k, v]) => `${k} ${v} ms`)
          .join(', ')
      : 'not measured'
  }.`,
);
const table = lines.join('\n');
writeFileSync(jsonPath.replace(/\.json$/, '') + '-table.txt', table + '\n');
console.log('\n' + table);
await ctx.dispose();
