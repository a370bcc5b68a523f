// Batched complex FFT on the WebGPU backend: kernel time from GPU timestamp queries (the backend's device
// timer, electron/engine/backends/webgpu/devtimer.ts, when the adapter has `timestamp-query`; the data
// already on the device) and whole calls from host arrays and back.
// Prints medians and Gsamples/s, one row per size, with the plan each size took (one pass or four-step
// of the power-of-two kernel, mixed radix in one pass or four-step, Bluestein).
//
//   npx tsx bench/webgpu/fft.ts [--sizes 64,256,1024,4096,65536,1048576] [--points 16777216] [--reps 20]
//   npx tsx bench/webgpu/fft.ts --sizes 100,360,1000,3000,4800,44100,48000,96000     (mixed radix)
//   VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json npx tsx bench/webgpu/fft.ts --points 262144 --reps 3
//
// batch = points / n (at least 1). On SwiftShader the numbers only show that the path works.
import { parseArgs } from 'node:util';
import { createWebGpuBackend, type WebGpuBackend } from '../../electron/engine/backends/webgpu/index.js';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '64,256,1024,4096,16384,65536,1048576,1000,3000,48000' },
    points: { type: 'string', default: String(1 << 24) },
    reps: { type: 'string', default: '20' },
    inverse: { type: 'boolean', default: false },
  },
});
const sizes = values.sizes.split(',').map(Number);
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

const b = await createWebGpuBackend();
console.log(`device: ${b.device}`);
console.log(`details: ${JSON.stringify(b.details)}`);
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
await b.dispose();
