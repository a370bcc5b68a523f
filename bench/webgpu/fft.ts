// Batched complex FFT on the WebGPU backend: kernel time from GPU timestamp queries (the backend's device
// timer, electron/engine/backends/webgpu/devtimer.ts, when the adapter has `timestamp-query`; the data
// already on the device) and whole calls from host arrays and back.
// Prints medians and Gsamples/s, one row per size, with the plan each size took (one pass or four-step
// of the power-of-two kernel, mixed radix in one pass or four-step, Bluestein).
// --compare-rounds times, for each power of two above the one-pass limit that one pass can do in rounds
// (8192 on a 48 KiB, 1024-invocation adapter; from --sizes, or all of them when --sizes names none), both
// plans side by side on the same data: one pass in rounds and the four-step (medians of kernel time).
// --compare-radix16 times, for 1024, 2048 and 4096 (or those of --sizes the radix-16 kernel can do here: 16
// up to 4096; the planner then gives it exactly those), forward
// and inverse, the default one-pass kernel (8 points a thread), the radix-16 kernel (shaders/fft_pow2.wgsl
// `main16`, 16 points a thread) and the radix-16 kernel with padded workgroup memory, side by side on the
// same data: kernel ms medians, each one's error against float64 (the device timer's), the ratio to the
// default, and how far each one's output lies from the default's (relative L2, whole calls on up to
// 2^20 points); the copy floor of the same points first.
//
//   npx tsx bench/webgpu/fft.ts [--sizes 64,256,1024,4096,65536,1048576] [--points 16777216] [--reps 20]
//   npx tsx bench/webgpu/fft.ts --sizes 100,360,1000,3000,4800,44100,48000,96000     (mixed radix)
//   VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json npx tsx bench/webgpu/fft.ts --points 262144 --reps 3
//   npx tsx bench/webgpu/fft.ts --compare-rounds [--reps 30]   (the rounds path against the four-step)
//   npx tsx bench/webgpu/fft.ts --compare-radix16 [--reps 30]  (the radix-16 kernel against the default)
// --sweep 'SPEC;SPEC;…' times each size with planners built from each SPEC, side by side on the same data
// (kernel ms, medians): SPEC is `default` or comma-separated options of WebGpuFft — onePass=N, radix16=N,
// fourStep=N (points a workgroup aims at), storage=N (points of workgroup memory), r16=off|plain|padded,
// rounds=on|off.
//
// batch = points / n (at least 1). On SwiftShader the numbers only show that the path works.
import { parseArgs } from 'node:util';
import {
  RADIX16_BY_DEFAULT,
  RADIX16_SIZES,
  WebGpuFft,
  type Radix16Choice,
  type WebGpuFftOptions,
} from '../../electron/engine/backends/webgpu/fft.js';
import { createWebGpuBackend, type WebGpuBackend } from '../../electron/engine/backends/webgpu/index.js';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string' },
    points: { type: 'string', default: String(1 << 24) },
    reps: { type: 'string', default: '20' },
    inverse: { type: 'boolean', default: false },
    'compare-rounds': { type: 'boolean', default: false },
    'compare-radix16': { type: 'boolean', default: false },
    sweep: { type: 'string' },
  },
});
const sizes = (values.sizes ?? '64,256,1024,4096,8192,16384,65536,1048576,1000,3000,48000')
  .split(',')
  .map(Number);
const points = Number(values.points);
const reps = Math.max(1, Number(values.reps));

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Whole calls from host arrays and back (where the adapter has no timestamps). */
async function wholeCalls(b: WebGpuBackend, n: number, batch: number, inverse: boolean): Promise<number[]> {
  const x = new Float32Array(2 * n * batch);
  for (let i = 0; i < x.length; i++) x[i] = Math.sin(i * 0.37) + 0.5 * Math.cos(i * 1.3);
  const out = new Float32Array(x.length);
  const times: number[] = [];
  for (let r = 0; r < reps + 2; r++) {
    const t0 = performance.now();
    await b.fft(x, n, { inverse, out });
    if (r >= 2) times.push(performance.now() - t0);
  }
  return times;
}

/** --compare-rounds: each size of the rounds path timed with it and with the four-step, same data. */
async function compareRounds(b: WebGpuBackend): Promise<void> {
  const planner = b.fftPlanner;
  const { onePassMax, roundsMax } = planner;
  if (roundsMax === onePassMax) {
    console.log(`no size runs in rounds here: one pass reaches ${onePassMax}, bounded by the invocations`);
    return;
  }
  const covered = (n: number) => n > onePassMax && n <= roundsMax && (n & (n - 1)) === 0;
  const list = values.sizes === undefined ? [] : sizes.filter(covered);
  if (list.length === 0) {
    for (let n = 2 * onePassMax; n <= roundsMax; n *= 2) list.push(n);
  }
  const op = values.inverse ? 'ifft' : 'fft';
  console.log(
    `one pass in rounds against the four-step, batched ${values.inverse ? 'inverse' : 'forward'} C2C, ` +
      `${points} points a call, kernel ms median of ${reps}`,
  );
  console.log(
    ['n', 'batch', 'rounds plan', 'ms', 'error', 'four-step plan', 'ms', 'error', 'four-step/rounds'].join(
      '\t',
    ),
  );
  for (const n of list) {
    const batch = Math.max(1, Math.floor(points / n));
    const row: (string | number)[] = [n];
    const ms: number[] = [];
    for (const on of [true, false]) {
      planner.useRounds(on);
      const plan = planner.plan(n).describe();
      if (b.benchmark) {
        const t = await b.benchmark(op, n, batch, false, { reps, endToEnd: false });
        if (on) row.push(t.batch);
        row.push(plan, t.kernelMs.toFixed(3), t.relError.toExponential(2));
        ms.push(t.kernelMs);
      } else {
        const call = median(await wholeCalls(b, n, batch, values.inverse));
        if (on) row.push(batch);
        row.push(plan, `${call.toFixed(3)} (whole call)`, '');
        ms.push(call);
      }
    }
    planner.useRounds(true);
    row.push((ms[1] / ms[0]).toFixed(2));
    console.log(row.join('\t'));
  }
}

/** ‖a − b‖ / ‖b‖ */
function relativeL2(a: Float32Array, b: Float32Array): number {
  let e = 0;
  let r = 0;
  for (let i = 0; i < b.length; i++) {
    e += (a[i] - b[i]) ** 2;
    r += b[i] * b[i];
  }
  return Math.sqrt(e / r);
}

/** --compare-radix16: the default one-pass kernel and the radix-16 kernel (plain, padded) per size and
 * direction, same data. */
async function compareRadix16(b: WebGpuBackend): Promise<void> {
  const planner = b.fftPlanner;
  const given = values.sizes === undefined ? [] : sizes.filter((n) => planner.radix16Fits(n));
  const list = given.length > 0 ? given : [1024, 2048, 4096].filter((n) => planner.radix16Fits(n));
  const range = { min: Math.min(...list), max: Math.max(...list) };
  const choices: [string, Radix16Choice][] = [
    ['default', false],
    ['radix16', 'plain'],
    ['radix16 padded', 'padded'],
  ];
  console.log(
    `the radix-16 one-pass kernel against the default, batched C2C, ${points} points a call, ` +
      `kernel ms median of ${reps}; error: against float64; from default: relative L2 to the default's output`,
  );
  if (b.benchmark) {
    const copy = await b.benchmark('copy', points, 1, false, { reps, endToEnd: false });
    console.log(`copy floor (a WGSL copy of ${points} points): ${copy.kernelMs.toFixed(3)} ms`);
  }
  const header = ['n', 'batch', 'direction'];
  for (const [name] of choices) header.push(`${name} plan`, 'ms', 'error');
  header.push('radix16/default ms', 'padded/default ms', 'radix16 from default', 'padded from default');
  console.log(header.join('\t'));
  for (const n of list) {
    const batch = Math.max(1, Math.floor(points / n));
    const checkRows = Math.max(1, Math.min(batch, Math.floor((1 << 20) / n)));
    const x = new Float32Array(2 * n * checkRows);
    for (let i = 0; i < x.length; i++) x[i] = Math.sin(i * 0.37) + 0.5 * Math.cos(i * 1.3);
    for (const inverse of [false, true]) {
      const op = inverse ? 'ifft' : 'fft';
      const row: (string | number)[] = [n, batch, inverse ? 'inverse' : 'forward'];
      const ms: number[] = [];
      const outs: Float32Array[] = [];
      for (const [, choice] of choices) {
        planner.useRadix16(choice, range);
        row.push(planner.plan(n).describe());
        if (b.benchmark) {
          const t = await b.benchmark(op, n, batch, false, { reps, endToEnd: false });
          row[1] = t.batch;
          row.push(t.kernelMs.toFixed(3), t.relError.toExponential(2));
          ms.push(t.kernelMs);
        } else {
          const call = median(await wholeCalls(b, n, batch, inverse));
          row.push(`${call.toFixed(3)} (whole call)`, '');
          ms.push(call);
        }
        outs.push(await b.fft(x, n, { inverse }));
      }
      row.push((ms[1] / ms[0]).toFixed(2), (ms[2] / ms[0]).toFixed(2));
      row.push(relativeL2(outs[1], outs[0]).toExponential(2), relativeL2(outs[2], outs[0]).toExponential(2));
      console.log(row.join('\t'));
    }
  }
  planner.useRadix16(RADIX16_BY_DEFAULT, RADIX16_SIZES);
}

/** A --sweep SPEC as planner options. */
function sweepOptions(spec: string): WebGpuFftOptions {
  const o: WebGpuFftOptions = {};
  const group: NonNullable<WebGpuFftOptions['groupPoints']> = {};
  if (spec === 'default') return o;
  for (const part of spec.split(',')) {
    const [k, v] = part.split('=');
    const on = v === 'on';
    if (k === 'onePass' || k === 'radix16' || k === 'fourStep') group[k] = Number(v);
    else if (k === 'storage') o.storagePoints = Number(v);
    else if (k === 'r16') o.radix16 = v === 'off' ? false : (v as Radix16Choice);
    else if (k === 'rounds') o.rounds = on;
    else throw new Error(`--sweep: unknown option ${k}`);
  }
  o.groupPoints = group;
  return o;
}

/** --sweep: each size under each planner, kernel ms side by side (the backend's own planner swapped for
 * the time of each column, so its device timer times that planner's plans). */
async function sweep(b: WebGpuBackend, specs: string[]): Promise<void> {
  console.log(`planner sweep, batched forward C2C, ${points} points a call, kernel ms median of ${reps}`);
  const own = b.fftPlanner;
  const planners = specs.map((spec) => new WebGpuFft(b.ctx, sweepOptions(spec)));
  const slot = b as unknown as { fftPlanner: WebGpuFft };
  console.log(['n', ...specs].join('\t'));
  try {
    for (const n of sizes) {
      const batch = Math.max(1, Math.floor(points / n));
      const row: string[] = [String(n)];
      for (const p of planners) {
        slot.fftPlanner = p;
        const t = await b.benchmark!('fft', n, batch, false, { reps, endToEnd: false });
        row.push(`${t.kernelMs.toFixed(3)} (${p.plan(n).describe()})`);
      }
      slot.fftPlanner = own;
      console.log(row.join('\t'));
    }
  } finally {
    slot.fftPlanner = own;
    for (const p of planners) p.dispose();
  }
}

/** The default table: one row a size, the plan the planner picks. */
async function table(b: WebGpuBackend): Promise<void> {
  console.log(
    `batched ${values.inverse ? 'inverse' : 'forward'} C2C, ${points} points a call, median of ${reps}`,
  );
  const header = ['n', 'batch', 'plan', 'kernel ms', 'kernel Gsamples/s', 'call ms', 'call Gsamples/s'];
  console.log(header.join('\t'));
  for (const n of sizes) {
    const batch = Math.max(1, Math.floor(points / n));
    const samples = n * batch;
    const op = values.inverse ? 'ifft' : 'fft';
    const timed = b.benchmark ? await b.benchmark(op, n, batch, false, { reps, endToEnd: true }) : undefined;
    const row = [
      n,
      timed?.batch ?? batch,
      b.fftPlanner.plan(n).describe(),
      timed ? timed.kernelMs.toFixed(3) : 'no timestamp-query',
      timed ? (timed.samplesPerSecond / 1e9).toPrecision(3) : '',
    ];
    if (timed) {
      row.push(timed.endToEndMs.toFixed(3), ((timed.batch * n) / timed.endToEndMs / 1e6).toPrecision(3));
    } else {
      const call = median(await wholeCalls(b, n, batch, values.inverse));
      row.push(call.toFixed(3), (samples / call / 1e6).toPrecision(3));
    }
    console.log(row.join('\t'));
  }
}

const b = await createWebGpuBackend();
console.log(`device: ${b.device}`);
console.log(`details: ${JSON.stringify(b.details)}`);
if (values['compare-rounds']) await compareRounds(b);
else if (values['compare-radix16']) await compareRadix16(b);
else if (values.sweep !== undefined) await sweep(b, values.sweep.split(';'));
else await table(b);
await b.dispose();
