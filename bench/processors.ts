// The processors' host path, in one process: (1) a file job's pushes — 1 GiB of cf32 pushed in blocks
// into two reused output blocks, as the CLI's filter and spectrogram jobs do (the correlator returns its
// peaks only, as `phasor correlate` asks) — and (2) whole calls as `phasor bench` makes them (4 Mi real
// samples: a processor created, one push, flushed, disposed), each backend's calls alternated with the
// others' and with a baseline build's (--baseline), medians printed side by side.
//
//   npm run build && npx tsx bench/processors.ts [--backend webgpu,cuda] [--block-mib 4] [--rounds 15]
//     [--baseline OTHER/dist]     (OTHER: an older checkout, built; its WebGPU backend is timed beside)
//     [--pieces 4,8]              (more WebGPU backends with processor pieces of that many MiB)
import { parseArgs } from 'node:util';
import path from 'node:path';
import type { Backend } from '../electron/engine/backends/backend.js';
import { openBackend } from '../electron/engine/backends/registry.js';
import { createWebGpuBackend } from '../electron/engine/backends/webgpu/index.js';

const { values } = parseArgs({
  options: {
    backend: { type: 'string', default: 'webgpu,cuda' },
    'block-mib': { type: 'string', default: '4' },
    rounds: { type: 'string', default: '15' },
    baseline: { type: 'string' },
    pieces: { type: 'string' },
  },
});

const backends: [string, Backend][] = [];
for (const name of values.backend.split(',')) backends.push([name, await openBackend(name)]);
// --pieces 4,8: more WebGPU backends, each with its processors' pieces of that many MiB
for (const mib of values.pieces?.split(',') ?? []) {
  const b = await createWebGpuBackend();
  b.ctx.processorPieceBytes = Number(mib) << 20;
  backends.push([`webgpu (${mib} MiB pieces)`, b]);
}
if (values.baseline) {
  const dir = path.resolve(values.baseline, 'electron/engine/backends/webgpu/index.js');
  const mod = (await import(dir)) as { createWebGpuBackend(): Promise<Backend> };
  backends.push(['webgpu (baseline)', await mod.createWebGpuBackend()]);
}
const median = (a: number[]) => [...a].sort((p, q) => p - q)[a.length >> 1];
const hann = (n: number) =>
  Float32Array.from({ length: n }, (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / n));

// (1) a file job's pushes
const blockMiB = Number(values['block-mib']);
const B = (blockMiB << 20) / 8; // complex samples a block
const ins = [0, 1, 2, 3].map(() => Float32Array.from({ length: 2 * B }, () => Math.random() - 0.5));
const outs = [0, 1].map(() => new Float32Array(4 * B + 8192));
const pushes = (1 << 27) / B;
const taps = Float32Array.from({ length: 255 }, (_, i) => Math.sin(i + 1) / 255);
console.log(`1 GiB of cf32 in ${blockMiB} MiB pushes, into two reused blocks (ms):`);
for (const [name, b] of backends) {
  const fir = b.createFir({ taps, complex: true, channels: 1 });
  await fir.process(ins[0], outs[0]);
  let t0 = performance.now();
  for (let k = 0; k < pushes; k++) await fir.process(ins[k % 4], outs[k % 2]);
  const firMs = performance.now() - t0;
  fir.dispose();
  const spec = b.createSpectrogram({ fft: 4096, hop: 1024, window: hann(4096), complex: true });
  await spec.push(ins[0], outs[0]);
  t0 = performance.now();
  for (let k = 0; k < pushes; k++) await spec.push(ins[k % 4], outs[k % 2]);
  const specMs = performance.now() - t0;
  spec.dispose();
  const corr = b.createCorrelator({ template: ins[1].slice(0, 8192), complex: true, peaks: 5 });
  await corr.process(ins[0]);
  t0 = performance.now();
  for (let k = 0; k < pushes; k++) await corr.process(ins[k % 4]);
  const corrMs = performance.now() - t0;
  corr.dispose();
  console.log(
    `  ${name}: FIR 255 taps ${firMs.toFixed(0)}, spectrogram 4096 hop 1024 ${specMs.toFixed(0)}, ` +
      `correlate 4096 (peaks) ${corrMs.toFixed(0)}`,
  );
}

// (2) whole calls, alternated
const total = 1 << 22;
const x = Float32Array.from({ length: total }, () => Math.random() - 0.5);
const calls: Record<string, (b: Backend) => Promise<unknown>> = {
  'spectrogram 4096': async (b) => {
    const p = b.createSpectrogram({ fft: 4096, hop: 1024, window: hann(4096), complex: false });
    await p.push(x);
    p.dispose();
  },
  'spectrogram 1024': async (b) => {
    const p = b.createSpectrogram({ fft: 1024, hop: 256, window: hann(1024), complex: false });
    await p.push(x);
    p.dispose();
  },
  'fir 1024 real': async (b) => {
    const f = b.createFir({ taps: hann(1024).map((v) => v / 512), complex: false, channels: 1 });
    await f.process(x);
    await f.flush();
    f.dispose();
  },
  'fir 255 complex': async (b) => {
    const f = b.createFir({ taps, complex: true, channels: 1 });
    await f.process(x);
    await f.flush();
    f.dispose();
  },
  'correlate 4096': async (b) => {
    const c = b.createCorrelator({ template: x.slice(100, 4196), complex: false, scores: true, peaks: 5 });
    await c.process(x);
    await c.flush();
    c.dispose();
  },
};
console.log(`whole calls on ${total} real samples, medians of ${values.rounds} alternated (ms, Msamples/s):`);
for (const [label, call] of Object.entries(calls)) {
  const times = backends.map(() => [] as number[]);
  for (const [, b] of backends) await call(b);
  for (let r = 0; r < Number(values.rounds); r++) {
    for (let i = 0; i < backends.length; i++) {
      const t0 = performance.now();
      await call(backends[i][1]);
      times[i].push(performance.now() - t0);
    }
  }
  const cells = backends.map(([name], i) => {
    const ms = median(times[i]);
    return `${name} ${ms.toFixed(2)} (${(total / ms / 1e3).toFixed(0)})`;
  });
  console.log(`  ${label}: ${cells.join(', ')}`);
}
for (const [, b] of backends) await b.dispose();
process.exit(0);
