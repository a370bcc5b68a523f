// The desktop app's WebGPU path, end to end, in headless Chromium: the WebGpuBackend runs on Chromium's
// navigator.gpu (SwiftShader here and in CI) in a dedicated worker, reached through a real MessagePort from
// the page; the page relays the bridge's messages to this process over a WebSocket (standing in for the
// MessagePortMain between the hidden window and the engine process). The engine's proxy backend computes
// FFTs, a spectrogram, FIR filters and a correlation through it, compared with the CPU backend (float64)
// within the conformance suite's tolerances. Never skipped in CI (it has chromium); small sizes, as
// SwiftShader is slow.
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Backend, BackendProvider, CorrelationChunk } from '../../electron/engine/backends/backend.js';
import { createCpuBackend } from '../../electron/engine/backends/cpu/index.js';
import { FailoverBackend } from '../../electron/engine/backends/failover.js';
import {
  connectWebGpuBridge,
  webGpuBridgeProvider,
  type BridgedWebGpuBackend,
} from '../../electron/engine/backends/webgpu/bridge/client.js';
import type { BridgePort } from '../../electron/engine/backends/webgpu/bridge/protocol.js';
import { getWindow } from '../../electron/engine/dsp/index.js';
import type { PhasorWarning } from '../../electron/engine/errors.js';
import { concat, maxAbsDiff, randomF32, relL2 } from '../conformance/util.js';
import { chromium as chromiumPart, needs } from '../support/requirements.js';
import { serveBridgePage, type BridgeServer } from './bridge-bundle.js';

const CHROMIUM = process.env.PHASOR_CHROMIUM ?? '/usr/bin/chromium';
const ARGS = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--enable-unsafe-webgpu',
  '--use-webgpu-adapter=swiftshader',
];
/** The conformance suite's tolerance for float32 backends (relative L2 against float64). */
const TOL = 1e-6;

const found = existsSync(CHROMIUM);
if (!found) {
  if (process.env.CI) throw new Error(`the Chromium WebGPU test must run in CI, but ${CHROMIUM} is missing`);
}

let bridge: BridgeServer;
let browser: Browser;
let gpu: BridgedWebGpuBackend;
let cpu: Backend;
const pageLog: string[] = [];

beforeAll(async () => {
  if (!found) return;
  bridge = await serveBridgePage();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  gpu = await connectWebGpuBridge(await openPage().then((p) => p.port), { timeoutMs: 60_000 });
  cpu = await createCpuBackend({ threads: 0, precision: 'double' });
}, 120_000);

/** A new page of the bridge (its own worker and WebSocket): the port to it, and the page. */
function openPage(): Promise<{ port: BridgePort; page: Page }> {
  return bridge.open(browser, pageLog);
}

afterAll(async () => {
  await gpu?.dispose();
  await cpu?.dispose();
  await browser?.close();
  bridge?.close();
  if (pageLog.length > 0) console.log(`the page said:\n${pageLog.join('\n')}`);
});

describe('the WebGPU backend in headless Chromium, through the bridge', needs(chromiumPart), () => {
  it('names the browser’s adapter and its API', () => {
    expect(gpu.name).toBe('webgpu');
    expect(gpu.device).toMatch(/\(WebGPU, Chromium \d+, Vulkan\)$/);
    expect(gpu.details.api).toMatch(/^Vulkan, Chromium \d+ WebGPU \(navigator\.gpu\)$/);
    expect(String(gpu.details.architecture).toLowerCase()).toContain('swiftshader');
    expect(typeof gpu.details.vendor).toBe('string');
    expect(gpu.details.software).toBe('yes'); // so `auto` passes over it, as over Dawn's SwiftShader
    expect(gpu.details.maxFft).toBeGreaterThan(4096);
    console.log(`Chromium's adapter: ${gpu.device}; ${JSON.stringify(gpu.details)}`);
  });

  it('computes batched FFTs and real FFTs as the CPU backend does', async () => {
    for (const [n, batch] of [
      [64, 4],
      [1024, 2],
      [100, 3], // not a power of two
    ]) {
      const x = randomF32(2 * n * batch, n);
      expect(relL2(await gpu.fft(x, n), await cpu.fft(x, n)), `fft ${n}`).toBeLessThanOrEqual(TOL);
      const back = await gpu.fft(await gpu.fft(x, n), n, { inverse: true });
      expect(relL2(back, x), `ifft ${n}`).toBeLessThanOrEqual(2 * TOL);
    }
    const r = randomF32(512 * 3, 5);
    const bins = await gpu.rfft(r, 512);
    expect(relL2(bins, await cpu.rfft(r, 512))).toBeLessThanOrEqual(TOL);
    expect(relL2(await gpu.irfft(bins, 512), r)).toBeLessThanOrEqual(2 * TOL);
    // Data kept on the device between steps.
    const d = await gpu.upload(r);
    expect(relL2(await gpu.rfft(d, 512), await cpu.rfft(r, 512))).toBeLessThanOrEqual(TOL);
    expect(await d.download()).toEqual(r);
    d.free();
  }, 60_000);

  it('runs the fused spectrogram from floats and raw integers, block by block', async () => {
    const n = 256;
    const config = {
      fft: n,
      hop: 96,
      window: Float32Array.from(getWindow('hann', n)),
      complex: true,
      columns: 64,
      averaging: 0.25,
      peakHold: true,
    };
    const x = randomF32(2 * 3000, 6);
    const raw = {
      data: Uint8Array.from(x, (v) => Math.round(v * 127 + 127.5)),
      offset: 127.5,
      scale: 1 / 128,
    };
    for (const input of [x, raw]) {
      const g = gpu.createSpectrogram(config);
      const c = cpu.createSpectrogram(config);
      const rows = [];
      const want = [];
      for (const [from, to] of [
        [0, 1000],
        [1000, 1002],
        [1002, 6000],
      ]) {
        const block =
          input instanceof Float32Array
            ? input.subarray(from, to)
            : { ...raw, data: raw.data.subarray(from, to) };
        rows.push(await g.push(block));
        want.push(await c.push(block));
      }
      expect(rows.map((r) => [r.firstFrame, r.count, r.width])).toEqual(
        want.map((r) => [r.firstFrame, r.count, r.width]),
      );
      const lin = (db: Float32Array) => Float64Array.from(db, (v) => 10 ** (v / 10));
      const all = concat(rows.map((r) => r.rows));
      expect(relL2(lin(all), lin(concat(want.map((r) => r.rows))))).toBeLessThanOrEqual(20 * TOL);
      expect(relL2(lin(rows[2].average!), lin(want[2].average!))).toBeLessThanOrEqual(20 * TOL);
      expect(relL2(lin(rows[2].peak!), lin(want[2].peak!))).toBeLessThanOrEqual(20 * TOL);
      g.dispose();
      c.dispose();
    }
  }, 60_000);

  it('filters a stream with direct and overlap-save FIRs', async () => {
    const x = randomF32(2 * 5000, 7);
    for (const [taps, method] of [
      [9, 'direct'],
      [129, 'overlap-save'],
    ] as const) {
      const config = { taps: randomF32(taps, taps), complex: true, channels: 1, method };
      const g = gpu.createFir(config);
      expect(g.method).toBe(method);
      const parts = [];
      for (const [from, to] of [
        [0, 3000],
        [3000, 3002],
        [3002, 10_000],
      ])
        parts.push(await g.process(x.subarray(from, to)));
      parts.push(await g.flush());
      const c = cpu.createFir(config);
      const want = concat([await c.process(x), await c.flush()]);
      expect(relL2(concat(parts), want), method).toBeLessThanOrEqual(TOL);
      g.dispose();
      c.dispose();
    }
  }, 60_000);

  it('correlates a stream against a template and finds the planted copy', async () => {
    const template = randomF32(2 * 200, 8);
    const x = randomF32(2 * 4000, 9);
    const at = 1234;
    for (let i = 0; i < template.length; i++) x[2 * at + i] += 3 * template[i];
    const config = { template, complex: true, scores: true, peaks: 2 };
    const g = gpu.createCorrelator(config);
    const c = cpu.createCorrelator(config);
    const got: CorrelationChunk[] = [
      await g.process(x.subarray(0, 3000)),
      await g.process(x.subarray(3000)),
      await g.flush(),
    ];
    const want: CorrelationChunk[] = [await c.process(x), await c.flush()];
    const scores = (chunks: CorrelationChunk[]) => concat(chunks.map((k) => k.scores ?? new Float32Array(0)));
    expect(scores(got).length).toBe(4000 - 200 + 1);
    expect(maxAbsDiff(scores(got), scores(want))).toBeLessThanOrEqual(10 * TOL);
    const best = got.flatMap((k) => k.peaks).sort((a, b) => b.score - a.score)[0];
    expect(best.lag).toBe(at);
    expect(best.score).toBeGreaterThan(0.9);
    g.dispose();
    c.dispose();
  }, 60_000);

  it('fails over to the CPU without losing a block when the page goes away mid-stream', async () => {
    let page: Page | undefined;
    const warnings: PhasorWarning[] = [];
    const chain: BackendProvider[] = [
      webGpuBridgeProvider(async () => {
        const opened = await openPage();
        page = opened.page;
        return { port: opened.port };
      }),
      {
        name: 'cpu',
        probe: async () => ({ available: true, device: 'cpu' }),
        create: () => createCpuBackend({ threads: 0 }),
      },
    ];
    const b = await FailoverBackend.open(chain, (w) => warnings.push(w));
    expect(b.name).toBe('webgpu');
    const config = { taps: randomF32(33, 12), complex: false, channels: 1 };
    const x = randomF32(6000, 13);
    const f = b.createFir(config);
    const parts = [await f.process(x.subarray(0, 2000))];
    await page!.close(); // its worker, its device and its socket go with it
    parts.push(await f.process(x.subarray(2000, 4000)), await f.process(x.subarray(4000)), await f.flush());
    expect(b.name).toBe('cpu');
    expect(warnings.map((w) => w.message)).toEqual([
      expect.stringMatching(/^backend webgpu failed: the WebGPU bridge closed/),
    ]);
    const c = cpu.createFir(config);
    expect(relL2(concat(parts), concat([await c.process(x), await c.flush()]))).toBeLessThanOrEqual(TOL);
    c.dispose();
    await b.dispose();
  }, 60_000);
});
