// Measurements of the CPU backend, printed side by side (medians of interleaved rounds):
//   scaling      a large batched FFT on the calling thread and on 1, 2, 4… workers: wall time, transforms/s,
//                speed-up, and the CPU time of the calling thread and of each worker;
//   workers-cpu  CPU time of the same batch computed on the calling thread and in one worker, per N;
//   batch        backend.fft on Float32Array batches of ≈ 2^20 complex samples, single-threaded, against
//                fft.js doing the same batch with its own conversions (Msamples/s per N);
//   threshold    batched FFTs of growing cost inline vs on the pool → INLINE_COST_LIMIT;
//   fir-switch   direct form vs overlap-save per number of taps → FIR_DIRECT_MAX_TAPS;
//   corr-switch  direct vs FFT correlation per template length → CORR_DIRECT_MAX_LENGTH.
//
//   npx tsx bench/fft/cpu-backend.ts [section …] [--threads 1,2,4,8,16] [--n 4096] [--batch 256]
//                                    [--rounds 11] [--candidates DIR] [--baseline DIR]
//
// Default: every section. --threads lists the worker counts of `scaling` (default: 1, 2, 4… up to the
// cores); the calling thread is always the first row. --baseline DIR adds the backend of another checkout
// (e.g. a copy of the previous commit) to `workers-cpu` and `batch`. --candidates is the node_modules
// folder holding fft.js for `batch` (default /tmp/fftcand/node_modules; see libraries.ts).
//
// Thread CPU time comes from /proc/thread-self/schedstat (Linux): exact in sum, but read at scheduler
// ticks, so a single reading is only good to a few ms; the figures are sums over all rounds divided by
// the rounds. Elsewhere the per-thread columns print n/a.

import { openSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Backend } from '../../electron/engine/backends/backend.js';
import {
  CORR_DIRECT_MAX_LENGTH,
  cpuBackendPool,
  createCpuBackend,
  type CpuBackendOptions,
} from '../../electron/engine/backends/cpu/index.js';
import { fftCost } from '../../electron/engine/backends/cpu/executor.js';
import { interleave, isChild, median, pairedRatio, serveChild, spreadPct } from './interleave.js';

interface Args {
  sections: string[];
  threads: number[];
  n: number;
  batch: number;
  rounds: number;
  candidates: string;
  baseline?: string;
}

function parseArgs(argv: string[]): Args {
  const cores = os.availableParallelism();
  const args: Args = {
    sections: [],
    threads: [1, 2, 4, 8, 16, 32, 64].filter((t) => t <= cores),
    n: 4096,
    batch: 256,
    rounds: 11,
    candidates: '/tmp/fftcand/node_modules',
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const v = argv[i + 1];
    if (!a.startsWith('--')) {
      args.sections.push(a);
      continue;
    }
    if (a === '--threads') args.threads = v.split(',').map(Number);
    else if (a === '--n') args.n = Number(v);
    else if (a === '--batch') args.batch = Number(v);
    else if (a === '--rounds') args.rounds = Number(v);
    else if (a === '--candidates') args.candidates = v;
    else if (a === '--baseline') args.baseline = v;
    else if (a === '--child') {
      i++;
      continue;
    } else throw new Error(`unknown option ${a}`);
    i++;
  }
  if (args.threads.some((t) => !Number.isInteger(t) || t < 1))
    throw new Error('--threads: positive integers');
  return args;
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

function cpuMs(): number {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
}

/** CPU time of the calling thread in ms (Linux), or NaN. */
let statFd: number | null | undefined;
const statBuf = Buffer.alloc(96);
function threadCpuMs(): number {
  if (statFd === undefined) {
    try {
      statFd = openSync('/proc/thread-self/schedstat', 'r');
    } catch {
      statFd = null;
    }
  }
  if (statFd === null) return NaN;
  const len = readSync(statFd, statBuf, 0, statBuf.length, 0);
  return Number(statBuf.toString('latin1', 0, len).split(' ')[0]) / 1e6;
}

const f = (v: number, digits = 1) => (Number.isFinite(v) ? v.toFixed(digits) : 'n/a');

/** Loads createCpuBackend from this checkout or from another one (--baseline). */
async function backendFactory(root?: string): Promise<(o: CpuBackendOptions) => Promise<Backend>> {
  if (root === undefined) return createCpuBackend;
  const url = pathToFileURL(path.resolve(root, 'electron/engine/backends/cpu/index.ts')).href;
  return (await import(url)).createCpuBackend;
}

/** Median wall-clock ms of `fn` over `rounds` runs after `warm` warm-up runs (kernels are generated and
 * compiled per size, in every worker, on first use). */
async function time(fn: () => Promise<unknown>, rounds = 7, warm = 10): Promise<number> {
  for (let i = 0; i < warm; i++) await fn();
  const wall: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    await fn();
    wall.push(performance.now() - t0);
  }
  return median(wall);
}

// ------------------------------------------------------------------------------------------------

interface Config {
  label: string;
  backend: Backend;
  workers: number;
  /** Input and output of this config instead of the common ones (e.g. arrays in shared memory). */
  io?: [Float32Array, Float32Array];
  wall: number[];
  cpu: number[];
  main: number[];
}

/** Runs the same batch on every config, round-robin (rotating who goes first), collecting times. */
async function roundRobin(
  configs: Config[],
  rounds: number,
  x: Float32Array,
  n: number,
  out: Float32Array,
): Promise<void> {
  for (const c of configs) {
    // Start the workers and warm every thread's JIT before timing.
    await cpuBackendPool(c.backend)?.warm();
    const [cx, cout] = c.io ?? [x, out];
    for (let i = 0; i < 5; i++) await c.backend.fft(cx, n, { out: cout });
    cpuBackendPool(c.backend)?.measure(true);
  }
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < configs.length; k++) {
      const c = configs[(r + k) % configs.length];
      const [cx, cout] = c.io ?? [x, out];
      const c0 = cpuMs();
      const m0 = threadCpuMs();
      const t0 = performance.now();
      await c.backend.fft(cx, n, { out: cout });
      c.wall.push(performance.now() - t0);
      c.main.push(threadCpuMs() - m0);
      c.cpu.push(cpuMs() - c0);
    }
  }
}

async function scaling(args: Args): Promise<void> {
  const { n, batch } = args;
  const x = noise(2 * n * batch, 1);
  const out = new Float32Array(x.length);
  console.log(
    `\nscaling: batched complex FFT, n = ${n}, batch ${batch} (${(x.length * 4) / 2 ** 20} MiB in), ` +
      `${args.rounds} interleaved rounds, load average before ${os.loadavg()[0].toFixed(2)}`,
  );
  const configs: Config[] = [];
  for (const t of [0, ...args.threads]) {
    configs.push({
      label: t === 0 ? 'calling' : String(t),
      workers: t,
      backend: await createCpuBackend({ threads: t, inlineCostLimit: t === 0 ? Infinity : 0 }),
      wall: [],
      cpu: [],
      main: [],
    });
  }
  await roundRobin(configs, args.rounds, x, n, out);
  const base = configs[0];
  console.log(
    '   threads   wall ms (±IQR)   transforms/s   speed-up   process CPU ms   calling-thread CPU ms   ' +
      'CPU ms per worker (mean / max)',
  );
  for (const c of configs) {
    const wall = median(c.wall);
    const stats = cpuBackendPool(c.backend)?.collected();
    const per = stats?.workers.map((w) => w.cpuMs / args.rounds) ?? [];
    const workers =
      per.length === 0 ? '' : `${f(per.reduce((a, b) => a + b, 0) / per.length)} / ${f(Math.max(...per))}`;
    const sp = pairedRatio(base.wall, c.wall);
    console.log(
      `   ${c.label.padStart(7)} ${f(wall).padStart(9)} (±${f(spreadPct(c.wall), 0)}%)` +
        `${((batch / wall) * 1000).toFixed(0).padStart(15)} ${sp.mid.toFixed(2).padStart(10)}` +
        `${f(median(c.cpu)).padStart(17)} ${f(c.main.reduce((a, b) => a + b, 0) / args.rounds).padStart(23)}   ${workers}`,
    );
    await c.backend.dispose();
  }
  console.log(
    '   speed-up: median of the round-by-round wall-time ratios to the calling thread. Wall time needs idle ' +
      'cores: with other processes running, compare the CPU columns (total and per thread) instead.',
  );
}

// ------------------------------------------------------------------------------------------------

async function workersCpu(args: Args): Promise<void> {
  const total = 1 << 20;
  console.log(
    `\nworkers-cpu: CPU ms of one batch of ${total} complex samples (process CPU, all threads; median of ` +
      `${args.rounds} interleaved rounds) on the calling thread, in one worker, and in one worker with input ` +
      `and output already in shared memory (no copies in and out); ratios are round-by-round medians`,
  );
  const sources: Array<[string, string | undefined]> = [['', undefined]];
  if (args.baseline !== undefined) sources.push(['before ', args.baseline]);
  const head = [
    'calling',
    'worker',
    'worker/calling',
    'worker (shared I/O)',
    'shared/calling',
    ...(args.baseline ? ['before calling', 'before worker', 'before worker/calling'] : []),
  ];
  console.log('       N ' + head.map((h) => h.padStart(h.length + 3)).join(''));
  for (let lg = 6; lg <= 16; lg += 2) {
    const n = 2 ** lg;
    const x = noise(2 * total, lg);
    const out = new Float32Array(x.length);
    const sx = new Float32Array(new SharedArrayBuffer(4 * x.length));
    sx.set(x);
    const sout = new Float32Array(new SharedArrayBuffer(4 * x.length));
    const configs: Config[] = [];
    const config = async (
      label: string,
      make: (o: CpuBackendOptions) => Promise<Backend>,
      threads: number,
      io?: [Float32Array, Float32Array],
    ) =>
      configs.push({
        label,
        workers: threads,
        backend: await make(threads === 0 ? { threads } : { threads, inlineCostLimit: 0 }),
        io,
        wall: [],
        cpu: [],
        main: [],
      });
    for (const [label, root] of sources) {
      const make = await backendFactory(root);
      await config(label + 'calling', make, 0);
      await config(label + 'worker', make, 1);
      if (root === undefined) await config('worker (shared I/O)', make, 1, [sx, sout]);
    }
    await roundRobin(configs, args.rounds, x, n, out);
    const cpu = configs.map((c) => c.cpu);
    const cells = [
      f(median(cpu[0]), 2),
      f(median(cpu[1]), 2),
      pairedRatio(cpu[1], cpu[0]).mid.toFixed(2),
      f(median(cpu[2]), 2),
      pairedRatio(cpu[2], cpu[0]).mid.toFixed(2),
    ];
    if (configs.length > 3) {
      cells.push(f(median(cpu[3]), 2), f(median(cpu[4]), 2), pairedRatio(cpu[4], cpu[3]).mid.toFixed(2));
    }
    console.log(String(n).padStart(8) + ' ' + cells.map((v, i) => v.padStart(head[i].length + 3)).join(''));
    for (const c of configs) await c.backend.dispose();
  }
}

// ------------------------------------------------------------------------------------------------
// batch: Msamples/s of backend.fft (single-threaded) vs fft.js on the same batch, each in a child process.

const BATCH_SAMPLES = 1 << 20;

async function batchChild(args: Args): Promise<void> {
  await serveChild(async (name, n) => {
    const x = noise(2 * BATCH_SAMPLES, n);
    const out = new Float32Array(x.length);
    const count = BATCH_SAMPLES / n;
    if (name === 'phasor' || name === 'phasor before') {
      const root = name === 'phasor' ? undefined : args.baseline;
      const b = await (await backendFactory(root))({ threads: 0 });
      return { units: BATCH_SAMPLES, run: () => b.fft(x, n, { out }).then(() => undefined) };
    }
    let FFT: new (n: number) => {
      createComplexArray(): number[];
      transform(out: number[], data: number[]): void;
    };
    try {
      FFT = createRequire(path.join(args.candidates, 'noop.js'))('fft.js');
    } catch {
      return 'not installed';
    }
    const fft = new FFT(n);
    const data = fft.createComplexArray();
    const res = fft.createComplexArray();
    const n2 = 2 * n;
    return {
      units: BATCH_SAMPLES,
      // The same job as backend.fft: float32 batch in, float32 batch out, conversions included.
      run: () => {
        for (let t = 0; t < count; t++) {
          const o = t * n2;
          for (let i = 0; i < n2; i++) data[i] = x[o + i];
          fft.transform(res, data);
          for (let i = 0; i < n2; i++) out[o + i] = res[i];
        }
      },
    };
  });
}

async function batchSection(args: Args): Promise<void> {
  const names = ['phasor', ...(args.baseline ? ['phasor before'] : []), 'fft.js'];
  const sizes: number[] = [];
  for (let lg = 6; lg <= 16; lg++) sizes.push(2 ** lg);
  const passOn = [
    'batch',
    '--candidates',
    args.candidates,
    ...(args.baseline ? ['--baseline', args.baseline] : []),
  ];
  const res = await interleave(fileURLToPath(import.meta.url), names, sizes, {
    rounds: args.rounds,
    targetMs: 50,
    args: passOn,
  });
  console.log(
    `\nbatch: backend.fft(x, n, { out }) on the calling thread (threads: 0), Float32Array batch of ` +
      `${BATCH_SAMPLES} complex samples, vs fft.js on the same batch with its own float32 ↔ array ` +
      `conversions; Msamples/s from the median CPU time of ${args.rounds} interleaved rounds, each in its own process`,
  );
  const head = names
    .flatMap((nm) => [nm, '±'])
    .concat(names.filter((nm) => nm !== 'fft.js').map((nm) => `${nm} × fft.js`));
  console.log('       N' + head.map((h) => h.padStart(Math.max(9, h.length) + 2)).join(''));
  for (const n of sizes) {
    const cells: string[] = [];
    for (const nm of names) {
      const r = res.get(nm)!.get(n)!;
      if (r.note !== undefined) cells.push(r.note, '');
      else cells.push(f(1 / median(r.times) / 1000), `±${f(spreadPct(r.times), 0)}%`);
    }
    const js = res.get('fft.js')!.get(n)!;
    for (const nm of names.filter((x) => x !== 'fft.js')) {
      const r = res.get(nm)!.get(n)!;
      cells.push(r.note || js.note ? '' : pairedRatio(js.times, r.times).mid.toFixed(2));
    }
    console.log(
      String(n).padStart(8) + cells.map((v, i) => v.padStart(Math.max(9, head[i].length) + 2)).join(''),
    );
  }
}

// ------------------------------------------------------------------------------------------------

async function threshold(): Promise<void> {
  console.log('\nthreshold: batched FFT inline vs on the pool (all workers), median wall ms');
  console.log('      n  batch        cost     inline       pool   pool/inline');
  const inline = await createCpuBackend({ threads: 0 });
  const pool = await createCpuBackend({ inlineCostLimit: 0 });
  await cpuBackendPool(pool)?.warm();
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
  console.log(`\nfir-switch: ${frames} real frames on the calling thread, Msamples/s (median)`);
  console.log('   taps     direct   overlap-save   faster');
  const b: Backend = await createCpuBackend({ threads: 0 });
  for (const taps of [4, 8, 12, 16, 24, 32, 48, 64, 128, 256]) {
    const h = noise(taps, taps);
    const rate: number[] = [];
    for (const method of ['direct', 'overlap-save'] as const) {
      const ms = await time(
        async () => {
          const fir = b.createFir({ taps: h, complex: false, channels: 1, method });
          await fir.process(x);
          await fir.flush();
        },
        5,
        1,
      );
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
  console.log(`\ncorr-switch: ${samples} real samples on the calling thread, Msamples/s (median)`);
  console.log('   template   Msamples/s   method (as built)');
  const b: Backend = await createCpuBackend({ threads: 0 });
  for (const m of [4, 8, 12, 16, 17, 24, 32, 48, 64, 128]) {
    const t = noise(m, m);
    const ms = await time(
      async () => {
        const c = b.createCorrelator({ template: t, complex: false });
        await c.process(x);
        await c.flush();
      },
      5,
      1,
    );
    console.log(
      `   ${String(m).padStart(8)} ${(samples / ms / 1000).toFixed(1).padStart(18)}   ${m <= CORR_DIRECT_MAX_LENGTH ? 'direct' : 'fft'}`,
    );
  }
  await b.dispose();
}

const SECTIONS = ['scaling', 'workers-cpu', 'batch', 'threshold', 'fir-switch', 'corr-switch'];

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (isChild()) return batchChild(args);
  const unknown = args.sections.filter((s) => !SECTIONS.includes(s));
  if (unknown.length > 0)
    throw new Error(`unknown section(s) ${unknown.join(', ')}; known: ${SECTIONS.join(', ')}`);
  const which = args.sections.length === 0 ? SECTIONS : args.sections;
  console.log(
    `CPU backend measurements, Node ${process.version}, ${os.availableParallelism()} cores, ${os.cpus()[0]?.model}`,
  );
  if (which.includes('scaling')) await scaling(args);
  if (which.includes('workers-cpu')) await workersCpu(args);
  if (which.includes('batch')) await batchSection(args);
  if (which.includes('threshold')) await threshold();
  if (which.includes('fir-switch')) await firSwitch();
  if (which.includes('corr-switch')) await corrSwitch();
}

await main();
