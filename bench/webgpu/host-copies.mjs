// The floor of a WebGPU push from Node (Dawn): the host copies into a mapped staging buffer and out of a
// mapped readback, the GPU copies between them, serial and with two pieces in flight.
//   node bench/webgpu/host-copies.mjs   (on SwiftShader: VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json)
import { create, globals } from 'webgpu';

const { GPUBufferUsage, GPUMapMode } = globals;
const gpu = create(['enable-dawn-features=disable_robustness']);
const a = await gpu.requestAdapter({ powerPreference: 'high-performance' });
const d = await a.requestDevice();
console.log(a.info.description || a.info.device);
const B = 4 << 20;
const st = d.createBuffer({
  size: B,
  usage: GPUBufferUsage.COPY_SRC | GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST,
});
const st2 = d.createBuffer({
  size: B,
  usage: GPUBufferUsage.COPY_SRC | GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST,
});
const host = new Float32Array(B / 4).map(() => Math.random());
const out = new Float32Array(B / 4);
const med = (xs) => xs.sort((x, y) => x - y)[xs.length >> 1].toFixed(3);
const up = [0, 1].map(() =>
  d.createBuffer({
    size: B,
    usage: GPUBufferUsage.MAP_WRITE | GPUBufferUsage.COPY_SRC,
    mappedAtCreation: true,
  }),
);
const rb = [0, 1].map(() =>
  d.createBuffer({ size: B, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST }),
);
const T = { write: [], submit: [], map: [], read: [], total: [], done: [] };
for (let i = 0; i < 60; i++) {
  const t0 = performance.now();
  new Float32Array(up[0].getMappedRange()).set(host);
  up[0].unmap();
  const t1 = performance.now();
  const e = d.createCommandEncoder();
  e.copyBufferToBuffer(up[0], 0, st, 0, B);
  e.copyBufferToBuffer(st, 0, st2, 0, B);
  e.copyBufferToBuffer(st2, 0, rb[0], 0, B);
  d.queue.submit([e.finish()]);
  const t2 = performance.now();
  await rb[0].mapAsync(GPUMapMode.READ);
  const t3 = performance.now();
  out.set(new Float32Array(rb[0].getMappedRange()));
  rb[0].unmap();
  const t4 = performance.now();
  await up[0].mapAsync(GPUMapMode.WRITE);
  const t5 = performance.now();
  T.write.push(t1 - t0);
  T.submit.push(t2 - t1);
  T.map.push(t3 - t2);
  T.read.push(t4 - t3);
  T.done.push(t5 - t4);
  T.total.push(t5 - t0);
}
console.log(
  'serial 4 MiB ms: ' +
    Object.entries(T)
      .map(([k, v]) => `${k} ${med(v)}`)
      .join(', '),
);
// error scopes around a small call
let es = [];
for (let i = 0; i < 60; i++) {
  const t0 = performance.now();
  d.pushErrorScope('internal');
  d.pushErrorScope('out-of-memory');
  d.pushErrorScope('validation');
  await Promise.all([d.popErrorScope(), d.popErrorScope(), d.popErrorScope()]);
  es.push(performance.now() - t0);
}
console.log('error scopes push+pop: ' + med(es));
// two in flight: write k+1 while k runs; read k while k+1 runs
for (const chunkMiB of [4, 1]) {
  const C = chunkMiB << 20;
  const n = 1024 / chunkMiB; // 1 GiB
  const ups = [0, 1, 2].map(() =>
    d.createBuffer({
      size: C,
      usage: GPUBufferUsage.MAP_WRITE | GPUBufferUsage.COPY_SRC,
      mappedAtCreation: true,
    }),
  );
  const upReady = ups.map(() => Promise.resolve());
  const rbs = [0, 1].map(() =>
    d.createBuffer({ size: C, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST }),
  );
  const src = host.subarray(0, C / 4);
  const dst = out.subarray(0, C / 4);
  for (const depth of [1, 2]) {
    const t0 = performance.now();
    let pending = [];
    for (let k = 0; k < n; k++) {
      const u = k % 3;
      await upReady[u];
      new Float32Array(ups[u].getMappedRange(0, C)).set(src);
      ups[u].unmap();
      const r = rbs[k % 2];
      const e = d.createCommandEncoder();
      e.copyBufferToBuffer(ups[u], 0, st, 0, C);
      e.copyBufferToBuffer(st, 0, st2, 0, C);
      e.copyBufferToBuffer(st2, 0, r, 0, C);
      d.queue.submit([e.finish()]);
      upReady[u] = ups[u].mapAsync(GPUMapMode.WRITE);
      pending.push({ r, m: r.mapAsync(GPUMapMode.READ) });
      while (pending.length >= depth) {
        const p = pending.shift();
        await p.m;
        dst.set(new Float32Array(p.r.getMappedRange(0, C)));
        p.r.unmap();
      }
    }
    for (const p of pending) {
      await p.m;
      dst.set(new Float32Array(p.r.getMappedRange(0, C)));
      p.r.unmap();
    }
    await Promise.all(upReady);
    console.log(
      `1 GiB in ${chunkMiB} MiB chunks, ${depth} in flight: ${(performance.now() - t0).toFixed(1)} ms`,
    );
  }
}
process.exit(0);
