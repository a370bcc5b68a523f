#!/usr/bin/env node
// End-to-end times (from pinned host memory and back, through the copy pipeline) of a few benchmark rows,
// in rounds, to tell a slow reading of run.mjs's e2e column from a real change: the same addon call as
// run.mjs (2^27 samples per FFT row, 2^26 per processor row, median of 10 after warm-ups), no reference.
//
//   node bench/cuda/e2e-rounds.mjs [--ops op:n,…] [--rounds 3]
// (default ops: fir:255,fir:1023,fir:31,corr:4096,fft:4194304,fft:16777216)
import { parseArgs } from 'node:util';
import { openDevice } from './device.mjs';

const { values: args } = parseArgs({
  options: {
    ops: { type: 'string', default: 'fir:255,fir:1023,fir:31,corr:4096,fft:4194304,fft:16777216' },
    rounds: { type: 'string', default: '3' },
  },
});
const ops = args.ops.split(',').map((s) => {
  const [op, n] = s.split(':');
  return { op, n: Number(n) };
});
const { ctx, info } = await openDevice();
console.log(info.device);
for (let round = 0; round < Number(args.rounds); round++) {
  const cells = [];
  for (const { op, n } of ops) {
    const batch = op === 'fft' || op === 'rfft' ? Math.max(1, Math.floor(2 ** 27 / n)) : 2 ** 26;
    const r = await ctx.benchmark(op, n, batch, false, 10, true);
    cells.push(`${op} ${n}: ${r.endToEndMs.toFixed(2)} ms`);
  }
  console.log(`round ${round}: ${cells.join(', ')}`);
}
await ctx.dispose();
