// Pieces both hosts share: the CSP, the token comparison, loopback names, and confining paths to the app.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveAppFile } from '../../electron/cli/web/files.js';
import {
  contentSecurityPolicy,
  isLoopbackHost,
  newToken,
  tokensEqual,
} from '../../electron/cli/web/security.js';

const app = mkdtempSync(join(tmpdir(), 'phasor-files-'));
mkdirSync(join(app, 'assets'));
writeFileSync(join(app, 'index.html'), '<!doctype html>');
writeFileSync(join(app, 'assets', 'a b.css'), 'body{}');
writeFileSync(join(app, '.env'), 'SECRET=1');
writeFileSync(join(tmpdir(), 'phasor-outside.txt'), 'outside');
afterAll(() => rmSync(app, { recursive: true, force: true }));

describe('content security policy', () => {
  it('allows scripts only from the app, no plugins, no framing', () => {
    const csp = contentSecurityPolicy({ connect: ['ws://127.0.0.1:5917'] });
    const directives = Object.fromEntries(
      csp.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1)]),
    );
    expect(directives['script-src']).toEqual(["'self'"]);
    expect(directives['default-src']).toEqual(["'self'"]);
    expect(directives['object-src']).toEqual(["'none'"]);
    expect(directives['base-uri']).toEqual(["'none'"]);
    expect(directives['frame-ancestors']).toEqual(["'none'"]);
    expect(directives['connect-src']).toEqual(["'self'", 'ws://127.0.0.1:5917']);
    expect(csp).not.toContain('unsafe-eval');
  });
});

describe('access token', () => {
  it('is random and long', () => {
    const a = newToken();
    expect(a).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(newToken()).not.toBe(a);
  });
  it('compares equal only when equal, whatever the lengths', () => {
    const t = newToken();
    expect(tokensEqual(t, t)).toBe(true);
    expect(tokensEqual(t.slice(0, -1), t)).toBe(false);
    expect(tokensEqual(t + 'x', t)).toBe(false);
    expect(tokensEqual('', t)).toBe(false);
    expect(tokensEqual(t.toUpperCase() === t ? t.toLowerCase() : t.toUpperCase(), t)).toBe(false);
  });
});

describe('loopback names', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.1.2.3', true],
    ['localhost', true],
    ['LOCALHOST', true],
    ['::1', true],
    ['[::1]', true],
    ['0.0.0.0', false],
    ['::', false],
    ['192.168.1.4', false],
    ['localhost.attacker.example', false],
    ['127.0.0.1.nip.io', false],
  ])('%s → %s', (host, loop) => {
    expect(isLoopbackHost(host)).toBe(loop);
  });
});

describe('app files', () => {
  it('finds files inside the app folder with their type', () => {
    expect(resolveAppFile(app, '/')).toMatchObject({
      file: join(app, 'index.html'),
      type: 'text/html; charset=utf-8',
    });
    expect(resolveAppFile(app, '/assets/a%20b.css')).toMatchObject({
      file: join(app, 'assets', 'a b.css'),
      type: 'text/css; charset=utf-8',
    });
  });
  it.each([
    '/../phasor-outside.txt',
    '/assets/../../phasor-outside.txt',
    '/%2e%2e/phasor-outside.txt',
    '/..%2fphasor-outside.txt',
    '/..\\phasor-outside.txt',
    '/.env',
    '/assets/',
    '/missing.js',
    '/%zz',
    '/index.html%00.js',
  ])('refuses %s', (p) => {
    expect(resolveAppFile(app, p)).toBeNull();
  });
  it('refuses a link leading out of the folder', () => {
    symlinkSync(join(tmpdir(), 'phasor-outside.txt'), join(app, 'link.txt'));
    expect(resolveAppFile(app, '/link.txt')).toBeNull();
  });
});
