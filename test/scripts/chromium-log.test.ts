import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHROMIUM_PATH as CHROMIUM, chromium, needs } from '../support/requirements.js';
// @ts-expect-error: a plain .mjs script of the launcher, without types
import { ChromiumLogFilter } from '../../scripts/chromium-log.mjs';

// Lines Debian's Chromium 156 printed on this machine (no D-Bus, no display), beside the app's own output.
const CAPTURED = [
  '/usr/bin/chromium: 9: [: 25276063744: unexpected operator',
  '[19223:19253:1128/120447.470562:ERROR:dbus/bus.cc:405] Failed to connect to the bus: Failed to connect to socket /run/dbus/system_bus_socket: No such file or directory',
  'phasor: the engine runs on cuda',
  '[19223:19223:1128/120447.603105:ERROR:dbus/object_proxy.cc:572] Failed to call method: org.freedesktop.DBus.NameHasOwner: object_path= /org/freedesktop/DBus: unknown error type: ',
  '[19399:19399:1128/120448.244749:ERROR:ui/ozone/platform/x11/ozone_platform_x11.cc:257] Missing X server or $DISPLAY',
  '[19399:19399:1128/120448.244774:ERROR:ui/aura/env.cc:253] The platform failed to initialize.  Exiting.',
  '[19421:19421:0100/000000.265196:ERROR:content/zygote/zygote_linux.cc:662] write: Broken pipe (32)',
  'Error: something the app itself reported',
];

function filtered(text: string, debug = false, chunk = 17): { out: string; f: ChromiumLogFilter } {
  let out = '';
  const f = new ChromiumLogFilter((line: string) => (out += line), { debug });
  // Pieces that cut lines anywhere, as a pipe delivers them.
  for (let i = 0; i < text.length; i += chunk) f.write(Buffer.from(text.slice(i, i + chunk)));
  f.end();
  return { out, f };
}

describe('ChromiumLogFilter', () => {
  it("keeps Chromium's log off the terminal and passes the app's own lines whole", () => {
    const { out, f } = filtered(CAPTURED.join('\n') + '\n');
    expect(out).toBe('phasor: the engine runs on cuda\nError: something the app itself reported\n');
    expect(f.hidden).toBe(6);
    expect(f.lastError).toBe('write: Broken pipe (32)');
    // A known cause wins over the last error: it says what to do.
    expect(f.reason()).toMatch(/^no display to open a window on \(.*xvfb-run\)$/);
    expect(f.note()).toBe("PHASOR_DEBUG=1 shows Chromium's 6 log lines");
  });

  it('passes everything with PHASOR_DEBUG, and a last line without its newline', () => {
    const text = CAPTURED.join('\n');
    expect(filtered(text, true).out).toBe(text);
    expect(filtered('partial line', false, 3).out).toBe('partial line');
  });

  it('says nothing when nothing failed', () => {
    const { f } = filtered('[1:2:1128/120447.470562:WARNING:gpu/init.cc:1] just a warning\n');
    expect(f.hidden).toBe(1);
    expect(f.reason()).toBe('');
  });

  it(
    'gives the real Chromium without a display one line of cause and nothing else',
    needs(chromium),
    async () => {
      const profile = mkdtempSync(path.join(os.tmpdir(), 'phasor-chromium-'));
      try {
        const env = { ...process.env };
        delete env.DISPLAY;
        delete env.WAYLAND_DISPLAY;
        let out = '';
        const f = new ChromiumLogFilter((line: string) => (out += line), { debug: false });
        const child = spawn(CHROMIUM, ['--no-sandbox', `--user-data-dir=${profile}`, 'about:blank'], {
          env,
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        child.stderr.on('data', (d: Buffer) => f.write(d));
        const code = await new Promise<number | null>((done) => child.on('exit', (c) => done(c)));
        f.end();
        expect(code).not.toBe(0);
        expect(out).toBe('');
        expect(f.hidden).toBeGreaterThan(0);
        expect(f.reason()).toMatch(/^no display/);
      } finally {
        rmSync(profile, { recursive: true, force: true });
      }
    },
  );
});
