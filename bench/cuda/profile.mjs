#!/usr/bin/env node
// Hardware counters of the CUDA backend's main kernels, one ncu run each (clocks left alone):
//   node bench/cuda/profile.mjs OUTDIR        (runs ncu on itself with --one OP N BATCH [TUNING-JSON])
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchAddonPath, tuner } from './device.mjs';

const args = process.argv.slice(2);
if (args[0] === '--one') {
  const addon = createRequire(import.meta.url)(benchAddonPath());
  const ctx = new addon.Context();
  await ctx.init(0);
  if (args[4]) await tuner(addon, ctx).tune(JSON.parse(args[4])); // a tuning to profile (e.g. '{"osSplit":0}')
  const r = await ctx.benchmark(args[1], Number(args[2]), Number(args[3]), false, 1, false);
  console.log(JSON.stringify({ op: r.op, n: r.n, ms: r.kernelMs, plan: r.plan }));
  await ctx.dispose();
  process.exit(0);
}
const out = args[0] ?? '.';
const cases = [
  ['fft', 1024, 2 ** 17, 'fftColsReg'],
  ['fft', 4096, 2 ** 15, 'fftColsReg'],
  ['fft', 2 ** 20, 2 ** 7, 'fftColsReg'],
  ['rfft', 4096, 2 ** 15, 'kRfftFused'],
  ['spectrogram-i16', 4096, 2 ** 26, 'kSpecFused'],
  ['fir', 1023, 2 ** 26, 'kOverlapSave'],
  ['corr', 4096, 2 ** 26, 'kOverlapSave'],
];
for (const [op, n, batch, kernel] of cases) {
  const r = spawnSync(
    'ncu',
    [
      '--clock-control',
      'none',
      '-k',
      `regex:${kernel}`,
      '--launch-skip',
      '1',
      '--launch-count',
      '1',
      '--section',
      'SpeedOfLight',
      '--section',
      'Occupancy',
      '--section',
      'LaunchStats',
      '--section',
      'MemoryWorkloadAnalysis',
      '--section',
      'WarpStateStats',
      process.execPath,
      fileURLToPath(import.meta.url),
      '--one',
      op,
      String(n),
      String(batch),
    ],
    { encoding: 'utf8', timeout: 60_000 },
  );
  const text = `${r.stdout}\n${r.stderr}`;
  const file = path.join(out, 'ncu.txt');
  spawnSync('sh', ['-c', `cat >> ${JSON.stringify(file)}`], { input: `\n######## ${op} ${n}\n${text}` });
  const pick = (re) => text.match(re)?.[1] ?? '?';
  console.log(
    `${op} ${n}: ${pick(/Duration\s+\S+\s+([\d.,]+)/)} us, DRAM ${pick(/DRAM Throughput\s+%\s+([\d.]+)/)}%, memory ${pick(/Memory Throughput\s+%\s+([\d.]+)/)}%, SM ${pick(/Compute \(SM\) Throughput\s+%\s+([\d.]+)/)}%, occupancy ${pick(/Achieved Occupancy\s+%\s+([\d.]+)/)}%, regs ${pick(/Registers Per Thread\s+\S+\s+(\d+)/)}`,
  );
}
