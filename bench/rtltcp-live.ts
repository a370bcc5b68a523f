// rtl_tcp into the live view, sustained: a fake rtl_tcp server paced at --rate (default 3.2 Msamples/s,
// 6.4 MB/s of cu8), `phasor serve` granted it, and the built renderer in headless Chromium drawing the
// waterfall, for --minutes. Prints, every --every seconds and at the end: samples the server sent, blocks
// the engine analysed per second, samples and blocks dropped, reconnections, rows drawn, and the resident memory of
// the serve process (the engine runs in it), so "0 dropped, memory flat" is read off one table.
//
//   npx tsx bench/rtltcp-live.ts [--minutes 10] [--rate 3200000] [--every 30] [--fft 2048]

import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { launchChromium, startServe } from '../test/e2e/support.js';
import { startFakeRtlTcp } from '../test/support/fake-rtltcp.js';
import type { PhasorHooks } from '../renderer/src/lib/hooks.js';

declare global {
  interface Window {
    __phasor?: PhasorHooks;
  }
}

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    rate: { type: 'string', default: '3200000' },
    every: { type: 'string', default: '30' },
    fft: { type: 'string', default: '2048' },
  },
});
const minutes = Number(values.minutes);
const rate = Number(values.rate);
const every = Number(values.every);
const CENTRE = 100e6;

/** Resident memory (MiB) of a process, from /proc. */
function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

const fake = await startFakeRtlTcp({ centerFrequency: CENTRE, sampleRate: rate, carrier: CENTRE + rate / 8 });
const server = await startServe(['--rtl-tcp', `127.0.0.1:${fake.port}`]);
const pid = server.process!.pid!;
const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const until = async (expression: string, timeout = 30_000): Promise<void> => {
    const end = Date.now() + timeout;
    while (!(await page.evaluate(expression))) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${expression}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  await page.goto(server.url);
  await until('window.__phasor && window.__phasor.info !== null');
  await page.selectOption('#source-kind', 'rtl_tcp');
  const form = page.locator('[data-kind="rtl_tcp"]');
  await form.locator('[data-field="sampleRate"] select').selectOption(String(rate));
  await form.locator('[data-field="centerFrequency"] input').fill(String(CENTRE));
  await form.locator('[data-field="centerFrequency"] input').press('Enter');
  await form.locator('[data-field="port"] input').fill(String(fake.port));
  await form.locator('[data-field="port"] input').press('Enter');
  // Picking the kind started it at the default port (refused); start again with the fields filled in.
  await page.click('[data-test="start"]');
  await until(
    `window.__phasor.info && window.__phasor.info.sampleRate === ${rate} && window.__phasor.status?.link?.state === 'connected'`,
  );
  if (Number(values.fft) !== (await page.evaluate('window.__phasor.info.fft'))) {
    await page.locator('[data-test="fft-size"]').fill(values.fft);
    await page.locator('[data-test="fft-size"]').press('Enter');
    await until(`window.__phasor.info.fft === ${Number(values.fft)}`);
  }
  const info = (await page.evaluate('window.__phasor.info')) as { fft: number; hop: number; width: number };
  console.log(
    `rtl_tcp live view, ${new Date().toISOString()}: ${(rate / 1e6).toFixed(3)} Msamples/s paced, ` +
      `FFT ${info.fft}, hop ${info.hop}, ${info.width} columns, ${minutes} min`,
  );
  console.log(
    '   t s   sent Ms  blocks/s  dropped samples  dropped blocks  reconnects  rows drawn  fps  RSS MiB',
  );
  const t0 = Date.now();
  const bytes0 = fake.bytesSent;
  const rss: number[] = [];
  const row = async (): Promise<void> => {
    const s = (await page.evaluate(
      `({ st: window.__phasor.status, drawn: window.__phasor.rowsDrawn, fps: window.__phasor.fps })`,
    )) as {
      st: {
        blocksPerSecond: number;
        droppedBlocks: number;
        droppedRows: number;
        link?: { droppedSamples: number; reconnects: number };
      } | null;
      drawn: number;
      fps: number;
    };
    const r = rssMiB(pid);
    rss.push(r);
    const t = (Date.now() - t0) / 1000;
    console.log(
      `${t.toFixed(0).padStart(6)}  ${((fake.bytesSent - bytes0) / 2 / 1e6).toFixed(1).padStart(7)}  ` +
        `${(s.st?.blocksPerSecond ?? NaN).toFixed(1).padStart(8)}  ` +
        `${String(s.st?.link?.droppedSamples ?? '—').padStart(15)}  ${String(s.st?.droppedBlocks ?? '—').padStart(14)}  ` +
        `${String(s.st?.link?.reconnects ?? '—').padStart(10)}  ${String(s.drawn).padStart(10)}  ` +
        `${s.fps.toFixed(0).padStart(3)}  ${r.toFixed(0).padStart(7)}`,
    );
  };
  await row();
  const end = t0 + minutes * 60_000;
  while (Date.now() < end) {
    await new Promise((r) => setTimeout(r, Math.min(every * 1000, end - Date.now())));
    await row();
  }
  const sorted = rss.slice().sort((a, b) => a - b);
  console.log(
    `RSS MiB: start ${rss[0].toFixed(0)}, median ${sorted[sorted.length >> 1].toFixed(0)}, ` +
      `max ${sorted.at(-1)!.toFixed(0)}, end ${rss.at(-1)!.toFixed(0)}; ` +
      `sent ${((fake.bytesSent - bytes0) / 2 / 1e6).toFixed(1)} Msamples in ${((Date.now() - t0) / 1000).toFixed(0)} s; ` +
      `connections ${fake.connections}; page errors ${errors.length}`,
  );
} finally {
  await browser.close();
  await server.stop();
  await fake.close();
}
