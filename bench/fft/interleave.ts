// Interleaved benchmarking of several candidates, each in its own child process.
//
// Every candidate runs in a separate Node process (its own JIT state: one library's type feedback never
// slows another, and nothing one loads — e.g. a module that detaches an ArrayBuffer — changes how V8
// compiles the others). The parent steps through the rounds and, in each round, asks every candidate in
// turn (rotating who goes first) for one timed run, so a change in the machine's load during the run
// affects all of them alike. A run is timed in CPU time of the child process, which other processes
// competing for the cores do not stretch.
//
//   parent: const res = await interleave(script, names, sizes, { rounds: 9 });
//   child:  if (isChild()) await serveChild(async (name, n) => runner | 'reason it cannot run');
//
// The child is `script` run again (with the parent's execArgv, e.g. tsx) with `--child NAME`.

import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';

/** One prepared measurement: run() does `units` units of work (transforms, samples…). */
export interface Runner {
  units: number;
  run(): void | Promise<void>;
  /** Relative L2 error against a float64 reference, when the candidate computes one. */
  error?: number;
}

export type Setup = (name: string, n: number) => Promise<Runner | string>;

export interface Result {
  /** CPU milliseconds per unit, one per round. */
  times: number[];
  error?: number;
  /** Why there is no result. */
  note?: string;
}

const CHILD_FLAG = '--child';

export function isChild(argv = process.argv): boolean {
  return argv.includes(CHILD_FLAG);
}

function cpuMs(): number {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
}

/** Child side: answers `setup` (prepare, warm up, calibrate) and `round` (one timed run) requests. */
export async function serveChild(setup: Setup, argv = process.argv): Promise<void> {
  const name = argv[argv.indexOf(CHILD_FLAG) + 1];
  const rl = createInterface({ input: process.stdin });
  let runner: Runner | null = null;
  let reps = 1;
  // Awaiting a plain value still costs a microtask per call (≈ 20% of a 64-point FFT): loop without
  // await when the runner is synchronous.
  let isAsync = false;
  const runReps = async (r: Runner, count: number) => {
    if (isAsync) for (let i = 0; i < count; i++) await r.run();
    else for (let i = 0; i < count; i++) r.run();
  };
  const reply = (o: object) => process.stdout.write(JSON.stringify(o) + '\n');
  for await (const line of rl) {
    const msg = JSON.parse(line) as { cmd: 'setup'; n: number; targetMs: number } | { cmd: 'round' };
    try {
      if (msg.cmd === 'setup') {
        runner = null;
        const r = await setup(name, msg.n);
        if (typeof r === 'string') {
          reply({ note: r });
          continue;
        }
        isAsync = r.run() instanceof Promise;
        // Warm up (JIT tiers, caches) for ≥ 200 ms and ≥ 3 runs, then size a round to ≈ targetMs.
        const warmEnd = performance.now() + 200;
        for (let i = 0; i < 3 || performance.now() < warmEnd; i++) await runReps(r, 1);
        reps = 1;
        for (;;) {
          const c0 = cpuMs();
          await runReps(r, reps);
          if (cpuMs() - c0 >= msg.targetMs || reps >= 1 << 24) break;
          reps *= 2;
        }
        runner = r;
        reply({ reps, error: r.error });
      } else {
        if (runner === null) throw new Error('round before setup');
        const c0 = cpuMs();
        await runReps(runner, reps);
        reply({ ms: (cpuMs() - c0) / (reps * runner.units) });
      }
    } catch (e) {
      reply({ note: `failed: ${(e as Error).message}` });
    }
  }
}

class Child {
  private readonly proc: ChildProcessByStdio<Writable, Readable, null>;
  private readonly lines: AsyncIterator<string>;

  constructor(script: string, name: string, args: string[]) {
    this.proc = spawn(process.execPath, [...process.execArgv, script, CHILD_FLAG, name, ...args], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    this.lines = createInterface({ input: this.proc.stdout })[Symbol.asyncIterator]();
  }

  async ask(msg: object): Promise<{ note?: string; ms?: number; error?: number; reps?: number }> {
    this.proc.stdin.write(JSON.stringify(msg) + '\n');
    const next = await this.lines.next();
    if (next.done) throw new Error('child exited');
    return JSON.parse(next.value);
  }

  close(): void {
    this.proc.stdin.end();
  }
}

/**
 * Measures every candidate at every size: `rounds` interleaved rounds of ≈ targetMs each. Returns, per
 * candidate name, per size, the per-round CPU ms per unit.
 */
export async function interleave(
  script: string,
  names: string[],
  sizes: number[],
  opts: { rounds: number; targetMs?: number; args?: string[]; log?: (s: string) => void },
): Promise<Map<string, Map<number, Result>>> {
  const children = names.map((name) => new Child(script, name, opts.args ?? []));
  const out = new Map<string, Map<number, Result>>(names.map((name) => [name, new Map()]));
  try {
    for (const n of sizes) {
      opts.log?.(`N = ${n}…`);
      const live: number[] = [];
      for (let c = 0; c < children.length; c++) {
        const r = await children[c].ask({ cmd: 'setup', n, targetMs: opts.targetMs ?? 20 });
        const res: Result = { times: [], error: r.error, note: r.note };
        out.get(names[c])!.set(n, res);
        if (r.note === undefined) live.push(c);
      }
      for (let round = 0; round < opts.rounds; round++) {
        for (let k = 0; k < live.length; k++) {
          const c = live[(round + k) % live.length];
          const res = out.get(names[c])!.get(n)!;
          if (res.note !== undefined) continue;
          const r = await children[c].ask({ cmd: 'round' });
          if (r.ms === undefined) res.note = r.note ?? 'no result';
          else res.times.push(r.ms);
        }
      }
    }
  } finally {
    for (const c of children) c.close();
  }
  return out;
}

export function quantile(a: readonly number[], q: number): number {
  const s = [...a].sort((x, y) => x - y);
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  return s[lo] + (s[Math.min(lo + 1, s.length - 1)] - s[lo]) * (pos - lo);
}

export const median = (a: readonly number[]) => quantile(a, 0.5);

/** Interquartile range relative to the median, in per cent. */
export function spreadPct(a: readonly number[]): number {
  return (100 * (quantile(a, 0.75) - quantile(a, 0.25))) / median(a);
}

/** Median and interquartile range of the round-by-round ratios a[i] / b[i] (paired: same round). */
export function pairedRatio(
  a: readonly number[],
  b: readonly number[],
): { mid: number; lo: number; hi: number } {
  const r = a.slice(0, Math.min(a.length, b.length)).map((v, i) => v / b[i]);
  return { mid: median(r), lo: quantile(r, 0.25), hi: quantile(r, 0.75) };
}
