// The browser's own microphone in web mode, end to end: `phasor serve` and the built renderer in headless
// Chromium, whose fake audio capture device plays a WAV file this test writes (a 3 kHz tone). Picking
// "This browser's microphone" in the Live view asks for the microphone (granted by the fake UI), streams
// the AudioWorklet's blocks over the WebSocket, and the engine's peak finder must find the tone within a
// bin or two. Stopping the session must stop the capture's tracks.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LiveInfo, PeaksEvent, StatusEvent } from '../../electron/engine/protocol/messages.js';
import { chromium, needs } from '../support/requirements.js';
import { AppPage } from './app.js';
import { launchChromium, startServe, type Server } from './support.js';

const FS = 48000;
const TONE = 3000;
const AMPLITUDE = 0.5;

/** A mono 16-bit PCM WAV of `seconds` of a tone; a whole number of periods, so Chromium's loop is seamless. */
function toneWav(seconds: number): Buffer {
  const n = Math.round(FS * seconds);
  const data = Buffer.alloc(n * 2);
  for (let i = 0; i < n; i++) {
    data.writeInt16LE(Math.round(32767 * AMPLITUDE * Math.sin((2 * Math.PI * TONE * i) / FS)), 2 * i);
  }
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'ascii');
  h.writeUInt32LE(36 + data.length, 4);
  h.write('WAVEfmt ', 8, 'ascii');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20); // PCM
  h.writeUInt16LE(1, 22); // mono
  h.writeUInt32LE(FS, 24);
  h.writeUInt32LE(FS * 2, 28);
  h.writeUInt16LE(2, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36, 'ascii');
  h.writeUInt32LE(data.length, 40);
  return Buffer.concat([h, data]);
}

const dir = mkdtempSync(join(tmpdir(), 'phasor-bmic-'));
let server: Server;
let browser: Browser;
let app: AppPage;
let page: Page;

beforeAll(async () => {
  const wav = join(dir, 'tone.wav');
  writeFileSync(wav, toneWav(2));
  server = await startServe();
  browser = await launchChromium([
    '--use-fake-ui-for-media-stream',
    '--use-fake-device-for-media-stream',
    `--use-file-for-fake-audio-capture=${wav}`,
    '--autoplay-policy=no-user-gesture-required',
  ]);
  app = await AppPage.open(browser, server);
  page = app.page;
  // Keeps the streams the page captures, to check that a stop ends their tracks.
  await page.addInitScript(`{
    const md = navigator.mediaDevices;
    if (md) {
      const gum = md.getUserMedia.bind(md);
      window.__captured = [];
      md.getUserMedia = async (c) => { const s = await gum(c); window.__captured.push(s); return s; };
    }
  }`);
  await app.load('');
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("this browser's microphone in web mode", needs(chromium), () => {
  it('streams the fake capture device to the engine, which finds its tone', async () => {
    const label = await page.locator('#source-kind option[value="browser-mic"]').textContent();
    expect(label?.trim()).toBe("This browser's microphone");
    await page.selectOption('#source-kind', 'browser-mic');
    await app.until(`window.__phasor.info !== null && window.__phasor.info.source.startsWith('browser')`);
    const info = (await page.evaluate('window.__phasor.info')) as LiveInfo;
    // The session runs at the page's AudioContext rate, whatever it is here.
    const ctxRate = (await page.evaluate(
      '(() => { const c = new AudioContext(); const r = c.sampleRate; void c.close(); return r; })()',
    )) as number;
    expect(info.sampleRate).toBe(ctxRate);
    await app.until(
      `!!window.__phasor.peaks && window.__phasor.peaks.peaks.length > 0 && window.__phasor.peaks.streamTime > 1`,
    );
    const peaks = (await page.evaluate('window.__phasor.peaks')) as PeaksEvent;
    await app.shot('e2e-browser-mic.png');
    expect(Math.abs(peaks.peaks[0].frequency - TONE)).toBeLessThan(2 * peaks.binWidth);
    // The fake device plays the file at its level (−6 dBFS), give or take the capture's resampling.
    expect(Math.abs(peaks.peaks[0].level - 20 * Math.log10(AMPLITUDE))).toBeLessThan(3);
    const status = (await page.evaluate('window.__phasor.status')) as StatusEvent | null;
    expect(status?.sampleRate).toBe(ctxRate);
    expect(await page.locator('[data-test="source-state"]').getAttribute('data-state')).toBe('running');
    expect(app.errors).toEqual([]);
  });

  it('stops the capture tracks when the session stops', async () => {
    expect(
      await page.evaluate(
        `window.__captured.some((s) => s.getTracks().some((t) => t.readyState === 'live'))`,
      ),
    ).toBe(true);
    await page.click('[data-test="stop"]');
    await app.until(`document.querySelector('[data-test="source-state"]').dataset.state === 'stopped'`);
    await app.until(
      `window.__captured.length > 0 && window.__captured.every((s) => s.getTracks().every((t) => t.readyState === 'ended'))`,
      5000,
    );
  });
});
