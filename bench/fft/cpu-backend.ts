// Measurements behind the CPU backend's constants, printed side by side (medians of repeated runs):
//   1. scaling: a large batched FFT on the calling thread, 1 worker, 2 workers, … (up to the cores);
//   2. threshold: batched FFTs of growing cost inline vs on the pool → INLINE_COST_LIMIT;
//   3. fir-switch: direct form vs overlap-save per number of taps → FIR_DIRECT_MAX_TAPS;
//   4. corr-switch: direct vs FFT correlation per template length → CORR_DIRECT_MAX_LENGTH.
//
//   npx tsx bench/fft/cpu-backend.ts [scaling|threshold|fir-switch|corr-switch …]   (default: all)
import os from 'node:os';
import type { Backend } from '../../electron/engine/backends/backend.js';
import { createCpuBackend } from '../../electron/engine/backends/cpu/index.js';
import { fftCost } from '../../electron/engine/backends/cpu/executor.js';
import { CORR_DIRECT_MAX_LENGTH } from '../../electron/engine/backends/cpu/index.js';

function median(a: number[]): number {
  const s = [...a].sort((x, y) => x - y);
  return s[s.length >> 1];
}

function noise(n: number, seed: number): Float32Array {
  const x = new Float32Array(n);
  let s = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    x[i] = (s >>> 0) / 2 ** 31 - 1;
  }
  return x;
}

/** Median wall-clock milliseconds of `fn` over `rounds` runs after one warm-up run. */
async function time(fn: () => Promise<unknown>, rounds = 7): Promise<number> {
  return (await timeCpu(fn, rounds)).wall;
}

/** Median wall-clock and process CPU milliseconds (all threads) of `fn`. CPU time shows the work itself
 * when other processes compete for the cores (wall time then stretches, CPU time does not). */
async function timeCpu(fn: () => Promise<unknown>, rounds = 7): Promise<{ wall: number; cpu: number }> {
  await fn();
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await fn();
    wall.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  return { wall: median(wall), cpu: median(cpu) };
}

async function scaling(): Promise<void> {
  const n = 4096;
  const batch = 512;
  const x = noise(2 * n * batch, 1);
  const out = new Float32Array(x.length);
  const flop = batch * 5 * n * Math.log2(n);
  console.log(
    `\n1. scaling: batched complex FFT, n = ${n}, batch ${batch} (${(x.length * 4) / 2 ** 20} MiB in)`,
  );
  console.log(
    `   load average before: ${os.loadavg()[0].toFixed(2)} (other processes competing for the cores)`,
  );
  console.log('   threads   wall ms   CPU ms   transforms/s   GFLOP/s   speed-up');
  let base = 0;
  const counts = [0, 1, 2, 4, 8, 16].filter((t) => t <= os.availableParallelism());
  for (const threads of counts) {
    const b = await createCpuBackend({ threads, inlineCostLimit: threads === 0 ? Infinity : 0 });
    const { wall: ms, cpu } = await timeCpu(() => b.fft(x, n, { out }));
    if (threads === 0) base = ms;
    const label = threads === 0 ? 'calling' : String(threads);
    console.log(
      `   ${label.padStart(7)} ${ms.toFixed(1).padStart(9)} ${cpu.toFixed(1).padStart(8)} ${((batch / ms) * 1000).toFixed(0).padStart(14)} ` +
        `${(flop / ms / 1e6).toFixed(2).padStart(9)} ${(base / ms).toFixed(2).padStart(10)}`,
    );
    await b.dispose();
  }
}

async function threshold(): Promise<void> {
  console.log('\n2. threshold: batched FFT inline vs on the pool (all workers), median ms');
  console.log('      n  batch        cost     inline       pool   pool/inline');
  const inline = await createCpuBackend({ threads: 0 });
  const pool = await createCpuBackend({ inlineCostLimit: 0 });
  for (const [n, batch] of [
    [64, 16],
    [256, 16],
    [1024, 4],
    [1024, 16],
    [1024, 64],
    [4096, 1],
    [4096, 4],
    [4096, 16],
    [16384, 4],
    [65536, 4],
  ]) {
    const x = noise(2 * n * batch, n + batch);
    const out = new Float32Array(x.length);
    const a = await time(() => inline.fft(x, n, { out }), 15);
    const b = await time(() => pool.fft(x, n, { out }), 15);
    console.log(
      `${String(n).padStart(7)} ${String(batch).padStart(6)} ${(batch * fftCost(n)).toExponential(1).padStart(11)} ` +
        `${a.toFixed(3).padStart(10)} ${b.toFixed(3).padStart(10)} ${(b / a).toFixed(2).padStart(13)}`,
    );
  }
  await inline.dispose();
  await pool.dispose();
}

async function firSwitch(): Promise<void> {
  const frames = 1 << 20;
  const x = noise(frames, 3);
  console.log(`\n3. fir-switch: ${frames} real frames on the calling thread, Msamples/s (median)`);
  console.log('   taps     direct   overlap-save   faster');
  const b: Backend = await createCpuBackend({ threads: 0 });
  for (const taps of [4, 8, 12, 16, 24, 32, 48, 64, 128, 256]) {
    const h = noise(taps, taps);
    const rate: number[] = [];
    for (const method of ['direct', 'overlap-save'] as const) {
      const ms = await time(async () => {
        const f = b.createFir({ taps: h, complex: false, channels: 1, method });
        await f.process(x);
        await f.flush();
      }, 5);
      rate.push(frames / ms / 1000);
    }
    console.log(
      `   ${String(taps).padStart(4)} ${rate[0].toFixed(1).padStart(10)} ${rate[1].toFixed(1).padStart(14)}   ${
        rate[0] > rate[1] ? 'direct' : 'overlap-save'
      }`,
    );
  }
  await b.dispose();
}

async function corrSwitch(): Promise<void> {
  const samples = 1 << 19;
  const x = noise(samples, 4);
  console.log(`\n4. corr-switch: ${samples} real samples on the calling thread, Msamples/s (median)`);
  console.log('   template   Msamples/s   method (as built)');
  const b: Backend = await createCpuBackend({ threads: 0 });
  for (const m of [4, 8, 12, 16, 17, 24, 32, 48, 64, 128]) {
    const t = noise(m, m);
    const ms = await time(async () => {
      const c = b.createCorrelator({ template: t, complex: false });
      await c.process(x);
      await c.flush();
    }, 5);
    console.log(
      `   ${String(m).padStart(8)} ${(samples / ms / 1000).toFixed(1).padStart(18)}   ${m <= CORR_DIRECT_MAX_LENGTH ? 'direct' : 'fft'}`,
    );
  }
  await b.dispose();
}

const which = process.argv.slice(2);
const all = which.length === 0;
console.log(
  `CPU backend measurements, Node ${process.version}, ${os.availableParallelism()} cores, ${os.cpus()[0]?.model}`,
);
if (all || which.includes('scaling')) await scaling();
if (all || which.includes('threshold')) await threshold();
if (all || which.includes('fir-switch')) await firSwitch();
if (all || which.includes('corr-switch')) await corrSwitch();
