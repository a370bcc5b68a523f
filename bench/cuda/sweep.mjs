#!/usr/bin/env node
// Plan variants of the CUDA FFT, side by side with raw cuFFT, in one run on the device: for choosing the
// defaults (columns per block of the strided passes, factor limits, the 8192 layout). Kernel time only
// (CUDA events inside the addon, median of 10 runs), 2^27 complex samples per run.
//
//   node bench/cuda/sweep.mjs [--sizes 8192,1048576] [--variants '[{"stridedCols":16}, …]']
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const argv = process.argv.slice(2);
const opt = (name) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const addonPath = path.resolve(
  process.env.PHASOR_CUDA_ADDON ?? path.join(root, 'native', 'build', 'cuda', 'phasor_cuda.node'),
);
if (!existsSync(addonPath)) {
  console.log(`no CUDA addon at ${addonPath}`);
  process.exit(2);
}
const addon = createRequire(import.meta.url)(addonPath);
if (!addon.probe().available) {
  console.log(`no CUDA device: ${addon.probe().reason}`);
  process.exit(2);
}
const total = Number(opt('--total') ?? 2 ** 27);
const sizes = (opt('--sizes') ?? '8192,16384,32768,65536,1048576,4194304,16777216').split(',').map(Number);
const variants = JSON.parse(opt('--variants') ?? '[{}]');
const ctx = new addon.Context();
console.log(`device: ${(await ctx.init(0)).device}`);
const ms = (r) => (r.available === false ? NaN : r.kernelMs);
for (const n of sizes) {
  const batch = Math.max(1, Math.floor(total / n));
  await ctx.setTuning({});
  const ref = await ctx
    .benchmark('fft', n, batch, true, 10, false)
    .catch((e) => ({ available: false, reason: e.message }));
  const cells = [];
  for (const v of variants) {
    await ctx.setTuning(v);
    const r = await ctx
      .benchmark('fft', n, batch, false, 10, false)
      .catch((e) => ({ available: false, reason: e.message }));
    cells.push(
      r.available === false
        ? `${JSON.stringify(v)} failed: ${r.reason}`
        : `${JSON.stringify(v)} ${r.plan}: ${ms(r).toFixed(3)} ms, x${(ms(ref) / ms(r)).toFixed(2)}, err ${r.relError.toExponential(1)}`,
    );
  }
  console.log(`n=${n} cuFFT ${ms(ref).toFixed(3)} ms\n  ${cells.join('\n  ')}`);
}
await ctx.setTuning({});
await ctx.dispose();
