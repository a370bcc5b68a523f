// Single-threaded throughput of Phasor's FFT against the JavaScript/WASM FFT libraries we considered, for
// complex forward transforms of N = 2^6 … 2^16, side by side in one run.
//
//   npx tsx bench/fft/libraries.ts [--candidates DIR] [--libs all|a,b,…] [--rounds 15] [--min 6] [--max 16]
//                                  [--sizes n,n,…] [--baseline DIR] [--detached]
//
// Method (see interleave.ts): each library runs in its own child process; the rounds are interleaved
// (every library does one ≈ 20 ms timed run per round, in rotating order), so load drifting on this shared
// machine affects all alike; times are CPU time of the child. The table gives the median transforms/s, the
// spread (interquartile range of the rounds / median) and the ratio to fft.js as the median of the
// round-by-round ratios, with their interquartile range.
//
// DIR is a node_modules folder holding the candidate libraries (default /tmp/fftcand/node_modules). They
// are measurement-only and not project dependencies: install them outside the repository, e.g.
//   mkdir -p /tmp/fftcand && cd /tmp/fftcand && npm init -y && \
//     npm install fft.js @echogarden/pffft-wasm kissfft-wasm webfft
// A library that is missing there prints "not installed". Every candidate is timed on data already in the
// layout it wants (its best case: no copies in or out); its relative L2 error against Phasor's float64 FFT
// is printed beside it, so a fast but float32-internal library shows what it costs.
//
// --baseline DIR adds "phasor before": the fft module of another checkout (e.g. a copy of the previous
// commit), measured in the same run. --detached first detaches an ArrayBuffer in every child: after that
// V8 guards every typed-array access against detachment for the rest of the process (see pow2.ts), which
// is what a process that once transferred a buffer sees.

import os from 'node:os';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { FftPlan } from '../../electron/engine/fft/index.js';
import {
  interleave,
  isChild,
  median,
  pairedRatio,
  serveChild,
  spreadPct,
  type Runner,
} from './interleave.js';

interface Args {
  candidates: string;
  rounds: number;
  min: number;
  max: number;
  libs?: string[];
  baseline?: string;
  detached: boolean;
  /** Explicit sizes instead of 2^min … 2^max (e.g. 1000,48000 for the mixed-radix and Bluestein paths). */
  sizes?: number[];
}

function parseArgs(argv: string[]): Args {
  const args: Args = {
    candidates: '/tmp/fftcand/node_modules',
    rounds: 15,
    min: 6,
    max: 16,
    detached: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const v = argv[i + 1];
    if (a === '--detached') {
      args.detached = true;
      continue;
    }
    if (a === '--candidates') args.candidates = v;
    else if (a === '--rounds') args.rounds = Number(v);
    else if (a === '--min') args.min = Number(v);
    else if (a === '--max') args.max = Number(v);
    else if (a === '--libs') args.libs = v.split(',').map((s) => s.trim());
    else if (a === '--baseline') args.baseline = v;
    else if (a === '--sizes') args.sizes = v.split(',').map(Number);
    else continue;
    i++;
  }
  return args;
}

/** Measured unless --libs says otherwise (`--libs all` measures every candidate). */
const DEFAULT_LIBS = ['phasor (f64)', 'phasor (f32 in)', 'phasor before', 'fft.js'];

/** Prepares one transform of size n on `input` (interleaved float64): run() does it, result() reads it. */
type Factory = (n: number, input: Float64Array) => { run(): void; result(): ArrayLike<number> };

interface Candidate {
  name: string;
  /** Loads the library, or returns the reason it cannot run. */
  load(args: Args): Promise<Factory | string>;
}

function requireFrom(dir: string): NodeJS.Require {
  return createRequire(path.join(dir, 'noop.js'));
}

async function phasorFft(root?: string): Promise<(n: number) => FftPlan> {
  const url = root
    ? pathToFileURL(path.resolve(root, 'electron/engine/fft/index.ts')).href
    : new URL('../../electron/engine/fft/index.js', import.meta.url).href;
  return (await import(url)).getFftPlan;
}

const candidates: Candidate[] = [
  {
    name: 'phasor (f64)',
    async load() {
      const getFftPlan = await phasorFft();
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
      const getFftPlan = await phasorFft();
      return (n, input) => {
        const plan = getFftPlan(n);
        const in32 = new Float32Array(input);
        const out = new Float64Array(2 * n);
        return { run: () => plan.forward(in32, out), result: () => out };
      };
    },
  },
  {
    name: 'phasor before',
    async load(args) {
      if (args.baseline === undefined) return 'no --baseline';
      const getFftPlan = await phasorFft(args.baseline);
      return (n, input) => {
        const plan = getFftPlan(n);
        const out = new Float64Array(2 * n);
        return { run: () => plan.forward(input, out), result: () => out };
      };
    },
  },
  {
    name: 'fft.js',
    async load(args) {
      let FFT: new (n: number) => {
        createComplexArray(): number[];
        transform(out: number[], data: number[]): void;
      };
      try {
        FFT = requireFrom(args.candidates)('fft.js');
      } catch {
        return 'not installed';
      }
      return (n, input) => {
        if ((n & (n - 1)) !== 0) throw new Error('powers of two only');
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
    async load(args) {
      const file = path.join(args.candidates, '@echogarden/pffft-wasm/dist', flavour, 'pffft.js');
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
    async load(args) {
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
        const req = requireFrom(args.candidates);
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
    async load(args) {
      let WebFft: new (n: number, sub: string, useProfile: boolean) => { fft(x: Float32Array): Float32Array };
      try {
        WebFft = (await import(pathToFileURL(path.join(args.candidates, 'webfft/lib/main.js')).href)).default;
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

export function randomInput(n: number, seed: number): Float64Array {
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

/** Child: one candidate, prepared per size on request. */
async function child(args: Args): Promise<void> {
  if (args.detached) {
    const b = new ArrayBuffer(8);
    structuredClone(b, { transfer: [b] });
  }
  const cache = new Map<string, Promise<Factory | string>>();
  const reference = await phasorFft();
  await serveChild(async (name, n): Promise<Runner | string> => {
    const cand = candidates.find((c) => c.name === name);
    if (cand === undefined) return `unknown candidate ${name}`;
    let f = cache.get(name);
    if (f === undefined) cache.set(name, (f = cand.load(args)));
    const factory = await f;
    if (typeof factory === 'string') return factory;
    const input = randomInput(n, 1234 + n);
    let t: ReturnType<Factory>;
    try {
      t = factory(n, input);
    } catch (e) {
      return (e as Error).message;
    }
    t.run();
    const ref = new Float64Array(2 * n);
    reference(n).forward(input, ref);
    const got = t.result();
    let e = 0,
      r = 0;
    for (let i = 0; i < 2 * n; i++) {
      e += (got[i] - ref[i]) ** 2;
      r += ref[i] ** 2;
    }
    return { units: 1, run: t.run, error: Math.sqrt(e / r) };
  });
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (isChild()) return child(args);
  const names = candidates
    .map((c) => c.name)
    .filter((name) =>
      args.libs === undefined
        ? DEFAULT_LIBS.includes(name)
        : args.libs.includes('all') || args.libs.includes(name),
    )
    .filter((name) => name !== 'phasor before' || args.baseline !== undefined);
  const sizes: number[] = args.sizes ?? [];
  if (args.sizes === undefined) for (let lg = args.min; lg <= args.max; lg++) sizes.push(2 ** lg);
  const passOn = ['--candidates', args.candidates, ...(args.baseline ? ['--baseline', args.baseline] : [])];
  if (args.detached) passOn.push('--detached');
  const t0 = performance.now();
  const results = await interleave(fileURLToPath(import.meta.url), names, sizes, {
    rounds: args.rounds,
    args: passOn,
    log: (s) => process.stderr.write(s + '\r'),
  });
  process.stderr.write('\n');
  const base = results.get('fft.js');
  const lines: string[] = [];
  lines.push(
    `Complex forward FFT, single thread: transforms/s from the median CPU time per transform over ` +
      `${args.rounds} interleaved rounds; ±: interquartile range of the rounds / median; ` +
      `× fft.js: median of the round-by-round ratios [interquartile range]; err: relative L2 error ` +
      `against Phasor's float64 result.`,
  );
  lines.push(
    `Node ${process.version}, ${os.cpus()[0]?.model ?? 'CPU'}, ${os.availableParallelism()} cores, ` +
      `load average ${os.loadavg()[0].toFixed(2)} at the end, ${((performance.now() - t0) / 1000).toFixed(0)} s` +
      (args.detached ? ', every process with a detached ArrayBuffer' : ''),
  );
  const cell = (name: string, n: number): string[] => {
    const r = results.get(name)!.get(n)!;
    if (r.note !== undefined || r.times.length === 0) return [r.note ?? 'n/a', '', '', ''];
    const perSecond = 1 / (median(r.times) / 1000);
    const b = base?.get(n);
    const ratio =
      name === 'fft.js' || b === undefined || b.times.length === 0 ? null : pairedRatio(b.times, r.times);
    return [
      perSecond.toFixed(0),
      `±${spreadPct(r.times).toFixed(0)}%`,
      ratio === null ? '' : `${ratio.mid.toFixed(2)} [${ratio.lo.toFixed(2)}–${ratio.hi.toFixed(2)}]`,
      r.error === undefined ? '' : r.error.toExponential(1),
    ];
  };
  const header = ['N', ...names.flatMap((nm) => [nm, '±', '× fft.js', 'err'])];
  const rows = sizes.map((n) => [String(n), ...names.flatMap((nm) => cell(nm, n))]);
  // Drop columns that are empty everywhere (× fft.js of fft.js itself, err of exact candidates).
  const keep = header.map((_, c) => c === 0 || rows.some((row) => row[c] !== ''));
  const table = [header, ...rows].map((row) => row.filter((_, c) => keep[c]));
  const widths = table[0].map((_, c) => Math.max(...table.map((row) => row[c].length)));
  lines.push('');
  for (const row of table) lines.push(row.map((v, c) => v.padStart(widths[c])).join('  '));
  process.stdout.write(lines.join('\n') + '\n');
}

await main();
