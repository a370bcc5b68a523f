// An rtl_tcp client: a live source of cu8 I/Q from an RTL-SDR served over TCP (rtl_tcp, its forks, or
// anything speaking the protocol).
//
//   const sdr = await openRtlTcp({ host: '127.0.0.1', port: 1234, centerFrequency: 100e6, sampleRate: 2.048e6 });
//   for await (const block of sdr.blocks({ signal, raw: true })) …   // cu8 bytes as received, endless
//   await sdr.retune(101.1e6);  sdr.link();  await sdr.close();
//
// The protocol: the server greets with 12 bytes ("RTL0", tuner type, gain count, uint32 big-endian), then
// streams interleaved cu8 I/Q (zero at 127.5); the client sends 5-byte commands (command byte, uint32
// big-endian). The setup commands go out on connect and again after every reconnect (the server keeps
// the dongle's state from its previous client).
//
// Blocks: the socket is read as fast as it delivers, into blocks of `blockFrames` frames (one new buffer
// per block: a block handed out stays valid for good); at most `maxQueueSeconds` of them wait for the
// consumer, then the oldest are dropped and counted (droppedSamples, droppedBlocks), so memory stays
// bounded and a slow consumer sees the newest signal. A block's `start` counts frames since the source
// opened, dropped ones included (a drop is a jump in `start`). Across a reconnect `start` jumps by the
// wall-clock time between the last bytes before the loss and the first after it, × the sample rate: no
// frames are invented, and a recorder sees the gap where it happened. A retune ends the block being
// filled, so every block has one centre frequency (bytes already in flight when the command leaves are
// still labelled with the new one: a few ms at most).
//
// A lost link (closed, reset, or no bytes for `stallMs`) is reconnected with back-off (0.25 s doubling to
// 5 s); after `maxReconnects` failed attempts in a row the source fails and blocks() throws one line.

import { connect, type Socket } from 'node:net';
import { InvalidArgumentError, PhasorError, oneLine } from '../errors.js';
import type { LinkStatus } from '../protocol/messages.js';
import type { StreamFormat } from '../types.js';
import type { ReadOptions, SourceInfo } from './source.js';
import { wallClock, type LiveBlock, type LiveSource } from './live-source.js';
import { liveBlockFrames } from './pace.js';
import { snapGain, tunerName } from './rtltcp-gains.js';

/** rtl_tcp command bytes. */
export const RtlTcpCommand = {
  frequency: 0x01,
  sampleRate: 0x02,
  gainMode: 0x03,
  gain: 0x04,
  ppm: 0x05,
  agc: 0x08,
  directSampling: 0x09,
  offsetTuning: 0x0a,
  gainIndex: 0x0d,
  biasTee: 0x0e,
} as const;

export interface RtlTcpOptions {
  /** Host name, IPv4 or IPv6 address (brackets allowed). */
  host: string;
  port: number;
  /** Hz. */
  centerFrequency: number;
  /** Hz. */
  sampleRate: number;
  /** 'auto' (the tuner's AGC) or dB, snapped to the connected tuner's gain steps. Default 'auto'. */
  gain?: 'auto' | number;
  /** Frequency correction (ppm, may be negative). Default 0. */
  ppm?: number;
  /** The RTL2832's digital AGC. Default false. */
  agc?: boolean;
  /** Direct sampling: 0 off, 1 I branch, 2 Q branch. Default 0. */
  directSampling?: 0 | 1 | 2;
  /** Offset tuning (E4000). Default false. */
  offsetTuning?: boolean;
  /** Bias tee power on the antenna input (some forks read 0x0e as tuner bandwidth). Default false. */
  biasTee?: boolean;
  /** A link with no bytes for this long (ms) is dropped and reconnected. Default 3000. */
  stallMs?: number;
  /** Connecting and the greeting together may take this long (ms). Default 5000. */
  connectTimeoutMs?: number;
  /** Failed reconnection attempts in a row before the source fails. Default 10. */
  maxReconnects?: number;
  /** First reconnection delay (ms), doubling up to maxReconnectDelayMs. Defaults 250, 5000. */
  reconnectDelayMs?: number;
  maxReconnectDelayMs?: number;
  /** Signal kept waiting for a slow consumer before the oldest blocks are dropped (s). Default 2: on a
   * 2-core machine drawing the live view, start-up (JIT, the first frames) held the consumer up to about
   * 1 s, which a 0.5 s queue turned into drops (docs/PERFORMANCE.md, rtl_tcp). */
  maxQueueSeconds?: number;
  /** The same limit in bytes (whichever is smaller). Default 16 MiB (2.6 s at 3.2 Msamples/s). */
  maxQueueBytes?: number;
  /** Frames per block. Default liveBlockFrames(sampleRate). */
  blockFrames?: number;
}

/** A block waiting for the consumer: the bytes and where they sit in the stream. */
interface Pending {
  format: StreamFormat;
  start: number;
  frames: number;
  bytes: Uint8Array;
  captureTime: number;
}

const MAGIC = [0x52, 0x54, 0x4c, 0x30]; // "RTL0"
const RAW_SCALE = 1 / 127.5;

/** `rtl_tcp://host:port`, with an IPv6 address in brackets. */
export function rtlTcpUrl(host: string, port: number): string {
  return `rtl_tcp://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

function describeSocketError(err: NodeJS.ErrnoException): string {
  switch (err.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
      return 'unknown host';
    case 'EAI_AGAIN':
      return 'host name lookup failed (is DNS reachable?)';
    case 'EHOSTUNREACH':
      return 'host unreachable';
    case 'ENETUNREACH':
      return 'network unreachable';
    case 'ETIMEDOUT':
      return 'connection timed out';
    case 'ECONNRESET':
      return 'connection reset by the server';
    case 'EPIPE':
      return 'the server closed the connection';
    default:
      return oneLine(err.message, 200);
  }
}

/** A command as rtl_tcp reads it: the command byte, then the parameter as big-endian uint32 (negative
 * values, ppm, as two's complement). */
export function encodeCommand(cmd: number, value: number): Buffer {
  const b = Buffer.allocUnsafe(5);
  b[0] = cmd;
  b.writeUInt32BE(Math.trunc(value) >>> 0, 1);
  return b;
}

export class RtlTcpSource implements LiveSource {
  readonly channel = 0;
  readonly #host: string;
  readonly #port: number;
  readonly #url: string;
  readonly #o: RtlTcpOptions;
  readonly #blockBytes: number;
  readonly #maxQueued: number;
  #format: StreamFormat;
  #info: SourceInfo;
  #tuner = -1;
  #socket: Socket | null = null;
  /** The socket of an attempt still waiting for its greeting. */
  #pending: Socket | null = null;
  #state: LinkStatus['state'] = 'connecting';
  #detail: string;
  #reconnects = 0;
  #attempts = 0;
  #droppedSamples = 0;
  #droppedBlocks = 0;
  readonly #queue: Pending[] = [];
  #queuedFrames = 0;
  #block: Uint8Array;
  #fill = 0;
  #frames = 0;
  #lastData = 0;
  /** performance.now() of the last bytes before the link was lost, until it is back. */
  #lostAt: number | undefined;
  #error: PhasorError | null = null;
  #closed = false;
  #wake: (() => void) | null = null;
  #retry: ReturnType<typeof setTimeout> | null = null;
  #watchdog: ReturnType<typeof setInterval> | null = null;

  constructor(options: RtlTcpOptions) {
    const host = options.host.replace(/^\[(.*)\]$/, '$1');
    const { port, centerFrequency: f, sampleRate: rate } = options;
    const where = rtlTcpUrl(host || '?', port);
    const check = (ok: boolean, what: string): void => {
      if (!ok) throw new InvalidArgumentError(`${where}: ${what}`);
    };
    check(host.length > 0 && host.length <= 255, 'the host is empty or too long');
    check(Number.isInteger(port) && port >= 1 && port <= 65535, `port must be 1 to 65535, got ${port}`);
    check(
      Number.isFinite(f) && f >= 0 && f <= 0xffffffff,
      `centre frequency must be 0 to 4.29 GHz, got ${f}`,
    );
    check(
      Number.isInteger(rate) && rate > 0 && rate <= 0xffffffff,
      `sample rate must be a positive integer, got ${rate}`,
    );
    const gain = options.gain ?? 'auto';
    check(gain === 'auto' || Number.isFinite(gain), `gain must be 'auto' or dB, got ${String(gain)}`);
    const ppm = options.ppm ?? 0;
    check(Number.isInteger(ppm) && Math.abs(ppm) <= 1e6, `ppm must be a whole number, got ${ppm}`);
    this.#host = host;
    this.#port = port;
    this.#url = rtlTcpUrl(host, port);
    this.#o = { ...options };
    this.#detail = this.#url;
    this.#format = Object.freeze({ sampleRate: rate, complex: true, channels: 1, centerFrequency: f });
    this.#info = { ...this.#format, container: 'live', encoding: 'cu8' };
    const frames = options.blockFrames ?? liveBlockFrames(rate);
    this.#blockBytes = 2 * frames;
    this.#block = new Uint8Array(this.#blockBytes);
    const byTime = Math.round(rate * (options.maxQueueSeconds ?? 2));
    const byBytes = Math.floor((options.maxQueueBytes ?? 16 << 20) / 2);
    this.#maxQueued = Math.max(2 * frames, Math.min(byTime, byBytes));
  }

  get info(): SourceInfo {
    return this.#info;
  }

  /** "rtl_tcp://127.0.0.1:1234 (R820T)" once connected. */
  get label(): string {
    return this.#tuner < 0 ? this.#url : `${this.#url} (${tunerName(this.#tuner)})`;
  }

  get url(): string {
    return this.#url;
  }

  get droppedBlocks(): number {
    return this.#droppedBlocks;
  }

  /** Frames dropped because the consumer fell behind. */
  get droppedSamples(): number {
    return this.#droppedSamples;
  }

  /** Frames waiting for the consumer now (bounded, see the file comment). */
  get queuedFrames(): number {
    return this.#queuedFrames;
  }

  /** The most frames that ever wait for the consumer. */
  get maxQueuedFrames(): number {
    return this.#maxQueued;
  }

  /** The tuner type of the greeting (-1 before the first). */
  get tunerType(): number {
    return this.#tuner;
  }

  link(): LinkStatus {
    return {
      state: this.#state,
      reconnects: this.#reconnects,
      droppedSamples: this.#droppedSamples,
      detail: this.#detail,
    };
  }

  /** Connects the first time; rejects with a one-line error when that fails. */
  async open(): Promise<void> {
    try {
      await this.#connect();
    } catch (err) {
      this.#state = 'failed';
      await this.close();
      throw err;
    }
    const stall = this.#o.stallMs ?? 3000;
    this.#watchdog = setInterval(
      () => {
        const s = this.#socket;
        if (s && this.#state === 'connected' && performance.now() - this.#lastData > stall) {
          this.#lost(s, `no data for ${stall / 1000} s`);
        }
      },
      Math.max(10, Math.min(500, stall / 4)),
    );
    this.#watchdog.unref();
  }

  /** Moves to a new centre frequency without reconnecting (sent again after a reconnect). Resolves once
   * the command is written (at once while reconnecting). */
  retune(centerFrequency: number): Promise<void> {
    if (!(Number.isFinite(centerFrequency) && centerFrequency >= 0 && centerFrequency <= 0xffffffff)) {
      return Promise.reject(
        new InvalidArgumentError(
          `${this.#url}: centre frequency must be 0 to 4.29 GHz, got ${centerFrequency}`,
        ),
      );
    }
    if (this.#error) return Promise.reject(this.#error);
    if (this.#closed) return Promise.reject(new PhasorError('io', `${this.#url}: the source is closed`));
    const hz = Math.round(centerFrequency);
    this.#o.centerFrequency = hz;
    // Blocks so far keep the old centre; the new one starts with the next byte.
    this.#flush(true);
    this.#format = Object.freeze({ ...this.#format, centerFrequency: hz });
    this.#info = { ...this.#format, container: 'live', encoding: 'cu8' };
    const s = this.#socket;
    if (!s || this.#state !== 'connected') return Promise.resolve();
    return new Promise((resolve) => s.write(encodeCommand(RtlTcpCommand.frequency, hz), () => resolve()));
  }

  /** The setup commands: gain mode before gain (a gain sent in auto mode is ignored). */
  #setup(): Buffer {
    const o = this.#o;
    const c = RtlTcpCommand;
    const list = [
      encodeCommand(c.directSampling, o.directSampling ?? 0),
      encodeCommand(c.offsetTuning, o.offsetTuning ? 1 : 0),
      encodeCommand(c.sampleRate, o.sampleRate),
      encodeCommand(c.frequency, Math.round(o.centerFrequency)),
      encodeCommand(c.ppm, o.ppm ?? 0),
      encodeCommand(c.agc, o.agc ? 1 : 0),
    ];
    const gain = o.gain ?? 'auto';
    if (gain === 'auto') list.push(encodeCommand(c.gainMode, 0));
    else list.push(encodeCommand(c.gainMode, 1), encodeCommand(c.gain, snapGain(this.#tuner, gain)));
    // Only when asked: forks that read 0x0e as bandwidth then keep theirs.
    if (o.biasTee) list.push(encodeCommand(c.biasTee, 1));
    return Buffer.concat(list);
  }

  /** One connection attempt: resolves once the greeting checked out and the setup went out. */
  #connect(): Promise<void> {
    const timeoutMs = this.#o.connectTimeoutMs ?? 5000;
    return new Promise((resolve, reject) => {
      const socket = connect({ host: this.#host, port: this.#port });
      socket.setNoDelay(true);
      this.#pending = socket;
      let greeting: Buffer = Buffer.alloc(0);
      let done = false;
      const fail = (message: string): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        if (this.#pending === socket) this.#pending = null;
        socket.destroy();
        reject(new PhasorError('io', `${this.#url}: ${this.#closed ? 'closed while connecting' : message}`));
      };
      const timer = setTimeout(
        () =>
          fail(
            greeting.length === 0 && socket.connecting
              ? `no answer within ${timeoutMs / 1000} s`
              : `no rtl_tcp greeting within ${timeoutMs / 1000} s (is it an rtl_tcp server?)`,
          ),
        timeoutMs,
      );
      socket.on('error', (err: NodeJS.ErrnoException) => {
        if (!done) fail(describeSocketError(err));
        else this.#lost(socket, describeSocketError(err));
      });
      socket.on('close', () => {
        if (!done) {
          fail(
            greeting.length > 0
              ? 'closed the connection in its greeting'
              : 'closed the connection without a greeting (busy with another client?)',
          );
        } else this.#lost(socket, 'the server closed the connection');
      });
      socket.on('data', (d: Buffer) => {
        if (done) {
          if (socket === this.#socket) this.#onData(d);
          return;
        }
        greeting = greeting.length > 0 ? Buffer.concat([greeting, d]) : d;
        for (let i = 0; i < Math.min(4, greeting.length); i++) {
          if (greeting[i] !== MAGIC[i]) {
            const said = oneLine(greeting.subarray(0, 48).toString('latin1'), 60);
            fail(`not an rtl_tcp server (it sent "${said}" instead of "RTL0")`);
            return;
          }
        }
        if (greeting.length < 12) return;
        done = true;
        clearTimeout(timer);
        if (this.#pending === socket) this.#pending = null;
        if (this.#closed) {
          socket.destroy();
          resolve();
          return;
        }
        this.#tuner = greeting.readUInt32BE(4);
        this.#socket = socket;
        socket.write(this.#setup());
        const now = performance.now();
        if (this.#lostAt !== undefined) {
          // Back after a loss: the frames of the gap are skipped, not invented (see the file comment).
          this.#frames += Math.round(((now - this.#lostAt) / 1000) * this.#format.sampleRate);
          this.#lostAt = undefined;
        }
        this.#lastData = now;
        this.#state = 'connected';
        this.#detail = `${this.#url}, ${tunerName(this.#tuner)}`;
        if (greeting.length > 12) this.#onData(greeting.subarray(12));
        resolve();
      });
    });
  }

  /** The link broke after it was up: keep what arrived, then reconnect with back-off. */
  #lost(socket: Socket, reason: string): void {
    if (socket !== this.#socket) return;
    this.#socket = null;
    socket.destroy();
    if (this.#closed) return;
    this.#flush(false);
    this.#lostAt = this.#lastData;
    this.#state = 'reconnecting';
    this.#detail = `${this.#url}: ${reason}`;
    this.#scheduleReconnect();
  }

  #scheduleReconnect(): void {
    if (this.#closed) return;
    const max = this.#o.maxReconnects ?? 10;
    if (this.#attempts >= max) {
      this.#state = 'failed';
      this.#error = new PhasorError('io', `${this.#detail} (gave up after ${max} reconnection attempts)`);
      this.#stopTimers();
      this.#notify();
      return;
    }
    const base = this.#o.reconnectDelayMs ?? 250;
    const delay = Math.min(this.#o.maxReconnectDelayMs ?? 5000, base * 2 ** this.#attempts);
    this.#attempts++;
    this.#retry = setTimeout(() => {
      this.#retry = null;
      if (this.#closed) return;
      this.#connect().then(
        () => {
          if (!this.#closed) this.#reconnects++;
        },
        (err: unknown) => {
          if (this.#closed) return;
          this.#detail = err instanceof Error ? err.message : String(err);
          this.#scheduleReconnect();
        },
      );
    }, delay);
  }

  /** Copies arriving bytes into blocks; an odd byte (half an I/Q pair) waits in the block for its mate. */
  #onData(d: Buffer): void {
    this.#lastData = performance.now();
    // Samples, not the greeting, make an attempt a success: a server that accepts and then sends nothing
    // keeps backing off (and counts towards giving up) instead of being retried every stallMs.
    this.#attempts = 0;
    let i = 0;
    while (i < d.length) {
      const n = Math.min(d.length - i, this.#blockBytes - this.#fill);
      this.#block.set(n === d.length ? d : d.subarray(i, i + n), this.#fill);
      this.#fill += n;
      i += n;
      if (this.#fill === this.#blockBytes) this.#push(this.#blockBytes);
    }
  }

  /** Hands out the block being filled, if it holds a frame; `keepOdd` carries a half pair over. */
  #flush(keepOdd: boolean): void {
    const whole = this.#fill & ~1;
    const odd = this.#fill & 1 ? this.#block[whole] : -1;
    if (whole > 0) this.#push(whole);
    else this.#fill = 0;
    if (keepOdd && odd >= 0) {
      this.#block[0] = odd;
      this.#fill = 1;
    }
  }

  #push(bytes: number): void {
    const frames = bytes >> 1;
    const block = this.#block;
    this.#block = new Uint8Array(this.#blockBytes);
    this.#fill = 0;
    if (this.#closed) return;
    this.#queue.push({
      format: this.#format,
      start: this.#frames,
      frames,
      bytes: bytes === block.length ? block : block.subarray(0, bytes),
      captureTime: wallClock(),
    });
    this.#frames += frames;
    this.#queuedFrames += frames;
    // The consumer fell behind: keep the newest signal, count what is lost.
    while (this.#queuedFrames > this.#maxQueued && this.#queue.length > 1) {
      const old = this.#queue.shift()!;
      this.#queuedFrames -= old.frames;
      this.#droppedSamples += old.frames;
      this.#droppedBlocks++;
    }
    this.#notify();
  }

  #notify(): void {
    const w = this.#wake;
    this.#wake = null;
    w?.();
  }

  /** Endless until close(), the signal, or a failed link. `blockFrames` is the source's own (an option of
   * openRtlTcp), not the read's: blocks are cut as the bytes arrive. */
  blocks(options: ReadOptions = {}): AsyncIterable<LiveBlock> {
    return this.#run(options.signal, options.raw === true);
  }

  async *#run(signal: AbortSignal | undefined, raw: boolean): AsyncGenerator<LiveBlock> {
    const onAbort = (): void => this.#notify();
    signal?.addEventListener('abort', onAbort);
    try {
      while (!signal?.aborted && !this.#closed) {
        const b = this.#queue.shift();
        if (b) {
          this.#queuedFrames -= b.frames;
          let data: LiveBlock['data'];
          if (raw) data = { data: b.bytes, offset: 127.5, scale: RAW_SCALE };
          else {
            const f = new Float32Array(b.bytes.length);
            for (let i = 0; i < f.length; i++) f[i] = (b.bytes[i] - 127.5) * RAW_SCALE;
            data = f;
          }
          yield { format: b.format, start: b.start, frames: b.frames, data, captureTime: b.captureTime };
          continue;
        }
        if (this.#error) throw this.#error;
        await new Promise<void>((resolve) => (this.#wake = resolve));
      }
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  #stopTimers(): void {
    if (this.#retry) clearTimeout(this.#retry);
    if (this.#watchdog) clearInterval(this.#watchdog);
    this.#retry = null;
    this.#watchdog = null;
  }

  /** Ends the link, the timers and blocks() at once. */
  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    this.#stopTimers();
    const s = this.#socket;
    this.#socket = null;
    s?.destroy();
    this.#pending?.destroy();
    this.#pending = null;
    this.#queue.length = 0;
    this.#queuedFrames = 0;
    this.#notify();
    return Promise.resolve();
  }
}

/** Connects to an rtl_tcp server and starts streaming (see the file comment); rejects with one line
 * (`rtl_tcp://host:port: connection refused`) when the first connection fails. */
export async function openRtlTcp(options: RtlTcpOptions): Promise<RtlTcpSource> {
  const source = new RtlTcpSource(options);
  await source.open();
  return source;
}
