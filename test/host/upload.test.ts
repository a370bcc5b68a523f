// `PUT /upload?name=` of `phasor serve` as a user runs it (the real CLI in a child process): the page's
// checks (host, origin, token), names reduced to safe file names, the body streamed to disk (the server's
// memory does not grow with it), nothing left by a cut-short upload, the disk reserve, the folder removed
// when the server stops, and the uploaded file opened through the protocol.
import { spawn, type ChildProcess } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { request, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { FileInfo } from '../../electron/engine/protocol/messages.js';
import { sanitizeUploadName } from '../../electron/cli/web/upload.js';
import { phasorBin, root } from '../support/cli.js';
import { noise, tones } from '../support/signals.js';
import { writeTestWav } from '../support/wav.js';

const app = mkdtempSync(join(tmpdir(), 'phasor-upload-app-'));
mkdirSync(join(app, 'assets'));
writeFileSync(join(app, 'index.html'), '<!doctype html><title>Phasor</title>\n');
const wavPath = join(app, 'tone.wav');
writeTestWav(wavPath, tones(4800, 48000, [{ frequency: 1000, amplitude: 0.5 }]), 48000, 1);
const wav = readFileSync(wavPath);

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
  rmSync(app, { recursive: true, force: true });
});

/** The access token of each server (by port): every request carries it, as the page does. */
const tokens = new Map<number, string>();

/** `path` with the token of the server on `port`. */
function withToken(port: number, path: string): string {
  const t = tokens.get(port);
  return t ? `${path}${path.includes('?') ? '&' : '?'}token=${t}` : path;
}

function serve(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ url: URL; child: ChildProcess }> {
  const child = spawn(process.execPath, [phasorBin, 'serve', '--port', '0', '--app-dir', app, ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /^(http:\/\/\S+)\n/m.exec(out);
      if (m) {
        const url = new URL(m[1]);
        tokens.set(Number(url.port), url.searchParams.get('token') ?? '');
        resolve({ url, child });
      }
    });
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => reject(new Error(`phasor serve exited (${code}): ${err}`)));
  });
}

interface Put {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * PUT `chunks` (each written separately: a streamed, chunked body unless a Content-Length is given), with
 * the server's token unless `bare`. `hold` sends the headers only and waits for the answer.
 */
function put(
  port: number,
  path: string,
  chunks: Buffer[],
  headers: Record<string, string> = {},
  options: { hold?: boolean; bare?: boolean } = {},
): Promise<Put> {
  return new Promise((resolve, reject) => {
    const p = options.bare ? path : withToken(port, path);
    const req = request({ host: '127.0.0.1', port, path: p, method: 'PUT', headers }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    if (options.hold) {
      req.flushHeaders();
      return;
    }
    const write = (i: number): void => {
      if (i === chunks.length) {
        req.end();
        return;
      }
      if (req.write(chunks[i])) write(i + 1);
      else req.once('drain', () => write(i + 1));
    };
    write(0);
  });
}

function vmHwmKiB(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : NaN;
}

async function waitFor(check: () => boolean, what: string, ms = 15000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('upload names', () => {
  it.each([
    ['tone.wav', 'tone.wav'],
    ['../../etc/passwd', 'passwd'],
    ['C:\\Users\\me\\rec.sigmf-data', 'rec.sigmf-data'],
    ['.bashrc', 'bashrc'],
    ['..', null],
    ['', null],
    ['***', null],
    ['a:b*c?.wav', 'a_b_c_.wav'],
    ['enregistrement été.wav', 'enregistrement été.wav'],
    ['x\u0000y.wav', 'x_y.wav'],
    ['trailing. ', 'trailing'],
  ])('%j becomes %j', (raw, want) => {
    expect(sanitizeUploadName(raw)).toBe(want);
  });

  it('shortens a long name to 200 bytes, keeping its extension', () => {
    const n = sanitizeUploadName('é'.repeat(300) + '.sigmf-meta')!;
    expect(Buffer.byteLength(n)).toBeLessThanOrEqual(200);
    expect(n.endsWith('.sigmf-meta')).toBe(true);
  });
});

describe('PUT /upload on loopback', () => {
  let port = 0;
  let child: ChildProcess;
  let folder = '';
  beforeAll(async () => {
    const s = await serve([]);
    port = Number(s.url.port);
    child = s.child;
  });

  it('streams a file to disk and answers its path, which the engine then opens', async () => {
    // Written in 7 pieces without a Content-Length: a chunked, streamed body.
    const pieces = Array.from({ length: 7 }, (_, i) =>
      wav.subarray((i * wav.length) / 7, ((i + 1) * wav.length) / 7),
    );
    const r = await put(port, '/upload?name=tone.wav', pieces, { Origin: `http://127.0.0.1:${port}` });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/json');
    const { path } = JSON.parse(r.body) as { path: string };
    folder = dirname(path);
    expect(basename(path)).toBe('tone.wav');
    expect(basename(folder)).toMatch(/^phasor-uploads-/);
    expect(dirname(folder)).toBe(tmpdir());
    expect(readFileSync(path).equals(wav)).toBe(true);

    const ws = new WebSocket(`ws://127.0.0.1:${port}${withToken(port, '/ws')}`);
    await new Promise((res, rej) => (ws.once('open', res), ws.once('error', rej)));
    const replies: Array<{ id: number; ok: boolean; result: FileInfo }> = [];
    ws.on('message', (d: Buffer) => replies.push(JSON.parse(d.toString()) as (typeof replies)[number]));
    ws.send(JSON.stringify({ type: 'request', id: 1, method: 'openFile', params: { path } }));
    await waitFor(() => replies.length > 0, 'the openFile reply');
    expect(replies[0]).toMatchObject({
      id: 1,
      ok: true,
      result: { name: 'tone.wav', samples: 4800, sampleRate: 48000 },
    });
    ws.close();
  });

  it('stores what a name is reduced to, a second upload of it beside the first', async () => {
    const a = await put(
      port,
      `/upload?name=${encodeURIComponent('../../x/evil name?.wav')}`,
      [Buffer.from('first')],
      {
        'Content-Length': '5',
      },
    );
    expect(a.status).toBe(200);
    const p = (JSON.parse(a.body) as { path: string }).path;
    expect(p).toBe(join(folder, 'evil name_.wav'));
    const b = await put(port, `/upload?name=${encodeURIComponent('evil name?.wav')}`, [
      Buffer.from('second'),
    ]);
    expect((JSON.parse(b.body) as { path: string }).path).toBe(join(folder, 'evil name_ (2).wav'));
    expect(readFileSync(p, 'utf8')).toBe('first');
    expect(readFileSync(join(folder, 'evil name_ (2).wav'), 'utf8')).toBe('second');
    for (const bad of ['/upload', '/upload?name=', '/upload?name=..', '/upload?name=%2F']) {
      const r = await put(port, bad, [Buffer.from('x')]);
      expect(r.status, bad).toBe(400);
      expect(r.body).toMatch(/name the file/);
    }
  });

  it('applies the page’s checks: other sites, other host names, other methods', async () => {
    const foreign = await put(port, '/upload?name=a.wav', [Buffer.from('abc')], {
      Origin: 'http://attacker.example',
    });
    expect(foreign.status).toBe(403);
    const rebound = await put(port, '/upload?name=a.wav', [Buffer.from('abc')], { Host: 'attacker.example' });
    expect(rebound.status).toBe(403);
    const get = await new Promise<number>((resolve, reject) => {
      request({ host: '127.0.0.1', port, path: withToken(port, '/upload?name=a.wav') }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
        .on('error', reject)
        .end();
    });
    expect(get).toBe(405);
    expect(existsSync(join(folder, 'a.wav'))).toBe(false);
  });

  it('leaves nothing behind when the upload is cut short', async () => {
    await new Promise<void>((resolve) => {
      const req = request({
        host: '127.0.0.1',
        port,
        path: withToken(port, '/upload?name=cut.wav'),
        method: 'PUT',
        headers: { 'Content-Length': '100000' },
      });
      req.on('error', () => resolve());
      req.write(wav.subarray(0, 1000), () => setTimeout(() => req.destroy(), 50));
      req.on('close', () => resolve());
    });
    await waitFor(() => !readdirSync(folder).some((n) => n.includes('cut.wav')), 'the temporary to go');
    expect(readdirSync(folder).filter((n) => n.startsWith('.'))).toEqual([]);
  });

  it('streams a large body without the server’s memory growing with it', async () => {
    // 256 MiB of noise in 1 MiB pieces (one piece repeated: the client's memory stays small too).
    const piece = Buffer.from(Float32Array.from(noise(1 << 18, 4)).buffer);
    const count = 256;
    const before = vmHwmKiB(child.pid!);
    const r = await put(
      port,
      '/upload?name=big.cf32',
      Array.from({ length: count }, () => piece),
      {
        'Content-Length': String(piece.length * count),
      },
    );
    expect(r.status).toBe(200);
    const after = vmHwmKiB(child.pid!);
    const path = (JSON.parse(r.body) as { path: string }).path;
    const { statSync } = await import('node:fs');
    expect(statSync(path).size).toBe(piece.length * count);
    // Buffering the body would raise the peak by ≥ 256 MiB; streaming keeps it to buffers of a few MiB.
    expect((after - before) / 1024).toBeLessThan(64);
    rmSync(path);
  });

  it('removes its upload folder when it stops', async () => {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    expect(existsSync(folder)).toBe(false);
  });
});

describe('PUT /upload refusals', () => {
  it('refuses an upload that would leave less than the reserve free, before reading it', async () => {
    const { url, child } = await serve([], { PHASOR_UPLOAD_RESERVE_BYTES: String(2 ** 60) });
    const r = await put(
      Number(url.port),
      '/upload?name=x.wav',
      [],
      { 'Content-Length': '10' },
      { hold: true },
    );
    expect(r.status).toBe(507);
    expect(r.body).toMatch(/not enough disk space for this upload: .* GiB free, .* GiB must stay free/);
    child.kill('SIGTERM');
  });

  it('needs the access token, from the URL or the page’s cookie', async () => {
    const { url } = await serve(['--host', '0.0.0.0']);
    const port = Number(url.port);
    const token = url.searchParams.get('token')!;
    const bare = { bare: true };
    const none = await put(port, '/upload?name=t.wav', [Buffer.from('abc')], {}, bare);
    expect(none.status).toBe(401);
    const wrong = await put(
      port,
      `/upload?name=t.wav&token=${token.slice(1)}`,
      [Buffer.from('abc')],
      {},
      bare,
    );
    expect(wrong.status).toBe(401);
    const given = await put(port, `/upload?name=t.wav&token=${token}`, [Buffer.from('abc')], {}, bare);
    expect(given.status).toBe(200);
    const withCookie = await put(
      port,
      '/upload?name=t.wav',
      [Buffer.from('abcd')],
      { Cookie: `phasor_token=${token}` },
      bare,
    );
    expect(withCookie.status).toBe(200);
    expect(readFileSync((JSON.parse(withCookie.body) as { path: string }).path, 'utf8')).toBe('abcd');
  });
});
