// Soak test of `phasor serve`: a real server process and 20 WebSocket clients speaking the live protocol
// for `--minutes` (default 10). Eighteen behave as the page does (a generator session, every rows message
// acknowledged); one reads but never acknowledges (the engine drops rows for it, nothing queues); one
// stops reading after it has asked for four of the largest readSamples replies (the server pauses it and
// drops it once it has stayed over its queue's high-water mark). Printed: the server's RSS over time, the
// rows each kind of client received and the engine dropped, and the latency of the well-behaved clients
// (arrival at the client − the time the rows' newest block was released by the source; one machine, one
// clock).
//
//   npx tsx bench/soak.ts [--minutes 10] [--clients 20] [--every 10]   (--every: seconds between RSS samples)
//
// The server runs with a stand-in page (no renderer build needed) and its own root folder in /tmp.

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { defaultAnalysis, type ServerMessage } from '../electron/engine/protocol/messages.js';
import { decodeBinary } from '../electron/engine/protocol/rows-codec.js';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    clients: { type: 'string', default: '20' },
    every: { type: 'string', default: '10' },
  },
});
const minutes = Number(values.minutes);
const clientCount = Number(values.clients);
const everyS = Number(values.every);
if (!(minutes > 0) || !(clientCount >= 3) || !(everyS > 0)) {
  throw new Error('--minutes > 0, --clients ≥ 3 and --every > 0');
}

const root = new URL('..', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'phasor-soak-'));
const app = join(work, 'app');
const data = join(work, 'data');
mkdirSync(app);
mkdirSync(data);
writeFileSync(join(app, 'index.html'), '<!doctype html><title>Phasor soak</title>\n');
// 16 MiB of cu8: one readSamples of all of it is the largest reply (2^24 floats, 64 MiB).
const big = join(data, 'big.cu8');
writeFileSync(big, randomBytes(16 << 20));

const server = spawn(
  process.execPath,
  [join(root, 'bin', 'phasor.js'), 'serve', '--port', '0', '--app-dir', app, '--root', data],
  { cwd: work, env: { ...process.env, PHASOR_STANDBY: 'off' }, stdio: ['ignore', 'pipe', 'pipe'] },
);
let serverErr = '';
server.stderr.on('data', (d: Buffer) => (serverErr += d.toString()));
const url = await new Promise<URL>((resolve, reject) => {
  let out = '';
  server.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    const m = /^(http:\/\/\S+)\n/m.exec(out);
    if (m) resolve(new URL(m[1]));
  });
  server.once('exit', (code) => reject(new Error(`phasor serve exited (${code}): ${serverErr}`)));
});
const wsUrl = `ws://127.0.0.1:${url.port}/ws?token=${url.searchParams.get('token') ?? ''}`;

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

function now(): number {
  return performance.timeOrigin + performance.now();
}

type Kind = 'good' | 'no-ack' | 'no-read';

class Client {
  readonly ws: WebSocket;
  rowsMessages = 0;
  rows = 0;
  /** droppedRows of the latest status event of this client's session. */
  droppedRows = 0;
  readonly latencies: number[] = [];
  closeCode: number | null = null;
  #next = 1;
  readonly #waiting = new Map<number, (m: Record<string, unknown>) => void>();

  constructor(readonly kind: Kind) {
    this.ws = new WebSocket(wsUrl);
    this.ws.binaryType = 'arraybuffer';
    this.ws.on('message', (raw: ArrayBuffer | Buffer, binary: boolean) => {
      if (binary) {
        const b = decodeBinary(raw as ArrayBuffer);
        if (b.kind !== 'rows') return;
        const m = b.rows;
        this.rowsMessages++;
        this.rows += m.count;
        if (this.kind === 'good') {
          this.latencies.push(now() - m.captureTime);
          this.ws.send(JSON.stringify({ type: 'ack', session: m.session, seq: m.seq }));
        }
        return;
      }
      const m = JSON.parse(raw.toString()) as ServerMessage & Record<string, unknown>;
      if (m.type === 'reply') this.#waiting.get(m.id as number)?.(m);
      else if (m.type === 'event' && m.event === 'status') {
        this.droppedRows = (m.data as { droppedRows: number }).droppedRows;
      }
    });
    this.ws.on('close', (code) => (this.closeCode = code));
    this.ws.on('error', () => undefined);
  }

  opened(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.ws.once('open', () => resolve());
      this.ws.once('close', (code) => reject(new Error(`closed (${code})`)));
    });
  }

  send(method: string, params: unknown): number {
    const id = this.#next++;
    this.ws.send(JSON.stringify({ type: 'request', id, method, params }));
    return id;
  }

  async request(method: string, params: unknown): Promise<Record<string, unknown>> {
    const id = this.send(method, params);
    const reply = await new Promise<Record<string, unknown>>((resolve) => this.#waiting.set(id, resolve));
    this.#waiting.delete(id);
    if (!reply.ok) throw new Error(`${method}: ${JSON.stringify(reply.error)}`);
    return reply.result as Record<string, unknown>;
  }
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

const kinds: Kind[] = Array.from({ length: clientCount }, (_, i) =>
  i === 0 ? 'no-ack' : i === 1 ? 'no-read' : 'good',
);
const pid = server.pid!;
const rssStart = rssMiB(pid);
const clients: Client[] = [];
for (const kind of kinds) {
  const c = new Client(kind);
  await c.opened();
  await c.request('start', {
    source: { kind: 'generator', frequency: 1000 + 100 * clients.length },
    analysis: defaultAnalysis,
  });
  clients.push(c);
}
// The one that stops reading: asks for four 64 MiB replies, then reads nothing more.
const stalled = clients.find((c) => c.kind === 'no-read')!;
const file = (await stalled.request('openFile', { path: big, format: 'cu8', rate: 1e6 })).file as number;
(stalled.ws as unknown as { _socket: Socket })._socket.pause();
for (let i = 0; i < 4; i++) stalled.send('readSamples', { file, start: 0, end: 1 << 23 });

const t0 = Date.now();
const samples: Array<{ t: number; rss: number }> = [{ t: 0, rss: rssStart }];
let peak = rssStart;
const end = t0 + minutes * 60_000;
let droppedAt: number | null = null;
while (Date.now() < end) {
  await new Promise((r) => setTimeout(r, Math.min(1000, end - Date.now())));
  const rss = rssMiB(pid);
  peak = Math.max(peak, rss);
  if (droppedAt === null && /dropped a client/.test(serverErr)) droppedAt = (Date.now() - t0) / 1000;
  const t = (Date.now() - t0) / 1000;
  if (t - samples[samples.length - 1].t >= everyS - 0.5) samples.push({ t, rss });
}
const seconds = (Date.now() - t0) / 1000;

// Latency over the whole run of every well-behaved client together.
const good = clients.filter((c) => c.kind === 'good');
const lat = good.flatMap((c) => c.latencies).sort((a, b) => a - b);
const sum = (f: (c: Client) => number, list: Client[]) => list.reduce((a, c) => a + f(c), 0);
const noAck = clients.find((c) => c.kind === 'no-ack')!;
const closed = clients.filter((c) => c.kind !== 'no-read' && c.closeCode !== null).length;

for (const c of clients) c.ws.terminate();
server.kill('SIGTERM');
await new Promise((r) => server.once('exit', r));
rmSync(work, { recursive: true, force: true });

console.log(
  `phasor serve soak: ${clientCount} clients (${good.length} well-behaved, 1 never acknowledges, 1 never reads), ` +
    `${(seconds / 60).toFixed(1)} min, generator at 48 kHz, FFT ${defaultAnalysis.fft}, ${cpus().length} cores`,
);
console.log('\nserver RSS (MiB) over time');
console.log('| t (s) | RSS (MiB) |\n|---:|---:|');
for (const s of samples) console.log(`| ${s.t.toFixed(0)} | ${s.rss.toFixed(0)} |`);
console.log(`peak sampled RSS ${peak.toFixed(0)} MiB (start ${rssStart.toFixed(0)} MiB)`);
console.log('\n| client | rows received | rows dropped by the engine |\n|---|---:|---:|');
console.log(
  `| well-behaved (${good.length}, total) | ${sum((c) => c.rows, good)} | ${sum((c) => c.droppedRows, good)} |`,
);
console.log(`| never acknowledges | ${noAck.rows} | ${noAck.droppedRows} |`);
console.log(
  `\nnever-reading client: ${droppedAt !== null ? `dropped by the server after ${droppedAt.toFixed(0)} s of the run` : 'not dropped'}`,
);
for (const line of serverErr.split('\n').filter((l) => /dropped/.test(l))) console.log(`  server: ${line}`);
console.log(
  `\nlatency of the well-behaved clients (arrival − source release), ${lat.length} rows messages: ` +
    `p50 ${quantile(lat, 0.5).toFixed(1)} ms, p99 ${quantile(lat, 0.99).toFixed(1)} ms, max ${(lat[lat.length - 1] ?? NaN).toFixed(1)} ms`,
);
if (closed > 0) console.log(`warning: ${closed} other client(s) were closed during the run`);
