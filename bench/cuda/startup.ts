// What a process pays before its first CUDA result: loading the addon, the probe (the driver's start), importing
// the backend, opening it (the context, streams), one FFT. With `warm`, warmCuda() first and `--idle` ms of
// other work before the probe, as the CLI does while it loads a job. One JSON line of milliseconds; run it a few
// times, a process each (the driver starts once per process).
//
//   npx tsx bench/cuda/startup.ts [cold|warm] [--idle 150]
import { parseArgs } from 'node:util';
import { loadAddon, warmCuda } from '../../electron/engine/backends/cuda/addon.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { idle: { type: 'string', default: '150' } },
});
const mode = positionals[0] ?? 'cold';
const t0 = performance.now();
const load = loadAddon();
if (!load.addon) {
  console.error(`no CUDA addon: ${load.reason}`);
  process.exit(2);
}
const t1 = performance.now();
if (mode === 'warm') {
  warmCuda(0);
  await new Promise((r) => setTimeout(r, Number(values.idle)));
}
const t2 = performance.now();
const probe = load.addon.probe(0);
const t3 = performance.now();
if (!probe.available) {
  console.error(`CUDA is not available here: ${probe.reason}`);
  process.exit(2);
}
const { createCudaBackend } = await import('../../electron/engine/backends/cuda/index.js');
const t4 = performance.now();
const backend = await createCudaBackend();
const t5 = performance.now();
await backend.fft(new Float32Array(2 * 4096 * 16), 4096);
const t6 = performance.now();
await backend.dispose();
const ms = (x: number) => Math.round(x * 10) / 10;
console.log(
  JSON.stringify({
    mode,
    device: probe.device ?? probe.reason,
    addonLoad: ms(t1 - t0),
    probe: ms(t3 - t2),
    importBackend: ms(t4 - t3),
    open: ms(t5 - t4),
    firstFft: ms(t6 - t5),
    probeToResult: ms(t6 - t2),
  }),
);
