// `phasor serve` as a user runs it (the real CLI in a child process): static files with a strict CSP,
// the protocol over a WebSocket, loopback-only by default, the printed token on every address.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { defaultAnalysis, type LiveInfo } from '../../electron/engine/protocol/messages.js';
import { decodeRows, type RowsMessage } from '../../electron/engine/protocol/rows-codec.js';
import { phasorBin, root, runCli } from '../support/cli.js';

const app = mkdtempSync(join(tmpdir(), 'phasor-app-'));
const INDEX =
  '<!doctype html><title>Phasor test page</title><script type="module" src="./assets/app.js"></script>\n';
mkdirSync(join(app, 'assets'));
writeFileSync(join(app, 'index.html'), INDEX);
writeFileSync(join(app, 'assets', 'app.js'), 'console.log("phasor");\n');
writeFileSync(join(app, '.secret'), 'hidden\n');

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGTERM');
  rmSync(app, { recursive: true, force: true });
});

/** Starts `phasor serve` and resolves with the URL it prints. */
function serve(args: string[]): Promise<{ url: URL; child: ChildProcess }> {
  const child = spawn(process.execPath, [phasorBin, 'serve', '--port', '0', '--app-dir', app, ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /^(http:\/\/\S+)\n/m.exec(out);
      if (m) resolve({ url: new URL(m[1]), child });
    });
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => reject(new Error(`phasor serve exited (${code}): ${err}`)));
  });
}

interface Got {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** The page's cookie for each server (by port), sent by `get` unless its headers say otherwise. */
const cookies = new Map<number, string>();

function get(
  port: number,
  path: string,
  options: { method?: string; headers?: Record<string, string> } = {},
): Promise<Got> {
  return new Promise((resolve, reject) => {
    const cookie = cookies.get(port);
    const headers = { ...(cookie ? { Cookie: cookie } : {}), ...options.headers };
    const req = request(
      { host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers },
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

/** A WebSocket client collecting JSON messages and decoded rows. */
class Client {
  readonly json: Array<Record<string, unknown>> = [];
  readonly rows: RowsMessage[] = [];
  readonly ws: WebSocket;
  readonly opened: Promise<void>;
  closeCode: number | null = null;
  constructor(url: string, headers: Record<string, string> = {}) {
    this.ws = new WebSocket(url, { headers });
    this.ws.on('message', (data: Buffer, binary: boolean) => {
      if (binary) {
        const ab = data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) as ArrayBuffer;
        const m = decodeRows(ab);
        this.rows.push(m);
        this.ws.send(JSON.stringify({ type: 'ack', session: m.session, seq: m.seq }));
      } else this.json.push(JSON.parse(data.toString()) as Record<string, unknown>);
    });
    this.ws.on('close', (code) => (this.closeCode = code));
    this.opened = new Promise((resolve, reject) => {
      this.ws.once('open', () => resolve());
      this.ws.once('error', reject);
    });
  }
  async request(id: number, method: string, params: unknown): Promise<Record<string, unknown>> {
    this.ws.send(JSON.stringify({ type: 'request', id, method, params }));
    return this.reply(id);
  }
  async reply(id: number): Promise<Record<string, unknown>> {
    await waitFor(() => this.json.some((m) => m.type === 'reply' && m.id === id), `reply ${id}`);
    return this.json.find((m) => m.type === 'reply' && m.id === id)!;
  }
}

async function waitFor(check: () => boolean, what: string, ms = 15000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('phasor serve on loopback', () => {
  let port = 0;
  let token = '';
  beforeAll(async () => {
    const { url } = await serve([]);
    expect(url.hostname).toBe('127.0.0.1');
    token = url.searchParams.get('token') ?? '';
    expect(token).toMatch(/^[A-Za-z0-9_-]{32,}$/);
    port = Number(url.port);
    cookies.set(port, `phasor_token=${token}`);
  });

  it('serves the app with a strict Content-Security-Policy', async () => {
    const r = await get(port, '/');
    expect(r.status).toBe(200);
    expect(r.body).toBe(INDEX);
    expect(r.headers['content-type']).toBe('text/html; charset=utf-8');
    const csp = String(r.headers['content-security-policy']);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe/);
    expect(csp).toContain("object-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain(`ws://127.0.0.1:${port}`);
    expect(r.headers['x-content-type-options']).toBe('nosniff');
    const js = await get(port, '/assets/app.js');
    expect(js.status).toBe(200);
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
  });

  it.each([
    '/../package.json',
    '/assets/../../package.json',
    '/%2e%2e/%2e%2e/package.json',
    '/.secret',
    '/assets',
    '/nothing.js',
    '/%E0%A4%A',
    '/a%00b',
  ])('refuses %s', async (path) => {
    const r = await get(port, path);
    expect([400, 404]).toContain(r.status);
    expect(r.body).not.toContain('"name": "phasor"');
    expect(r.body).not.toContain('hidden');
  });

  it('allows only GET and HEAD, and only loopback host names (no DNS rebinding)', async () => {
    expect((await get(port, '/', { method: 'POST' })).status).toBe(405);
    expect((await get(port, '/', { method: 'HEAD' })).status).toBe(200);
    expect((await get(port, '/', { headers: { Host: 'attacker.example' } })).status).toBe(403);
    expect((await get(port, '/', { headers: { Host: `localhost:${port}` } })).status).toBe(200);
  });

  it('refuses a WebSocket from another site', async () => {
    const c = new Client(`ws://127.0.0.1:${port}/ws?token=${token}`, { Origin: 'http://attacker.example' });
    await expect(c.opened).rejects.toThrow(/403/);
  });

  it('runs the protocol over the WebSocket: hello, start, rows, stop', async () => {
    const c = new Client(`ws://127.0.0.1:${port}/ws?token=${token}`, { Origin: `http://127.0.0.1:${port}` });
    await c.opened;
    const hello = await c.request(1, 'hello', {});
    expect(hello).toMatchObject({ ok: true, result: { version: 1 } });
    const start = (await c.request(2, 'start', {
      source: { kind: 'generator', frequency: 6000 },
      analysis: { ...defaultAnalysis, fft: 512, overlap: 0.5, columns: 257 },
    })) as { ok: boolean; result: LiveInfo };
    expect(start.ok).toBe(true);
    expect(start.result).toMatchObject({ fft: 512, width: 257, sampleRate: 48000 });
    await waitFor(() => c.rows.length >= 5, 'rows');
    for (const m of c.rows) {
      expect(m.session).toBe(start.result.session);
      let best = 0;
      for (let k = 0; k < m.width; k++) if (m.rows[k] > m.rows[best]) best = k;
      expect(best).toBe(64); // 6000 Hz × 512 / 48000
    }
    expect(c.json.some((m) => m.type === 'event' && m.event === 'source')).toBe(true);
    expect(await c.request(3, 'stop', {})).toMatchObject({ ok: true });
    c.ws.send('not json');
    c.ws.send(Buffer.from([1, 2, 3]));
    await waitFor(
      () => c.json.filter((m) => m.type === 'reply' && m.id === -1).length === 2,
      'two error replies',
    );
    for (const r of c.json.filter((m) => m.id === -1))
      expect(r).toMatchObject({ ok: false, error: { code: 'bad-request' } });
    c.ws.close();
  });
});

describe('phasor serve on another address', () => {
  let port = 0;
  let token = '';
  beforeAll(async () => {
    const { url } = await serve(['--host', '0.0.0.0']);
    port = Number(url.port);
    token = url.searchParams.get('token') ?? '';
  });

  it('prints a URL with a long random token', () => {
    expect(token).toMatch(/^[A-Za-z0-9_-]{32,}$/);
  });

  it('requires the token for the page, then keeps it in a strict cookie', async () => {
    expect((await get(port, '/')).status).toBe(401);
    expect((await get(port, `/?token=${'x'.repeat(token.length)}`)).status).toBe(401);
    expect((await get(port, '/assets/app.js')).status).toBe(401);
    const ok = await get(port, `/?token=${token}`);
    expect(ok.status).toBe(200);
    const cookie = String(ok.headers['set-cookie']);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    const asset = await get(port, '/assets/app.js', { headers: { Cookie: cookie.split(';')[0] } });
    expect(asset.status).toBe(200);
  });

  it('closes a WebSocket without the right token (4401) and serves one with it', async () => {
    const none = new Client(`ws://127.0.0.1:${port}/ws`);
    await waitFor(() => none.closeCode !== null, 'the refused socket to close');
    expect(none.closeCode).toBe(4401);
    const wrong = new Client(`ws://127.0.0.1:${port}/ws?token=${token.slice(0, -1)}A`);
    await waitFor(() => wrong.closeCode !== null, 'the refused socket to close');
    expect(wrong.closeCode).toBe(4401);
    expect(wrong.json.length).toBe(0);
    const right = new Client(`ws://127.0.0.1:${port}/ws?token=${token}`);
    await right.opened;
    expect(await right.request(1, 'hello', {})).toMatchObject({ ok: true });
    right.ws.close();
  });
});

describe('phasor serve refusals', () => {
  it('says in one line that the app must be built', async () => {
    const r = await runCli(['serve', '--port', '0', '--app-dir', join(app, 'missing')]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^phasor: the app is not built .*run npm run build:app/);
  });

  it('says when the port is taken', async () => {
    const { url } = await serve([]);
    const r = await runCli(['serve', '--port', url.port, '--app-dir', app]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/port \d+ is in use/);
  });
});
