// Single-threaded FFT throughput of Phasor's own FFT against the JavaScript/WASM FFT libraries we
// considered, for complex transforms of N = 2^6 … 2^16. Each library runs in its own child process (so
// one library's JIT state never slows another), each figure is the median of repeated timed runs, and the
// table prints them side by side with the ratio to fft.js.
//
//   npx tsx bench/fft/libraries.ts [--candidates DIR] [--rounds 9] [--min 6] [--max 16]
//
// DIR is a node_modules folder holding the candidate libraries (default /tmp/fftcand/node_modules). They
// are measurement-only and not project dependencies: install them outside the repository, e.g.
//   mkdir -p /tmp/fftcand && cd /tmp/fftcand && npm init -y && \
//     npm install fft.js @echogarden/pffft-wasm kissfft-wasm webfft
// A library that is missing there prints "not installed". Every candidate is timed on data already in
// the layout it wants (its best case: no copies in or out), timed in CPU time of its process (robust when
// other processes share the machine), and its relative L2 error against Phasor's
// float64 FFT is printed beside it so a fast but float32-internal library shows what it costs.

import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { getFftPlan } from '../../electron/engine/fft/index.js';

interface Args {
  candidates: string;
  rounds: number;
  min: number;
  max: number;
  only?: string;
}

function parseArgs(argv: string[]): Args {
  const args: Args = { candidates: '/tmp/fftcand/node_modules', rounds: 9, min: 6, max: 16 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const v = argv[i + 1];
    if (a === '--candidates') args.candidates = v;
    else if (a === '--rounds') args.rounds = Number(v);
    else if (a === '--min') args.min = Number(v);
    else if (a === '--max') args.max = Number(v);
    else if (a === '--only') args.only = v;
    else continue;
    i++;
  }
  return args;
}

/** A transform under test: `run` does one forward FFT on prepared data, `result` returns its output. */
interface Runner {
  run(): void;
  result(): ArrayLike<number>;
}

type Factory = (n: number, input: Float64Array) => Runner;

interface Candidate {
  name: string;
  /** Loads the library, or returns the reason it cannot run. */
  load(dir: string): Promise<Factory | string>;
}

function requireFrom(dir: string): NodeJS.Require {
  return createRequire(path.join(dir, 'noop.js'));
}

const candidates: Candidate[] = [
  {
    name: 'phasor (f64)',
    async load() {
      return (n, input) => {
        const plan = getFftPlan(n);
        const out = new Float64Array(2 * n);
        return { run: () => plan.forward(input, out), result: () => out };
      };
    },
  },
  {
    name: 'phasor (f32 in)',
    async load() {
      return (n, input) => {
        const plan = getFftPlan(n);
        const in32 = new Float32Array(input);
        const out = new Float64Array(2 * n);
        return { run: () => plan.forward(in32, out), result: () => out };
      };
    },
  },
  {
    name: 'fft.js',
    async load(dir) {
      let FFT: new (n: number) => {
        createComplexArray(): number[];
        transform(out: number[], data: number[]): void;
      };
      try {
        FFT = requireFrom(dir)('fft.js');
      } catch {
        return 'not installed';
      }
      return (n, input) => {
        const f = new FFT(n);
        const data = f.createComplexArray();
        for (let i = 0; i < 2 * n; i++) data[i] = input[i];
        const out = f.createComplexArray();
        return { run: () => f.transform(out, data), result: () => out };
      };
    },
  },
  ...(['simd', 'non-simd'] as const).map((flavour): Candidate => ({
    name: `pffft-wasm ${flavour}`,
    async load(dir) {
      const file = path.join(dir, '@echogarden/pffft-wasm/dist', flavour, 'pffft.js');
      let mod: {
        _pffft_new_setup(n: number, kind: number): number;
        _pffft_aligned_malloc(bytes: number): number;
        _pffft_transform_ordered(setup: number, i: number, o: number, w: number, dir: number): void;
        HEAPF32: Float32Array;
      };
      try {
        const factory = (await import(pathToFileURL(file).href)).default;
        mod = await factory();
      } catch {
        return 'not installed';
      }
      return (n, input) => {
        if (n < 16) throw new Error('pffft needs N ≥ 16');
        const setup = mod._pffft_new_setup(n, 1); // PFFFT_COMPLEX
        const pin = mod._pffft_aligned_malloc(8 * n);
        const pout = mod._pffft_aligned_malloc(8 * n);
        const pwork = mod._pffft_aligned_malloc(8 * n);
        mod.HEAPF32.set(new Float32Array(input), pin / 4);
        return {
          run: () => mod._pffft_transform_ordered(setup, pin, pout, pwork, 0),
          result: () => mod.HEAPF32.subarray(pout / 4, pout / 4 + 2 * n),
        };
      };
    },
  })),
  {
    name: 'kissfft-wasm',
    async load(dir) {
      let lib: {
        FFTConfig: new (n: number, inverse: boolean) => { work(i: unknown, o: unknown): void };
        ComplexArray: new (n: number) => { asFloat32Array(): Float32Array };
        waitLoading(): Promise<void>;
      };
      // Its Emscripten loader prefers fetch() when it exists, which cannot read a file path on Node:
      // hide fetch while it loads so it reads the .wasm from disk.
      const g = globalThis as { fetch?: unknown };
      const savedFetch = g.fetch;
      try {
        delete g.fetch;
        const req = requireFrom(dir);
        lib = {
          FFTConfig: req('kissfft-wasm/lib/fft.js').FFTConfig,
          ComplexArray: req('kissfft-wasm/lib/types.js').ComplexArray,
          waitLoading: req('kissfft-wasm/lib/wasm.js').waitLoading,
        };
        await lib.waitLoading();
      } catch (e) {
        return `not installed or failed to load (${(e as Error).message})`;
      } finally {
        g.fetch = savedFetch;
      }
      return (n, input) => {
        const cfg = new lib.FFTConfig(n, false);
        const a = new lib.ComplexArray(n);
        const b = new lib.ComplexArray(n);
        a.asFloat32Array().set(new Float32Array(input));
        return { run: () => cfg.work(a, b), result: () => b.asFloat32Array() };
      };
    },
  },
  ...(['kissWasm', 'indutnyModifiedJavascript'] as const).map((sub): Candidate => ({
    name: `webfft ${sub}`,
    async load(dir) {
      let WebFft: new (n: number, sub: string, useProfile: boolean) => { fft(x: Float32Array): Float32Array };
      try {
        WebFft = (await import(pathToFileURL(path.join(dir, 'webfft/lib/main.js')).href)).default;
      } catch {
        return 'not installed';
      }
      return (n, input) => {
        const f = new WebFft(n, sub, false);
        const x = new Float32Array(input);
        let out: Float32Array = x;
        // webfft's API allocates its output on every call; that is part of what it costs.
        return { run: () => (out = f.fft(x)), result: () => out };
      };
    },
  })),
];

function median(a: number[]): number {
  const s = [...a].sort((x, y) => x - y);
  return s[s.length >> 1];
}

function randomInput(n: number, seed: number): Float64Array {
  let s = seed >>> 0 || 1;
  const x = new Float64Array(2 * n);
  for (let i = 0; i < x.length; i++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    x[i] = (s >>> 0) / 2 ** 31 - 1;
  }
  return x;
}

/** Child mode: measures one candidate, prints JSON lines {n, perSecond, error}. */
async function measure(args: Args, name: string): Promise<void> {
  const cand = candidates.find((c) => c.name === name)!;
  const factory = await cand.load(args.candidates);
  if (typeof factory === 'string') {
    process.stdout.write(JSON.stringify({ unavailable: factory }) + '\n');
    return;
  }
  for (let lg = args.min; lg <= args.max; lg++) {
    const n = 2 ** lg;
    const input = randomInput(n, 1234 + lg);
    let runner: Runner;
    try {
      runner = factory(n, input);
    } catch (e) {
      process.stdout.write(JSON.stringify({ n, unavailable: (e as Error).message }) + '\n');
      continue;
    }
    // Warm up for ~100 ms, then size each timed run to ~20 ms.
    let reps = 1;
    const warmEnd = performance.now() + 100;
    while (performance.now() < warmEnd) runner.run();
    for (;;) {
      const t0 = performance.now();
      for (let i = 0; i < reps; i++) runner.run();
      if (performance.now() - t0 > 20) break;
      reps *= 2;
    }
    // CPU time of this (single-threaded) process rather than wall time: other processes competing for the
    // cores then stretch the wall clock but not the figures.
    const times: number[] = [];
    for (let r = 0; r < args.rounds; r++) {
      const c0 = process.cpuUsage();
      for (let i = 0; i < reps; i++) runner.run();
      const c = process.cpuUsage(c0);
      times.push((c.user + c.system) / 1000 / reps);
    }
    const ref = new Float64Array(2 * n);
    getFftPlan(n).forward(input, ref);
    const got = runner.result();
    let e = 0,
      r = 0;
    for (let i = 0; i < 2 * n; i++) {
      e += (got[i] - ref[i]) ** 2;
      r += ref[i] ** 2;
    }
    const perSecond = 1000 / median(times);
    process.stdout.write(JSON.stringify({ n, perSecond, error: Math.sqrt(e / r) }) + '\n');
  }
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (args.only !== undefined) return measure(args, args.only);
  const self = fileURLToPath(import.meta.url);
  const results = new Map<string, Map<number, { perSecond?: number; error?: number; note?: string }>>();
  for (const c of candidates) {
    process.stderr.write(`measuring ${c.name}…\n`);
    const rows = new Map<number, { perSecond?: number; error?: number; note?: string }>();
    const out = execFileSync(
      process.execPath,
      [
        ...process.execArgv,
        self,
        '--only',
        c.name,
        '--candidates',
        args.candidates,
        '--rounds',
        String(args.rounds),
        '--min',
        String(args.min),
        '--max',
        String(args.max),
      ],
      { encoding: 'utf8', maxBuffer: 1 << 24 },
    );
    for (const line of out.trim().split('\n')) {
      const j = JSON.parse(line);
      if (j.n === undefined) {
        for (let lg = args.min; lg <= args.max; lg++) rows.set(2 ** lg, { note: j.unavailable });
      } else rows.set(j.n, { perSecond: j.perSecond, error: j.error, note: j.unavailable });
    }
    results.set(c.name, rows);
  }
  const base = results.get('fft.js');
  const lines: string[] = [];
  lines.push(
    `Node ${process.version}, ${os.cpus()[0]?.model ?? 'CPU'}, single thread, complex forward FFT, median CPU time; ` +
      'GFLOP/s = 5·N·log2(N) per transform',
  );
  for (const [name, rows] of results) {
    lines.push('');
    lines.push(`${name}`);
    lines.push('       N   transforms/s   GFLOP/s   × fft.js   rel. L2 error');
    for (let lg = args.min; lg <= args.max; lg++) {
      const n = 2 ** lg;
      const row = rows.get(n);
      if (row?.perSecond === undefined) {
        lines.push(`${String(n).padStart(8)}   ${row?.note ?? 'n/a'}`);
        continue;
      }
      const gflops = (row.perSecond * 5 * n * lg) / 1e9;
      const b = base?.get(n)?.perSecond;
      const ratio = b ? (row.perSecond / b).toFixed(2) : '—';
      lines.push(
        `${String(n).padStart(8)} ${row.perSecond.toFixed(0).padStart(14)} ${gflops.toFixed(2).padStart(9)} ` +
          `${ratio.padStart(10)}   ${row.error!.toExponential(1)}`,
      );
    }
  }
  process.stdout.write(lines.join('\n') + '\n');
}

await main();
