// The WebGPU backend on Chromium's navigator.gpu beside the same backend on Dawn in Node and beside CUDA, in
// one process and one run: the desktop app's path (the backend in a browser worker behind the MessagePort
// bridge) timed by the same device timer (timestamp queries, run inside the browser), with CUDA's rows
// (CUDA events, cuFFT as its reference) and Dawn's on the same sizes. Kernel rows are data on the device;
// end-to-end rows are a whole call from the host arrays of the side that runs it (Node for CUDA and Dawn,
// the browser worker for Chromium).
//
//   npx tsx bench/webgpu/chromium.ts [--chromium /usr/lib/chromium/chromium-headless-shell]
//       [--gpu nvidia|swiftshader] [--backends cuda,dawn,chromium] [--samples 16777216] [--json out.json]
//       [--page DIR] [--probe-switches]
//   npx tsx bench/webgpu/chromium.ts --write-page DIR
//
// The bridge page is built with Vite when the bench starts; --write-page builds it into DIR and exits, and
// --page DIR serves that build, so a bundle of this file (esbuild, playwright-core, vite and webgpu
// external) runs where Vite is not installed, as on the lent GPU machine:
//   npx tsx bench/webgpu/chromium.ts --write-page .device/x/page
//   node_modules/.bin/esbuild bench/webgpu/chromium.ts --bundle --platform=node --format=esm \
//     --external:playwright-core --external:vite --external:webgpu --outfile=.device/x/chromium.mjs \
//     "--banner:js=import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);"
//
// --gpu nvidia passes the desktop app's switches for its WebGPU window (electron/main/gpu-window.ts: WebGPU,
// Vulkan with ANGLE on it, exact timestamps, no workgroup zero-fill) and what headless Chromium needs to run
// on the GPU (no Vulkan surface); --gpu swiftshader (the default here) only shows the path.
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import type { Backend } from '../../electron/engine/backends/backend.js';
import { createCudaBackend } from '../../electron/engine/backends/cuda/index.js';
import { connectWebGpuBridge } from '../../electron/engine/backends/webgpu/bridge/client.js';
import { createWebGpuBackend } from '../../electron/engine/backends/webgpu/index.js';
import { runDeviceBench, type BenchOp, type DeviceBenchRow } from '../../electron/engine/pipeline/bench.js';
import { webGpuSwitches } from '../../electron/main/gpu-window.js';
import { buildBridgePage, serveBridgePage } from '../../test/webgpu/bridge-bundle.js';

const { values } = parseArgs({
  options: {
    chromium: { type: 'string', default: '/usr/lib/chromium/chromium-headless-shell' },
    gpu: { type: 'string', default: 'swiftshader' },
    backends: { type: 'string', default: 'cuda,dawn,chromium' },
    ops: { type: 'string', default: 'fft,spectrogram,fir,correlate' },
    'fft-sizes': { type: 'string', default: '64,256,1024,4096,8192,16384,65536,1048576,1000' },
    'fir-sizes': { type: 'string', default: '255,4095' },
    samples: { type: 'string', default: String(1 << 24) },
    repeats: { type: 'string', default: '10' },
    json: { type: 'string' },
    page: { type: 'string' },
    'write-page': { type: 'string' },
    'probe-switches': { type: 'boolean', default: false },
  },
});

if (values['write-page'] !== undefined) {
  const dir = values['write-page'];
  await mkdir(dir, { recursive: true });
  const files = await buildBridgePage();
  for (const [name, text] of files) await writeFile(path.join(dir, name), text);
  console.log(`bridge page: ${[...files.keys()].join(', ')} written to ${dir}`);
  process.exit(0);
}

/** The bridge page built beforehand (--page), or undefined to build it now. */
async function prebuiltPage(): Promise<Map<string, string> | undefined> {
  if (values.page === undefined) return undefined;
  const files = new Map<string, string>();
  for (const name of await readdir(values.page))
    files.set(name, await readFile(path.join(values.page, name), 'utf8'));
  return files;
}

const COMMON = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
// The desktop app's switches for its WebGPU window (Linux), then what headless Chromium needs to put its GPU
// process on the GPU (no surface to present to); switch sets tried in turn until one gives a hardware
// adapter. The first is what --probe-switches found enough on the lent H200, the second the earlier set.
const APP = webGpuSwitches('linux').map(([name, value]) => (value ? `--${name}=${value}` : `--${name}`));
const GPU_ARGS: Record<string, string[][]> = {
  nvidia: [
    [...APP, '--disable-vulkan-surface'],
    [...APP, '--ignore-gpu-blocklist', '--disable-vulkan-surface'],
  ],
  swiftshader: [['--enable-unsafe-webgpu', '--use-webgpu-adapter=swiftshader']],
};
// --probe-switches: before the bench, the app's switches without and with ANGLE on Vulkan and the sets
// above, one browser each, and the adapter each gave (what does the app's window need?).
const NO_ANGLE = APP.filter((a) => !a.startsWith('--use-angle='));
const ANGLE_FEATURES = NO_ANGLE.map((a) =>
  a.startsWith('--enable-features=') ? `${a},VulkanFromANGLE,DefaultANGLEVulkan` : a,
);
const PROBE_SETS: Record<string, string[][]> = {
  nvidia: [
    NO_ANGLE,
    [...NO_ANGLE, '--disable-vulkan-surface'],
    [...ANGLE_FEATURES, '--disable-vulkan-surface'],
    [...NO_ANGLE, '--ignore-gpu-blocklist', '--disable-vulkan-surface'],
    ...(GPU_ARGS.nvidia ?? []),
  ],
};
const gpuArgs = GPU_ARGS[values.gpu];
if (!gpuArgs) throw new Error(`--gpu: nvidia or swiftshader, not ${values.gpu}`);
const wanted = values.backends.split(',');
const ops = values.ops.split(',') as BenchOp[];
const samples = Number(values.samples);
const repeats = Number(values.repeats);
const sizesFor = (op: BenchOp): number[] =>
  op === 'fft'
    ? values['fft-sizes'].split(',').map(Number)
    : op === 'fir'
      ? values['fir-sizes'].split(',').map(Number)
      : [4096];

if (values['probe-switches']) {
  const server = await serveBridgePage(await prebuiltPage());
  for (const args of PROBE_SETS[values.gpu] ?? gpuArgs) {
    const browser = await chromium.launch({ executablePath: values.chromium, args: [...COMMON, ...args] });
    try {
      const { port } = await server.open(browser);
      const b = await connectWebGpuBridge(port, { timeoutMs: 30_000 });
      console.log(`switches ${args.join(' ')}: ${b.device} (software: ${b.details.software})`);
      await b.dispose();
    } catch (e) {
      console.log(`switches ${args.join(' ')}: no WebGPU: ${e instanceof Error ? e.message : e}`);
    }
    await browser.close();
  }
  server.close();
}

interface Side {
  label: string;
  open(): Promise<Backend>;
}
const log: string[] = [];
const cleanup: Array<() => Promise<void> | void> = [];
const sides: Side[] = [
  { label: 'cuda', open: () => createCudaBackend() },
  { label: 'dawn', open: () => createWebGpuBackend() },
  {
    label: 'chromium',
    open: async () => {
      const server = await serveBridgePage(await prebuiltPage());
      cleanup.push(() => server.close());
      for (const args of gpuArgs) {
        const browser = await chromium.launch({
          executablePath: values.chromium,
          args: [...COMMON, ...args],
        });
        try {
          const { port } = await server.open(browser, log);
          const b = await connectWebGpuBridge(port, { timeoutMs: 30_000 });
          if (values.gpu === 'swiftshader' || b.details.software === 'no') {
            console.log(`chromium switches: ${args.join(' ')}`);
            cleanup.push(() => browser.close());
            return b;
          }
          console.log(`chromium gave a software adapter (${b.device}) with: ${args.join(' ')}`);
          await b.dispose();
        } catch (e) {
          console.log(
            `chromium found no WebGPU with: ${args.join(' ')}: ${e instanceof Error ? e.message : e}`,
          );
        }
        await browser.close();
      }
      // Say what Chromium's GPU process saw, for the next attempt.
      const browser = await chromium.launch({
        executablePath: values.chromium,
        args: [...COMMON, ...gpuArgs[0]],
      });
      try {
        const page = await browser.newPage();
        await page.goto('chrome://gpu');
        await page.waitForTimeout(3000);
        console.log(`chrome://gpu:\n${(await page.innerText('body')).slice(0, 6000)}`);
      } catch (e) {
        console.log(`chrome://gpu could not be read: ${e instanceof Error ? e.message : e}`);
      }
      await browser.close();
      throw new Error('no switch set gave Chromium a hardware WebGPU adapter');
    },
  },
].filter((s) => wanted.includes(s.label));

const rows: Array<DeviceBenchRow & { side: string }> = [];
const devices: Record<string, { device: string; details: Record<string, unknown> }> = {};
for (const side of sides) {
  let b: Backend;
  try {
    b = await side.open();
  } catch (e) {
    console.log(`${side.label}: not run: ${e instanceof Error ? e.message : String(e)}`);
    continue;
  }
  devices[side.label] = { device: b.device, details: b.details ?? {} };
  console.log(`${side.label}: ${b.device}`);
  try {
    for (const op of ops) {
      const got = await runDeviceBench(b, { ops: [op], sizes: sizesFor(op), samples, repeats });
      for (const r of got) {
        rows.push({ ...r, side: r.backend === b.name ? side.label : `${side.label} ${r.backend}` });
        console.log(
          `  ${side.label} ${r.backend} ${r.op} ${r.size} ${r.note ?? ''} ${r.timing}: ${r.ms.toFixed(3)} ms`,
        );
      }
    }
  } catch (e) {
    console.log(`${side.label}: failed: ${e instanceof Error ? e.message : String(e)}`);
  } finally {
    await b.dispose();
  }
}
for (const c of cleanup) await c();
if (log.length > 0) console.log(`the page said:\n${log.join('\n')}`);

// One line per measurement, the three sides across: ms, and each WebGPU side's speed over CUDA's.
const variant = (r: DeviceBenchRow) =>
  r.note === undefined || r.note.startsWith('no reference') ? '' : r.note.split(';')[0];
const key = (r: DeviceBenchRow) => `${r.op}|${r.size}|${variant(r)}|${r.timing}`;
const keys = [...new Set(rows.filter((r) => sides.some((s) => s.label === r.side)).map(key))];
const at = (side: string, k: string) => rows.find((r) => r.side === side && key(r) === k);
const refOf = (side: string, k: string) =>
  rows.find((r) => r.side.startsWith(`${side} `) && key(r) === k && r.timing === 'kernel');
const f = (x: number | undefined, d = 3) => (x === undefined || !Number.isFinite(x) ? '-' : x.toFixed(d));
const head = ['op', 'size', 'variant', 'timing', 'cuda ms', 'cuFFT ref ms', 'dawn ms', 'chromium ms'];
head.push('dawn × cuda', 'chromium × cuda', 'chromium × dawn', 'dawn unfused ms', 'chromium rel err');
const lines = [head.join('\t')];
for (const k of keys) {
  const [op, size, v, timing] = k.split('|');
  const c = at('cuda', k);
  const d = at('dawn', k);
  const g = at('chromium', k);
  const speed = (a?: DeviceBenchRow, b?: DeviceBenchRow) => (a && b ? b.ms / a.ms : undefined);
  lines.push(
    [
      op,
      size,
      v || '-',
      timing,
      f(c?.ms),
      f(refOf('cuda', k)?.ms),
      f(d?.ms),
      f(g?.ms),
      f(speed(d, c), 2),
      f(speed(g, c), 2),
      f(speed(g, d), 2),
      f(refOf('dawn', k)?.ms),
      g ? g.relError.toExponential(1) : '-',
    ].join('\t'),
  );
}
console.log(`\n${samples} samples a measurement, median of ${repeats}; × = speed over (time ratio)`);
console.log(lines.join('\n'));
if (values.json) await writeFile(values.json, JSON.stringify({ devices, rows }, null, 2) + '\n');
