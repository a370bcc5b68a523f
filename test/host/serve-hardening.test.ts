// `phasor serve` against clients that misbehave (the real CLI in a child process, a real WebSocket):
// what a client may touch (only the roots, after links, and only with the printed token, loopback too),
// a client that never reads (its queue is bounded and it is dropped), concurrent uploads (space reserved
// across them, a per-file limit, never two uploads on one path).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statfsSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { request } from 'node:http';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { defaultAnalysis } from '../../electron/engine/protocol/messages.js';
import { phasorBin } from '../support/cli.js';
import { tones } from '../support/signals.js';
import { writeTestWav } from '../support/wav.js';

const base = mkdtempSync(join(tmpdir(), 'phasor-hardening-'));
const app = join(base, 'app');
mkdirSync(app);
writeFileSync(join(app, 'index.html'), '<!doctype html><title>Phasor</title>\n');
// The root the server is started in (its default root), and a folder beside it that is not granted.
const granted = join(base, 'granted');
const outside = join(base, 'outside');
mkdirSync(granted);
mkdirSync(outside);
writeTestWav(join(granted, 'in.wav'), tones(4800, 48000, [{ frequency: 1000, amplitude: 0.5 }]), 48000, 1);
writeTestWav(join(outside, 'secret.wav'), tones(4800, 48000, [{ frequency: 500, amplitude: 0.5 }]), 48000, 1);
writeFileSync(join(outside, 'secret.cu8'), randomBytes(4096));
symlinkSync(join(outside, 'secret.wav'), join(granted, 'link.wav'));
symlinkSync(outside, join(granted, 'linked-folder'));

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  rmSync(base, { recursive: true, force: true });
});

interface Served {
  url: URL;
  child: ChildProcess;
  stderr(): string;
}

function serve(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Served> {
  const child = spawn(process.execPath, [phasorBin, 'serve', '--port', '0', '--app-dir', app, ...args], {
    cwd,
    env: { ...process.env, PHASOR_STANDBY: 'off', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /^(http:\/\/\S+)\n/m.exec(out);
      if (m) resolve({ url: new URL(m[1]), child, stderr: () => err });
    });
    child.on('exit', (code) => reject(new Error(`phasor serve exited (${code}): ${err}`)));
  });
}

/** The WebSocket URL for a served page URL, with its token when it has one. */
function wsUrl(url: URL, withToken = true): string {
  const t = url.searchParams.get('token');
  return `ws://127.0.0.1:${url.port}/ws${withToken && t ? `?token=${t}` : ''}`;
}

async function waitFor(check: () => boolean, what: string, ms = 60000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

type Reply = {
  type: string;
  id: number;
  ok: boolean;
  result?: Record<string, unknown>;
  error?: { code: string; message: string };
};

class Client {
  readonly replies = new Map<number, Reply>();
  readonly ws: WebSocket;
  closeCode: number | null = null;
  closeReason = '';
  constructor(url: string) {
    this.ws = new WebSocket(url);
    this.ws.on('message', (d: Buffer, binary: boolean) => {
      if (binary) return;
      const m = JSON.parse(d.toString()) as Reply;
      if (m.type === 'reply') this.replies.set(m.id, m);
    });
    this.ws.on('close', (code, reason) => {
      this.closeCode = code;
      this.closeReason = reason.toString();
    });
    this.ws.on('error', () => undefined);
  }
  opened(): Promise<void> {
    return new Promise((res, rej) => {
      if (this.ws.readyState === WebSocket.OPEN) return res();
      this.ws.once('open', () => res());
      this.ws.once('close', (code) => rej(new Error(`closed (${code})`)));
    });
  }
  async request(id: number, method: string, params: unknown): Promise<Reply> {
    this.ws.send(JSON.stringify({ type: 'request', id, method, params }));
    await waitFor(() => this.replies.has(id), `reply ${id}`);
    return this.replies.get(id)!;
  }
}

function vmHwmMiB(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

describe('row 11: a client touches only the roots, and only with the token', () => {
  it('needs the printed token on loopback too, for the page and the WebSocket', async () => {
    const s = await serve([], granted);
    const token = s.url.searchParams.get('token');
    expect(token, 'the printed URL carries a token').toMatch(/^[A-Za-z0-9_-]{32,}$/);
    const page = (path: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: Number(s.url.port), path }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });
    expect(await page('/')).toBe(401);
    expect(await page(`/?token=${token}`)).toBe(200);
    const bare = new Client(wsUrl(s.url, false));
    await waitFor(() => bare.closeCode !== null, 'the token-less socket to close');
    expect(bare.closeCode).toBe(4401);
    s.child.kill('SIGTERM');
  });

  it('lists, opens, plays and writes only inside the roots, after following links', async () => {
    const s = await serve([], granted);
    const c = new Client(wsUrl(s.url));
    await c.opened();
    const refused = (r: Reply, what: string) => {
      expect(r.ok, `${what} is refused`).toBe(false);
      expect(r.error?.message).toMatch(/outside the folders this client may use/);
      expect(r.error?.message.split('\n')).toHaveLength(1);
    };
    // Browsing starts in the root, shows no way up, and hides the link that leads out.
    const home = await c.request(1, 'listDirectory', {});
    expect(home.ok).toBe(true);
    expect(home.result).toMatchObject({ path: granted });
    expect(home.result).not.toHaveProperty('parent');
    const names = (home.result!.entries as Array<{ name: string }>).map((e) => e.name);
    expect(names).toContain('in.wav');
    expect(names).not.toContain('link.wav');
    refused(await c.request(2, 'listDirectory', { path: '/' }), 'listing /');
    refused(await c.request(3, 'listDirectory', { path: join(granted, 'linked-folder') }), 'a linked folder');
    refused(
      await c.request(4, 'openFile', { path: join(outside, 'secret.cu8'), format: 'cu8', rate: 1000 }),
      'a file outside',
    );
    refused(
      await c.request(5, 'openFile', { path: '/etc/passwd', format: 'cu8', rate: 1000 }),
      '/etc/passwd',
    );
    refused(await c.request(6, 'openFile', { path: join(granted, 'link.wav') }), 'a link leading out');
    refused(
      await c.request(7, 'openFile', { path: join(granted, '..', 'outside', 'secret.wav') }),
      'a path with ..',
    );
    refused(
      await c.request(8, 'start', {
        source: { kind: 'file', path: join(outside, 'secret.wav') },
        analysis: defaultAnalysis,
      }),
      'a live file source outside',
    );
    // Inside: opens, and writes next to it, but not at an absolute path outside.
    // A relative path starts where browsing does, in the root.
    const open = await c.request(9, 'openFile', { path: 'in.wav' });
    expect(open.ok).toBe(true);
    expect(open.result).toMatchObject({ path: join(granted, 'in.wav') });
    const file = open.result!.file as number;
    const taps = [0.25, 0.5, 0.25];
    refused(
      await c.request(10, 'applyFilter', { file, output: join(outside, 'written.wav'), taps }),
      'writing outside',
    );
    expect(existsSync(join(outside, 'written.wav'))).toBe(false);
    refused(
      await c.request(11, 'applyFilter', { file, output: 'linked-folder/written.wav', taps }),
      'writing through a link',
    );
    expect(existsSync(join(outside, 'written.wav'))).toBe(false);
    const ok = await c.request(12, 'applyFilter', { file, output: 'filtered.wav', taps });
    expect(ok.ok).toBe(true);
    expect(existsSync(join(granted, 'filtered.wav'))).toBe(true);
    c.ws.close();
    s.child.kill('SIGTERM');
  });

  it('takes --root folders instead of the current folder', async () => {
    const other = join(base, 'other');
    mkdirSync(other, { recursive: true });
    const s = await serve(['--root', outside, '--root', other], granted);
    const c = new Client(wsUrl(s.url));
    await c.opened();
    expect((await c.request(1, 'openFile', { path: join(outside, 'secret.wav') })).ok).toBe(true);
    const r = await c.request(2, 'openFile', { path: join(granted, 'in.wav') });
    expect(r.ok).toBe(false);
    // Browsing starts in the first root; the listing names every root, the way to the others.
    const home = await c.request(3, 'listDirectory', {});
    expect(home.result).toMatchObject({ path: outside, roots: [outside, other] });
    expect((await c.request(4, 'listDirectory', { path: other })).ok).toBe(true);
    c.ws.close();
    s.child.kill('SIGTERM');
  });
});

describe('row 7: a client that never reads', () => {
  it('is paused and dropped, and what the server queues for it stays bounded', async () => {
    // 16 MiB of cu8: one readSamples of all of it is the largest reply (2^24 floats, 64 MiB).
    const big = join(granted, 'big.cu8');
    writeFileSync(big, randomBytes(16 << 20));
    const s = await serve([], granted, { PHASOR_SERVE_STALL_MS: '2000' });
    const pid = s.child.pid!;
    const c = new Client(wsUrl(s.url));
    await c.opened();
    const open = await c.request(1, 'openFile', { path: big, format: 'cu8', rate: 1e6 });
    expect(open.ok).toBe(true);
    const base = vmHwmMiB(pid);
    // Stop reading, then ask for 24 of the largest replies.
    const socket = (c.ws as unknown as { _socket: Socket })._socket;
    socket.pause();
    const frames = 1 << 23;
    for (let i = 0; i < 24; i++) {
      c.ws.send(
        JSON.stringify({
          type: 'request',
          id: 100 + i,
          method: 'readSamples',
          params: { file: open.result!.file, start: 0, end: frames },
        }),
      );
    }
    // Today's server queues every reply (24 × 64 MiB); a bounded one drops the client and says so.
    await waitFor(
      () => /did not read/.test(s.stderr()) || vmHwmMiB(pid) - base > 1024,
      'a drop or 1 GiB queued',
      120000,
    );
    const grew = vmHwmMiB(pid) - base;
    expect(grew, `the server grew by ${grew.toFixed(0)} MiB`).toBeLessThan(512);
    expect(s.stderr()).toMatch(/^phasor: dropped a client that did not read .*$/m);
    // The dropped client hears why once it reads again.
    socket.resume();
    await waitFor(() => c.closeCode !== null, 'the close');
    expect([4008, 1006]).toContain(c.closeCode);
    // The server goes on serving others.
    const other = new Client(wsUrl(s.url));
    await other.opened();
    expect((await other.request(1, 'hello', {})).ok).toBe(true);
    other.ws.close();
    s.child.kill('SIGTERM');
  });
});

interface Put {
  status: number;
  body: string;
}

function put(port: number, path: string, body: Buffer, headers: Record<string, string> = {}): Promise<Put> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'PUT',
        headers: { 'Content-Length': String(body.length), ...headers },
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => {
      // A refused upload may be hung up on while its body is still going out.
      if (err.code === 'EPIPE' || err.code === 'ECONNRESET') resolve({ status: -1, body: err.code });
      else reject(err);
    });
    req.end(body);
  });
}

describe('row 8: concurrent uploads', () => {
  it('reserve space across uploads at once and never share a path', async () => {
    const uploads = join(base, 'uploads');
    mkdirSync(uploads);
    const MB = 1 << 20;
    // Leave 35 MiB usable above the reserve: ten 7 MiB uploads at once cannot all fit.
    const free = statfsSync(uploads).bavail * statfsSync(uploads).bsize;
    const s = await serve([], granted, {
      PHASOR_UPLOAD_RESERVE_BYTES: String(free - 35 * MB),
      TMPDIR: uploads,
    });
    const port = Number(s.url.port);
    const token = s.url.searchParams.get('token');
    const q = token ? `&token=${token}` : '';
    const bodies = Array.from({ length: 10 }, () => randomBytes(7 * MB));
    const results = await Promise.all(bodies.map((b) => put(port, `/upload?name=same.cu8${q}`, b)));
    const accepted = results.map((r, i) => ({ r, i })).filter(({ r }) => r.status === 200);
    expect(accepted.length, 'some uploads fit').toBeGreaterThan(0);
    expect(accepted.length * 7, 'accepted MiB').toBeLessThanOrEqual(35);
    for (const r of results.filter((x) => x.status !== 200)) expect([507, -1]).toContain(r.status);
    // Every accepted upload has a path of its own holding exactly its bytes.
    const paths = accepted.map(({ r }) => (JSON.parse(r.body) as { path: string }).path);
    expect(new Set(paths).size).toBe(paths.length);
    accepted.forEach(({ i }, k) => expect(readFileSync(paths[k]).equals(bodies[i])).toBe(true));
    for (const p of paths) expect(basename(p)).toMatch(/same.*\.cu8$/);
    s.child.kill('SIGTERM');
  });

  it('refuses a file over the per-file limit before reading it, leaving nothing', async () => {
    const MB = 1 << 20;
    const s = await serve(['--max-upload', String(20 * MB)], granted);
    const port = Number(s.url.port);
    const token = s.url.searchParams.get('token');
    const q = token ? `&token=${token}` : '';
    const small = await put(port, `/upload?name=small.cu8${q}`, randomBytes(MB));
    expect(small.status).toBe(200);
    const folder = dirname((JSON.parse(small.body) as { path: string }).path);
    const before = readdirSync(folder).length;
    const over = await put(port, `/upload?name=huge.cu8${q}`, Buffer.alloc(21 * MB, 1));
    expect([413, -1]).toContain(over.status);
    expect(readdirSync(folder).length).toBe(before);
    s.child.kill('SIGTERM');
  });
});
