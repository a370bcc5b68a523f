// `phasor serve` and network sources: a web client has the engine connect only to the rtl_tcp servers the
// user granted (--rtl-tcp HOST:PORT; by default port 1234 on this machine). The real CLI in a child
// process, a real WebSocket. A granted endpoint is let through to the source (which may then fail to
// connect: a different error); an ungranted one is refused in one line naming the flag.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { audioBlockFrames, encodeAudioFrame } from '../../electron/engine/protocol/audio-frames.js';
import { defaultAnalysis } from '../../electron/engine/protocol/messages.js';
import { phasorBin, runCli } from '../support/cli.js';

const base = mkdtempSync(join(tmpdir(), 'phasor-grants-'));
const app = join(base, 'app');
mkdirSync(app);
writeFileSync(join(app, 'index.html'), '<!doctype html><title>Phasor</title>\n');

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  rmSync(base, { recursive: true, force: true });
});

/** A port nothing listens on (bound once, then released). */
let closedPort = 0;
beforeAll(async () => {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  closedPort = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
});

function serve(args: string[]): Promise<{ ws: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [phasorBin, 'serve', '--port', '0', '--app-dir', app, ...args], {
    cwd: base,
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
      const m = /^(http:\/\/\S+)\n/m.exec(out);
      if (!m) return;
      const url = new URL(m[1]);
      resolve({ ws: `ws://127.0.0.1:${url.port}/ws?token=${url.searchParams.get('token')}`, child });
    });
    child.on('exit', (code) => reject(new Error(`phasor serve exited (${code}): ${err}`)));
  });
}

type Reply = { id: number; ok: boolean; error?: { code: string; message: string } };

async function connect(url: string): Promise<(source: Record<string, unknown>) => Promise<Reply>> {
  const ws = new WebSocket(url);
  const replies = new Map<number, Reply>();
  ws.on('message', (d: Buffer, binary: boolean) => {
    if (binary) return;
    const m = JSON.parse(d.toString()) as Reply & { type: string };
    if (m.type === 'reply') replies.set(m.id, m);
  });
  await new Promise<void>((res, rej) => {
    ws.once('open', () => res());
    ws.once('error', rej);
  });
  let id = 0;
  return async (source) => {
    const n = ++id;
    ws.send(
      JSON.stringify({
        type: 'request',
        id: n,
        method: 'start',
        params: { source, analysis: defaultAnalysis },
      }),
    );
    const end = Date.now() + 60000;
    while (!replies.has(n)) {
      if (Date.now() > end) throw new Error(`no reply to start ${JSON.stringify(source)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    // Whatever started is stopped before the next request.
    ws.send(JSON.stringify({ type: 'request', id: 1000 + n, method: 'stop', params: {} }));
    return replies.get(n)!;
  };
}

function refused(r: Reply, endpoint: string): void {
  expect(r.ok).toBe(false);
  expect(r.error).toEqual({
    code: 'invalid-argument',
    message: `rtl_tcp://${endpoint} is not granted to web clients: start phasor serve with --rtl-tcp ${endpoint}`,
  });
}

/** Let through to the source: any outcome but the refusal (no server listens there). */
function letThrough(r: Reply): void {
  if (r.ok) return;
  expect(r.error?.message).not.toMatch(/not granted/);
  expect(r.error?.message.split('\n')).toHaveLength(1);
}

describe('phasor serve: rtl_tcp endpoints a web client may reach', () => {
  it('grants port 1234 on this machine by default and refuses the rest', async () => {
    const s = await serve([]);
    const start = await connect(s.ws);
    refused(await start({ kind: 'rtl_tcp', host: '10.0.0.5', port: 1234 }), '10.0.0.5:1234');
    refused(await start({ kind: 'rtl_tcp', host: '127.0.0.1', port: closedPort }), `127.0.0.1:${closedPort}`);
    refused(await start({ kind: 'rtl_tcp', host: 'FE80::1', port: 1234 }), '[fe80::1]:1234');
    letThrough(await start({ kind: 'rtl_tcp', host: '127.0.0.1', port: 1234 }));
    letThrough(await start({ kind: 'rtl_tcp', host: 'LocalHost', port: 1234 }));
    letThrough(await start({ kind: 'rtl_tcp', host: '0:0:0:0:0:0:0:1', port: 1234 }));
    s.child.kill('SIGTERM');
  });

  it('grants exactly the --rtl-tcp endpoints given, IPv6 in brackets', async () => {
    const s = await serve(['--rtl-tcp', `LOCALHOST:${closedPort}`, '--rtl-tcp', `[0::1]:${closedPort}`]);
    const start = await connect(s.ws);
    letThrough(await start({ kind: 'rtl_tcp', host: 'localhost', port: closedPort }));
    letThrough(await start({ kind: 'rtl_tcp', host: '::1', port: closedPort }));
    refused(await start({ kind: 'rtl_tcp', host: '127.0.0.1', port: 1234 }), '127.0.0.1:1234');
    refused(await start({ kind: 'rtl_tcp', host: 'localhost', port: 1234 }), 'localhost:1234');
    s.child.kill('SIGTERM');
  });

  it('refuses a malformed --rtl-tcp in one line', async () => {
    const r = await runCli(['serve', '--port', '0', '--app-dir', app, '--rtl-tcp', 'no-port-here']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/^phasor: --rtl-tcp takes HOST:PORT .*got "no-port-here"\n$/);
  });
});

describe("phasor serve: a client's own microphone", () => {
  /** A client that keeps every message: JSON ones parsed, binary ones (rows) counted. */
  async function client(url: string) {
    const ws = new WebSocket(url);
    const json: Array<Record<string, unknown>> = [];
    let rows = 0;
    ws.on('message', (d: Buffer, binary: boolean) => {
      if (binary) rows++;
      else json.push(JSON.parse(d.toString()) as Record<string, unknown>);
    });
    await new Promise<void>((res, rej) => {
      ws.once('open', () => res());
      ws.once('error', rej);
    });
    let id = 0;
    const request = async (method: string, params: unknown) => {
      const n = ++id;
      ws.send(JSON.stringify({ type: 'request', id: n, method, params }));
      const end = Date.now() + 30000;
      for (;;) {
        const r = json.find((m) => m.type === 'reply' && m.id === n);
        if (r) return r as Reply & { result?: Record<string, unknown> };
        if (Date.now() > end) throw new Error(`no reply to ${method}`);
        await new Promise((res) => setTimeout(res, 20));
      }
    };
    const events = (name: string) =>
      json
        .filter((m) => m.type === 'event' && m.event === name)
        .map((m) => m.data as Record<string, unknown>);
    return { ws, json, request, events, rows: () => rows };
  }

  const FS = 48000;
  const block = (session: number, seq: number): Buffer => {
    const frames = audioBlockFrames(FS);
    const samples = new Float32Array(frames);
    for (let i = 0; i < frames; i++)
      samples[i] = 0.5 * Math.sin((2 * Math.PI * 2000 * (seq * frames + i)) / FS);
    return Buffer.from(encodeAudioFrame({ session, seq, start: seq * frames, samples }));
  };

  it('needs only the token: its audio blocks reach its own session and no other', async () => {
    const s = await serve([]);
    const page = await fetch(s.ws.replace('ws://', 'http://').replace('/ws?', '/?'));
    // The page may ask for its own microphone; no other origin's frame may.
    expect(page.headers.get('permissions-policy')).toContain('microphone=(self)');
    const a = await client(s.ws);
    const b = await client(s.ws);
    const hello = await a.request('hello', {});
    const kinds = (hello.result!.sources as Array<{ kind: string; capture?: string }>).filter(
      (k) => k.capture === 'browser-audio',
    );
    expect(kinds.map((k) => k.kind)).toEqual(['browser-mic']);
    const started = await a.request('start', {
      source: { kind: 'browser-mic', sampleRate: FS, device: 'test' },
      analysis: defaultAnalysis,
    });
    expect(started.ok).toBe(true);
    const session = started.result!.session as number;
    for (let seq = 0; seq < 50; seq++) {
      a.ws.send(block(session, seq));
      // Another client's blocks for this session are not this session's.
      if (seq === 25) b.ws.send(block(session, 5000));
      await new Promise((r) => setTimeout(r, 10));
    }
    const end = Date.now() + 20000;
    while (!a.events('peaks').some((p) => (p.peaks as unknown[]).length > 0)) {
      if (Date.now() > end) throw new Error('no peaks');
      await new Promise((r) => setTimeout(r, 20));
    }
    const peak = a.events('peaks').find((p) => (p.peaks as unknown[]).length > 0)!;
    expect(Math.abs((peak.peaks as Array<{ frequency: number }>)[0].frequency - 2000)).toBeLessThan(
      peak.binWidth as number,
    );
    expect(a.rows()).toBeGreaterThan(0);
    while (a.events('status').length === 0) await new Promise((r) => setTimeout(r, 20));
    expect(a.events('status').at(-1)!.droppedBlocks).toBe(0);
    expect(a.json.filter((m) => m.type === 'reply' && m.ok === false)).toEqual([]);
    s.child.kill('SIGTERM');
  });
});
