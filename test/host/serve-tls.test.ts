// `phasor serve --tls-cert --tls-key` as a user runs it (the real CLI in a child process), with a throwaway
// self-signed certificate made by openssl for 127.0.0.1: the printed URL is https, the page loads over
// HTTPS only with the token and keeps it in a Secure cookie, its CSP allows wss to itself, the protocol runs
// over wss, the Origin check wants the https origin, plain HTTP is only told to use https, and bad certificate or key
// files are one line naming the file, before anything listens.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { phasorBin, root, runCli } from '../support/cli.js';
import { needs, openssl } from '../support/requirements.js';

const haveOpenssl = openssl.ok;

const dir = mkdtempSync(join(tmpdir(), 'phasor-tls-'));
const app = join(dir, 'app');
mkdirSync(app);
const INDEX = '<!doctype html><title>Phasor over TLS</title>\n';
writeFileSync(join(app, 'index.html'), INDEX);

/** A self-signed P-256 certificate and its key for `san` (e.g. IP:127.0.0.1), valid for a day. */
function makeCert(name: string, san: string): { cert: string; key: string } {
  const cert = join(dir, `${name}.crt`);
  const key = join(dir, `${name}.key`);
  const r = spawnSync(
    'openssl',
    [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1',
      '-subj', '/CN=phasor-test', '-addext', `subjectAltName=${san}`, '-keyout', key, '-out', cert,
    ], // prettier-ignore
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`openssl failed: ${r.stderr}`);
  return { cert, key };
}

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

function serve(args: string[]): Promise<{ url: URL; stderr: () => string }> {
  const child = spawn(process.execPath, [phasorBin, 'serve', '--port', '0', '--app-dir', app, ...args], {
    cwd: root,
    env: { ...process.env, PHASOR_STANDBY: 'off' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /^(\S+:\/\/\S+)\n/m.exec(out);
      if (m) resolve({ url: new URL(m[1]), stderr: () => err });
    });
    child.on('exit', (code) => reject(new Error(`phasor serve exited (${code}): ${err}`)));
  });
}

interface Got {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function get(port: number, path: string, ca: string, headers: Record<string, string> = {}): Promise<Got> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      // No SNI (an address is no server name); the certificate is checked against the address, not Host.
      { host: '127.0.0.1', port, path, ca, headers, servername: '' },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Opens a wss client and resolves with its first reply to hello, or rejects with why it could not. */
function hello(url: string, ca: string, headers: Record<string, string> = {}): Promise<{ ok: boolean }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { ca, headers });
    ws.on('open', () => ws.send(JSON.stringify({ type: 'request', id: 1, method: 'hello', params: {} })));
    ws.on('message', (d: Buffer) => {
      const m = JSON.parse(d.toString()) as { type: string; id: number; ok: boolean };
      if (m.type === 'reply' && m.id === 1) {
        ws.close();
        resolve(m);
      }
    });
    ws.on('close', (code) => reject(new Error(`closed (${code})`)));
    ws.on('error', (e) => reject(e));
  });
}

describe('phasor serve over TLS', needs(openssl), () => {
  let port = 0;
  let token = '';
  let ca = '';
  let stderr: () => string;
  beforeAll(async () => {
    const { cert, key } = makeCert('loopback', 'IP:127.0.0.1');
    ca = readFileSync(cert, 'utf8');
    const s = await serve(['--tls-cert', cert, '--tls-key', key]);
    expect(s.url.protocol).toBe('https:');
    expect(s.url.hostname).toBe('127.0.0.1');
    port = Number(s.url.port);
    token = s.url.searchParams.get('token') ?? '';
    stderr = s.stderr;
  });

  it('prints an https URL with the token, and no warning for a certificate that is for its address', () => {
    expect(token).toMatch(/^[A-Za-z0-9_-]{32,}$/);
    expect(stderr()).not.toContain('warning');
  });

  it('serves the page over HTTPS with the token only, in a Secure cookie, with wss in its CSP', async () => {
    expect((await get(port, '/', ca)).status).toBe(401);
    const ok = await get(port, `/?token=${token}`, ca);
    expect(ok.status).toBe(200);
    expect(ok.body).toBe(INDEX);
    const cookie = String(ok.headers['set-cookie']);
    expect(cookie).toMatch(/^phasor_token=[^;]+;/);
    for (const attr of ['HttpOnly', 'SameSite=Strict', 'Secure']) expect(cookie).toContain(attr);
    const csp = String(ok.headers['content-security-policy']);
    expect(csp).toContain(`connect-src 'self' wss://127.0.0.1:${port}`);
    expect(csp).not.toContain('ws://');
    const again = await get(port, '/', ca, { Cookie: cookie.split(';')[0] });
    expect(again.status).toBe(200);
    // Bound to loopback, the Host must still be a loopback name.
    expect((await get(port, `/?token=${token}`, ca, { Host: 'attacker.example' })).status).toBe(403);
  });

  it('runs the protocol over wss, with the token and the https origin only', async () => {
    const ws = `wss://127.0.0.1:${port}/ws`;
    expect(await hello(`${ws}?token=${token}`, ca, { Origin: `https://127.0.0.1:${port}` })).toMatchObject({
      ok: true,
    });
    expect(await hello(`${ws}?token=${token}`, ca)).toMatchObject({ ok: true });
    await expect(hello(ws, ca)).rejects.toThrow('closed (4401)');
    // The page's own origin over plain http is another origin now, as is any other site.
    for (const origin of [`http://127.0.0.1:${port}`, 'https://attacker.example']) {
      await expect(hello(`${ws}?token=${token}`, ca, { Origin: origin })).rejects.toThrow(/403/);
    }
    const page = await get(port, `/?token=${token}`, ca, { Origin: 'https://attacker.example' });
    expect(page.status).toBe(403);
  });

  it('refuses a client that does not trust the certificate (no silent fallback to plain)', async () => {
    await expect(
      new Promise((resolve, reject) => {
        const req = httpsRequest({ host: '127.0.0.1', port, path: `/?token=${token}` }, resolve);
        req.on('error', reject);
        req.end();
      }),
    ).rejects.toThrow(/self-signed|self signed/);
  });

  it('tells plain HTTP on its port to use https, without the token, and serves none of it', async () => {
    const plain = await new Promise<Got>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, path: `/?token=${token}` }, (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(plain.status).toBe(400);
    expect(plain.body).toBe(
      'Phasor serves https on this port: open the https:// URL that `phasor serve` printed.\n',
    );
    expect(plain.headers['set-cookie']).toBeUndefined();
    await expect(hello(`ws://127.0.0.1:${port}/ws?token=${token}`, ca)).rejects.toThrow(
      'Unexpected server response: 400',
    );
    // The port still serves https after those.
    expect((await get(port, `/?token=${token}`, ca)).status).toBe(200);
  });
});

describe('phasor serve --tls-cert/--tls-key refusals', needs(openssl), () => {
  const good = haveOpenssl ? makeCert('good', 'IP:127.0.0.1') : { cert: '', key: '' };
  const other = haveOpenssl ? makeCert('other', 'IP:127.0.0.1') : { cert: '', key: '' };
  const encrypted = join(dir, 'encrypted.key');
  const garbage = join(dir, 'garbage.pem');
  if (haveOpenssl) {
    const r = spawnSync('openssl', [
      'pkey',
      '-in',
      good.key,
      '-aes256',
      '-passout',
      'pass:x',
      '-out',
      encrypted,
    ]);
    if (r.status !== 0) throw new Error(`openssl pkey failed: ${String(r.stderr)}`);
    writeFileSync(garbage, 'not a certificate\n');
  }

  /** Runs serve with `args`, which must fail with exactly one line `phasor: <file>: <why>` and print no URL. */
  async function refused(args: string[]): Promise<string> {
    const r = await runCli(['serve', '--port', '0', '--app-dir', app, ...args]);
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    return lines[0];
  }

  it('wants both files or neither', async () => {
    expect(await refused(['--tls-cert', good.cert])).toBe(
      'phasor: --tls-cert needs --tls-key: give both or neither',
    );
    expect(await refused(['--tls-key', good.key])).toBe(
      'phasor: --tls-key needs --tls-cert: give both or neither',
    );
  });

  it('names a missing or unreadable file', async () => {
    const missing = join(dir, 'missing.crt');
    expect(await refused(['--tls-cert', missing, '--tls-key', good.key])).toBe(
      `phasor: ${missing}: no such file (--tls-cert)`,
    );
    expect(await refused(['--tls-cert', good.cert, '--tls-key', dir])).toBe(
      `phasor: ${dir}: a folder, not a file (--tls-key)`,
    );
  });

  it('names a file that is not what its flag wants', async () => {
    expect(await refused(['--tls-cert', garbage, '--tls-key', good.key])).toBe(
      `phasor: ${garbage}: not a PEM certificate (--tls-cert wants -----BEGIN CERTIFICATE-----)`,
    );
    expect(await refused(['--tls-cert', good.cert, '--tls-key', garbage])).toBe(
      `phasor: ${garbage}: not a PEM private key (--tls-key wants -----BEGIN PRIVATE KEY-----)`,
    );
    expect(await refused(['--tls-cert', good.key, '--tls-key', good.cert])).toBe(
      `phasor: ${good.key}: holds a private key, not a certificate (--tls-cert; swapped with --tls-key?)`,
    );
    expect(await refused(['--tls-cert', good.cert, '--tls-key', encrypted])).toBe(
      `phasor: ${encrypted}: the private key is encrypted: phasor serve needs it unencrypted (--tls-key)`,
    );
  });

  it('names a key that is not the certificate’s', async () => {
    expect(await refused(['--tls-cert', good.cert, '--tls-key', other.key])).toBe(
      `phasor: ${other.key}: is not the key of the certificate ${good.cert} (--tls-key)`,
    );
  });

  it('warns in one line when the certificate is not for the address it prints', async () => {
    const s = await serve(['--tls-cert', other.cert, '--tls-key', other.key, '--host', 'localhost']);
    expect(s.url.href).toMatch(/^https:\/\/localhost:\d+\/\?token=/);
    const until = Date.now() + 10_000;
    while (!s.stderr().includes('serving') && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    expect(s.stderr()).toContain(
      `phasor: warning: the certificate ${other.cert} is not for localhost (its subjectAltName: IP Address:127.0.0.1): a browser will refuse it there\n`,
    );
  });
});
