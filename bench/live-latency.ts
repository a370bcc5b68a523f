// Sample-to-pixel latency of the live view and the waterfall's frame rate, through the real paths: a tone
// played into a PulseAudio null sink, captured by the engine (audify), rows over the WebSocket of
// `phasor serve`, drawn by the renderer in Chromium (playwright-core).
//
//   npx tsx bench/live-latency.ts [--seconds 15] [--width 2400 --height 1000 --dpr 2] [--chromium PATH] [--gpu]
//                                 [--app-dir out/renderer] [--source mic|generator] [--chromium-arg ARG …]
//
// Phase 1: microphone at 48 kHz, FFT 2048, 75 % overlap: latency = draw call time − capture time of the
// newest sample of the rows drawn (window.__phasor.latency), p50/p99/max.
// Phase 2: FFT 8192 (4097 bins) on a plot at least 4096 device pixels wide, so the waterfall shows 4096
// columns: frames per second and main-thread ms per frame. At 75 % overlap that is 23.4 rows/s, so at most
// 23.4 frames per second have anything new to draw; phase 3 raises the overlap to 95 % (117 rows/s) so the
// display has new rows for every frame at 60 Hz.
// Two frame rates: `fps` counts frames in which the display drew something (bounded by the rows' rate),
// `raf` counts the animation frames the browser ran (bounded by how fast it can produce frames: a display
// that is too slow to draw lowers it). `>25 ms` is the share of frame intervals longer than 1.5 frames.
// Headless Chromium renders WebGL with SwiftShader (software) unless --gpu is given (ANGLE on Vulkan, the
// GPU's driver): the WebGL renderer is printed, say which in the notes. `--source generator` measures the
// generator paced at 48 kHz instead of the microphone (for machines without an audio server): its rows
// carry the time their newest sample was released, as the microphone's carry the time it was captured.

import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, startServe } from '../test/e2e/support.js';
import { startPulse } from '../test/support/pulse.js';
import { writeTestWav } from '../test/support/wav.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '15' },
    chromium: { type: 'string', default: '/usr/bin/chromium' },
    gpu: { type: 'boolean', default: false },
    width: { type: 'string', default: '2400' },
    height: { type: 'string', default: '1000' },
    dpr: { type: 'string', default: '2' },
    'app-dir': { type: 'string' }, // another built renderer (e.g. a copy of an older build, to compare)
    source: { type: 'string', default: 'mic' },
    'chromium-arg': { type: 'string', multiple: true, default: [] },
  },
});
if (values.source !== 'mic' && values.source !== 'generator') {
  throw new Error(`--source is mic or generator, not ${values.source}`);
}
const useMic = values.source === 'mic';
// ANGLE on Vulkan: the GPU's own driver, with no window surface (headless).
const GPU_ARGS = [
  '--ignore-gpu-blocklist',
  '--use-angle=vulkan',
  '--enable-features=Vulkan',
  '--disable-vulkan-surface',
];
const seconds = Number(values.seconds);
const FS = 48000;

let pulse: Awaited<ReturnType<typeof startPulse>> | null = null;
if (useMic) {
  pulse = await startPulse('phasor_bench', FS);
  const wav = join(pulse.dir, 'tone.wav');
  const n = (4 * seconds + 30) * FS;
  writeTestWav(
    wav,
    Float64Array.from({ length: n }, (_, i) => 0.25 * Math.sin((2 * Math.PI * 1000 * i) / FS)),
    FS,
    1,
  );
  pulse.play(wav);
  Object.assign(process.env, pulse.env); // the server's audio worker talks to this daemon
}

const server = await startServe(values['app-dir'] ? ['--app-dir', values['app-dir']] : []);
const browser = await chromium.launch({
  executablePath: values.chromium,
  headless: true,
  args: [...CHROMIUM_ARGS, ...(values.gpu ? GPU_ARGS : []), ...values['chromium-arg']],
});
let failed: (() => Promise<void>) | null = null;
try {
  const page = await browser.newPage({
    viewport: { width: Number(values.width), height: Number(values.height) },
    deviceScaleFactor: Number(values.dpr),
    bypassCSP: true, // waitForFunction evaluates its predicate as a string
  });
  // What the page said, printed if the run fails (a browser on another machine is hard to look at).
  const said: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') said.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => said.push(`page error: ${e.message}`));
  failed = async () => {
    const state = await page
      .evaluate(() =>
        JSON.stringify({ info: window.__phasor?.info, requests: window.__phasor?.requests.slice(-4) }),
      )
      .catch((e: unknown) => String(e));
    const fft = await page
      .locator('[data-test="fft-size"]')
      .evaluate((e) => `${(e as HTMLInputElement).value} ${e.getAttribute('aria-invalid')}`)
      .catch((e: unknown) => String(e));
    console.error([...said.slice(-20), `fft field: ${fft}`, `state: ${state}`].join('\n'));
    if (process.env.PHASOR_BENCH_SHOT) await page.screenshot({ path: process.env.PHASOR_BENCH_SHOT });
  };
  await page.goto(server.url);
  await page.waitForFunction('window.__phasor && window.__phasor.info !== null', undefined, {
    timeout: 30000,
  });
  const renderer = await page.evaluate(() => {
    const gl = document.createElement('canvas').getContext('webgl2');
    const ext = gl?.getExtension('WEBGL_debug_renderer_info');
    return ext ? String(gl!.getParameter(ext.UNMASKED_RENDERER_WEBGL)) : 'unknown';
  });

  // The browser's own frame clock, apart from the app's: every animation frame's timestamp.
  // (A string: tsx would wrap a named function in a helper the page does not have.)
  await page.evaluate(`(() => {
    window.__rafTimes = [];
    const tick = (t) => { window.__rafTimes.push(t); requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
  })()`);

  const phase = async (fft: number, overlap: number) => {
    const ov = page.locator('[data-test="overlap"]');
    if (Number(await ov.inputValue()) !== overlap) await ov.selectOption(String(overlap));
    // The preset buttons set the size (the sizes measured here are all presets) as a user's click does.
    const label = fft >= 1024 ? `${fft / 1024}k` : String(fft);
    await page
      .locator('[data-test="analysis-controls"] .presets button', {
        hasText: new RegExp(`^\\s*${label}\\s*$`),
      })
      .click();
    const hop = Math.max(1, Math.round(fft * (1 - overlap)));
    await page.waitForFunction(
      `window.__phasor.info && window.__phasor.info.fft === ${fft} && window.__phasor.info.hop === ${hop}`,
      undefined,
      { timeout: 15000 },
    );
    await page.waitForTimeout(2000); // settle
    await page.evaluate(() => {
      window.__phasor!.reset();
      (window as unknown as { __rafTimes: number[] }).__rafTimes.length = 0;
    });
    await page.waitForTimeout(seconds * 1000);
    return page.evaluate(() => {
      const h = window.__phasor!;
      const ft = Array.from(h.frameTime.values()).sort((a, b) => a - b);
      const raf = (window as unknown as { __rafTimes: number[] }).__rafTimes;
      let long = 0;
      for (let i = 1; i < raf.length; i++) if (raf[i] - raf[i - 1] > 25) long++;
      return {
        info: h.info,
        latency: h.latencyStats(),
        framesDrawn: h.framesDrawn,
        rowsDrawn: h.rowsDrawn,
        frameMsP50: ft[Math.floor(ft.length / 2)] ?? NaN,
        frameMsP99: ft[Math.floor(ft.length * 0.99)] ?? NaN,
        rafFrames: raf.length,
        longFrames: raf.length > 1 ? long / (raf.length - 1) : NaN,
      };
    });
  };

  if (useMic) {
    await page.selectOption('#source-kind', 'mic');
    await page.waitForFunction(
      () => {
        const r = window.__phasor!.requests.filter((x) => x.method === 'start').at(-1);
        return !!r && r.ok === true && (r.params as { source: { kind: string } }).source.kind === 'mic';
      },
      undefined,
      { timeout: 15000 },
    );
  }
  const mic = await phase(2048, 0.75);
  const wide = await phase(8192, 0.75);
  const dense = await phase(8192, 0.95);
  const status = await page
    .locator('[data-test="status-bar"]')
    .innerText()
    .catch(() => '');

  const fps = (r: { framesDrawn: number }) => r.framesDrawn / seconds;
  const src = useMic ? 'mic' : 'gen';
  console.log(`live view, ${new Date().toISOString()}, WebGL renderer: ${renderer}`);
  console.log(`window ${values.width}×${values.height} CSS px at devicePixelRatio ${values.dpr}`);
  console.log(
    `phase                         width  rows/s  p50 ms  p99 ms  max ms   fps   raf  >25 ms  frame ms p50/p99`,
  );
  for (const [name, r] of [
    [`${src} 48 kHz, FFT 2048, 75 %`, mic],
    [`${src} 48 kHz, FFT 8192, 75 %`, wide],
    [`${src} 48 kHz, FFT 8192, 95 %`, dense],
  ] as const) {
    console.log(
      `${name.padEnd(28)}  ${String(r.info?.width).padStart(5)}  ${(r.rowsDrawn / seconds).toFixed(1).padStart(6)}  ` +
        `${r.latency.p50.toFixed(1).padStart(6)}  ${r.latency.p99.toFixed(1).padStart(6)}  ${r.latency.max.toFixed(1).padStart(6)}  ` +
        `${fps(r).toFixed(1).padStart(4)}  ${(r.rafFrames / seconds).toFixed(1).padStart(4)}  ` +
        `${(100 * r.longFrames).toFixed(0).padStart(4)} %  ${r.frameMsP50.toFixed(2)}/${r.frameMsP99.toFixed(2)}`,
    );
  }
  if (status) console.log(`status bar: ${status.replace(/\s+/g, ' ')}`);
} catch (e) {
  await failed?.();
  throw e;
} finally {
  await browser.close();
  await server.stop();
  await pulse?.stop();
}
