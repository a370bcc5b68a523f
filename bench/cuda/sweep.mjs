#!/usr/bin/env node
// Plan variants of the CUDA FFT, side by side with raw cuFFT, in one run on the device: for choosing the
// defaults (columns per block of the strided passes, factor limits, the 8192 layout). Kernel time only
// (CUDA events inside the addon, median of 10 runs), 2^27 complex samples per run.
//
//   node bench/cuda/sweep.mjs [--sizes 8192,1048576] [--variants '[{"stridedCols":16}, …]']
//   node bench/cuda/sweep.mjs --op spectrogram-i16 --sizes 4096 --total 67108864 --variants …
// Other ops than fft (rfft, spectrogram-*, fir, corr…; the reference is the benchmark's, cuFFT or the unfused
// cuFFT pipeline) take --total as the benchmark's batch (samples), not divided by n.
import { parseArgs } from 'node:util';
import { openDevice, tuner } from './device.mjs';

const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string' },
    variants: { type: 'string' },
    total: { type: 'string' },
    op: { type: 'string' },
  },
});
const { addon, ctx, info } = await openDevice();
const { tune } = tuner(addon, ctx); // refuses a knob cuda/tuning.def does not declare
const total = Number(args.total ?? 2 ** 27);
const sizes = (args.sizes ?? '8192,16384,32768,65536,1048576,4194304,16777216').split(',').map(Number);
const variants = JSON.parse(args.variants ?? '[{}]');
const op = args.op ?? 'fft';
console.log(`device: ${info.device}`);
const ms = (r) => (r.available === false ? NaN : r.kernelMs);
for (const n of sizes) {
  const batch = op === 'fft' || op === 'rfft' ? Math.max(1, Math.floor(total / n)) : total;
  await tune({});
  const ref = await ctx
    .benchmark(op, n, batch, true, 10, false)
    .catch((e) => ({ available: false, reason: e.message }));
  const cells = [];
  for (const v of variants) {
    await tune(v);
    const r = await ctx
      .benchmark(op, n, batch, false, 10, false)
      .catch((e) => ({ available: false, reason: e.message }));
    cells.push(
      r.available === false
        ? `${JSON.stringify(v)} failed: ${r.reason}`
        : `${JSON.stringify(v)} ${r.plan}: ${ms(r).toFixed(3)} ms${ref.available === false ? '' : `, x${(ms(ref) / ms(r)).toFixed(2)}`}, err ${r.relError.toExponential(1)}`,
    );
  }
  const refText =
    ref.available === false ? `reference not measured (${ref.reason})` : `reference ${ms(ref).toFixed(3)} ms`;
  console.log(`${op} n=${n} ${refText}\n  ${cells.join('\n  ')}`);
}
await tune({});
await ctx.dispose();
