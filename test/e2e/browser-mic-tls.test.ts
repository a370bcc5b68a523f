// The browser's own microphone from a page that is not on loopback: `phasor serve` on this machine's
// external address over HTTPS (a throwaway self-signed certificate for that address, made by openssl), in
// headless Chromium that trusts exactly that certificate's key (--ignore-certificate-errors-spki-list), with
// the fake capture device playing a 3 kHz tone. The page is a secure context, so "This browser's
// microphone" works and the engine finds the tone. The same page over plain http on that address is not,
// and the option is shown unavailable with the reason.
import { spawnSync } from 'node:child_process';
import { X509Certificate, createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PeaksEvent } from '../../electron/engine/protocol/messages.js';
import { EXTERNAL_IPV4, chromium, externalAddress, needs, openssl } from '../support/requirements.js';
import { tones } from '../support/signals.js';
import { writeTestWav } from '../support/wav.js';
import { AppPage } from './app.js';
import { launchChromium, startServe, type Server } from './support.js';

const TONE = 3000;
const AMPLITUDE = 0.5;

/** This machine's first IPv4 address that is not loopback (a page there is not a secure context over http). */
const external = EXTERNAL_IPV4;
const required = needs(chromium, openssl, externalAddress);

const dir = mkdtempSync(join(tmpdir(), 'phasor-bmic-tls-'));
const servers: Server[] = [];
let browser: Browser;
let spki = '';
let cert = '';
let key = '';

beforeAll(async () => {
  if (required.skip) return;
  cert = join(dir, 'server.crt');
  key = join(dir, 'server.key');
  const r = spawnSync(
    'openssl',
    [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1',
      '-subj', '/CN=phasor-e2e', '-addext', `subjectAltName=IP:${external}`, '-keyout', key, '-out', cert,
    ], // prettier-ignore
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`openssl failed: ${r.stderr}`);
  // What Chromium pins: the base64 SHA-256 of the certificate's SubjectPublicKeyInfo.
  const publicKey = new X509Certificate(readFileSync(cert)).publicKey;
  spki = createHash('sha256')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest('base64');
  const wav = join(dir, 'tone.wav');
  writeTestWav(wav, tones(2 * 48000, 48000, [{ frequency: TONE, amplitude: AMPLITUDE }]), 48000, 1);
  browser = await launchChromium([
    `--ignore-certificate-errors-spki-list=${spki}`,
    '--use-fake-ui-for-media-stream',
    '--use-fake-device-for-media-stream',
    `--use-file-for-fake-audio-capture=${wav}`,
    '--autoplay-policy=no-user-gesture-required',
  ]);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  for (const s of servers) await s.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("this browser's microphone from another machine's page", required, () => {
  it('captures over https on the external address, and the engine finds the tone', async () => {
    const server = await startServe(['--host', external!, '--tls-cert', cert, '--tls-key', key]);
    servers.push(server);
    expect(server.url).toMatch(new RegExp(`^https://${external!.replace(/\./g, '\\.')}:\\d+/\\?token=`));
    const app = await AppPage.open(browser, server);
    await app.load('');
    const page = app.page;
    // load() waited for the engine's hello: from an https page that connection is wss (a ws:// one would be
    // blocked as mixed content).
    expect(await page.evaluate('[location.protocol, window.isSecureContext]')).toEqual(['https:', true]);
    const option = page.locator('#source-kind option[value="browser-mic"]');
    expect(await option.isDisabled()).toBe(false);
    await page.selectOption('#source-kind', 'browser-mic');
    await app.until(`window.__phasor.info !== null && window.__phasor.info.source.startsWith('browser')`);
    await app.until(
      `!!window.__phasor.peaks && window.__phasor.peaks.peaks.length > 0 && window.__phasor.peaks.streamTime > 1`,
    );
    const peaks = (await page.evaluate('window.__phasor.peaks')) as PeaksEvent;
    await app.shot('e2e-browser-mic-tls.png');
    expect(Math.abs(peaks.peaks[0].frequency - TONE)).toBeLessThan(2 * peaks.binWidth);
    expect(Math.abs(peaks.peaks[0].level - 20 * Math.log10(AMPLITUDE))).toBeLessThan(3);
    expect(await page.locator('[data-test="source-state"]').getAttribute('data-state')).toBe('running');
    await page.click('[data-test="stop"]');
    await app.until(`document.querySelector('[data-test="source-state"]').dataset.state === 'stopped'`);
    expect(app.errors).toEqual([]);
    await page.close();
  });

  it('is refused by a browser that does not trust the certificate', async () => {
    const server = servers[0];
    const plain = await launchChromium();
    try {
      const page = await plain.newPage();
      await expect(page.goto(server.url)).rejects.toThrow(/ERR_CERT_AUTHORITY_INVALID/);
    } finally {
      await plain.close();
    }
  });

  it('shows the option unavailable, with the reason, over plain http on the same address', async () => {
    const server = await startServe(['--host', external!]);
    servers.push(server);
    expect(server.url).toMatch(/^http:\/\//);
    const app = await AppPage.open(browser, server);
    await app.load('');
    const page = app.page;
    expect(await page.evaluate('window.isSecureContext')).toBe(false);
    const option = page.locator('#source-kind option[value="browser-mic"]');
    expect(await option.isDisabled()).toBe(true);
    expect(await option.textContent()).toContain('unavailable');
    const reason = await option.getAttribute('title');
    expect(reason).toContain('only to https:// pages');
    expect(reason).toContain(`not to http://${external}`);
    expect(app.errors).toEqual([]);
    await page.close();
  });
});
