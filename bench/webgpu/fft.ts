// Batched complex FFT on the WebGPU backend: kernel time from GPU timestamp queries (when the adapter
// has `timestamp-query`; the data already on the device) and whole calls from host arrays and back.
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

const MAP_READ = 0x1;
const COPY_SRC = 0x4;
const COPY_DST = 0x8;
const STORAGE = 0x80;
const QUERY_RESOLVE = 0x200;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Kernel milliseconds of each rep from a timestamp pair around the plan's compute pass. */
async function kernelTimes(b: WebGpuBackend, n: number, batch: number, inverse: boolean): Promise<number[]> {
  const device = b.ctx.device;
  const plan = b.fftPlanner.plan(n);
  const bytes = batch * n * 8;
  const src = device.createBuffer({ size: bytes, usage: STORAGE | COPY_DST });
  const dst = device.createBuffer({ size: bytes, usage: STORAGE | COPY_SRC });
  const x = new Float32Array(2 * n * batch);
  for (let i = 0; i < x.length; i++) x[i] = Math.sin(i * 0.37) + 0.5 * Math.cos(i * 1.3);
  device.queue.writeBuffer(src, 0, x.buffer, x.byteOffset, x.byteLength);
  const querySet = device.createQuerySet({ type: 'timestamp', count: 2 });
  const resolve = device.createBuffer({ size: 16, usage: QUERY_RESOLVE | COPY_SRC });
  const read = device.createBuffer({ size: 16, usage: MAP_READ | COPY_DST });
  const times: number[] = [];
  for (let r = 0; r < reps + 2; r++) {
    const encoder = device.createCommandEncoder();
    const pass = encoder.beginComputePass({
      timestampWrites: { querySet, beginningOfPassWriteIndex: 0, endOfPassWriteIndex: 1 },
    });
    plan.encode({ pass, arena: b.fftPlanner.arena }, src, 0, dst, 0, batch, inverse);
    pass.end();
    encoder.resolveQuerySet(querySet, 0, 2, resolve, 0);
    encoder.copyBufferToBuffer(resolve, 0, read, 0, 16);
    b.fftPlanner.arena.flush(device.queue);
    device.queue.submit([encoder.finish()]);
    await read.mapAsync(MAP_READ);
    const t = new BigUint64Array(read.getMappedRange().slice(0));
    read.unmap();
    if (r >= 2) times.push(Number(t[1] - t[0]) / 1e6); // two warm-ups
  }
  for (const buf of [src, dst, resolve, read]) buf.destroy();
  querySet.destroy();
  return times;
}

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
  const kernel = b.ctx.timestamps ? median(await kernelTimes(b, n, batch, values.inverse)) : NaN;
  const call = median(await wholeCalls(b, n, batch, values.inverse));
  const row = [
    n,
    batch,
    b.fftPlanner.plan(n).describe(),
    b.ctx.timestamps ? kernel.toFixed(3) : 'no timestamp-query',
    b.ctx.timestamps ? (samples / kernel / 1e6).toPrecision(3) : '',
    call.toFixed(3),
    (samples / call / 1e6).toPrecision(3),
  ];
  console.log(row.join('\t'));
}
await b.dispose();
