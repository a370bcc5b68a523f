// A fake rtl_tcp server for tests and benchmarks, speaking the real protocol on 127.0.0.1: the 12-byte
// greeting ("RTL0", tuner type, gain count, big-endian), then interleaved cu8 I/Q; it decodes and keeps
// every 5-byte command it receives. The signal is one carrier at an ABSOLUTE frequency (its offset from
// the centre follows 0x01/0x02) plus a little noise.
//
//   const fake = await startFakeRtlTcp({ carrier: 100.25e6 });
//   ... connect to fake.host:fake.port ...; fake.commands → [{ cmd: 1, value: 100000000, signed: … }, …]
//   await fake.close();
//
// The samples come from a precomputed cycle of CYCLE_FRAMES frames, so streaming 3.2 Msamples/s costs
// almost no CPU. The cycle holds a whole number of carrier periods (the offset is rounded to a multiple
// of sampleRate / CYCLE_FRAMES), so it repeats without a phase jump; it is rebuilt on every retune. Each
// connection starts at the cycle's frame 0: stream byte k of a connection is cycle()[k % length] as long
// as the centre and rate do not change. Run it as a script for benchmarks in another process:
//   npx tsx test/support/fake-rtltcp.ts [--port P] [--rate R] [--unpaced]   (prints the port)

import { createServer, type Server, type Socket } from 'node:net';
import { pathToFileURL } from 'node:url';

/** Frames in the precomputed signal cycle (256 KiB of cu8). */
export const CYCLE_FRAMES = 1 << 17;

export interface FakeRtlTcpOptions {
  /** Tuner type in the greeting: 1 E4000, 2 FC0012, 3 FC0013, 4 FC2580, 5 R820T, 6 R828D. Default 5. */
  tunerType?: number;
  /** Gain count in the greeting. Default 29 (R820T). */
  gainCount?: number;
  /** Bytes sent instead of the greeting (a peer that is not rtl_tcp; empty: says nothing at all). */
  greeting?: Uint8Array;
  /** Initial centre frequency and sample rate (Hz). Defaults 100 MHz, 2.048 MHz. */
  centerFrequency?: number;
  sampleRate?: number;
  /** The carrier's absolute frequency (Hz). Default centre + rate / 8. */
  carrier?: number;
  /** Carrier amplitude as a fraction of full scale (0..1). Default 0.5. */
  amplitude?: number;
  /** Noise RMS per component as a fraction of full scale. Default 0.01. */
  noise?: number;
  /** Paced at the sample rate (true, default) or as fast as the socket drains. */
  paced?: boolean;
  /** Paced: ms between writes. Default 10. */
  chunkMs?: number;
  /** Write in chunks of this many bytes with a macrotask between them (odd sizes split I/Q pairs). */
  chunkBytes?: number;
  /** Drop each connection after it has been sent this many sample bytes (see dropAfter()). */
  dropAfter?: number;
  /** With dropAfter: every connection (true) or only the first one to get there (false, default). */
  dropEvery?: boolean;
  /** How a drop ends the connection: a FIN after the bytes ('close', default) or a TCP reset. */
  dropMode?: 'close' | 'reset';
  /** Port to listen on. Default 0 (any free one). */
  port?: number;
}

export interface FakeCommand {
  /** Command byte. */
  cmd: number;
  /** Parameter as sent (uint32). */
  value: number;
  /** The same bits read as int32 (ppm). */
  signed: number;
}

export interface FakeRtlTcp {
  readonly host: string;
  readonly port: number;
  /** Every command received, in order, over all connections. */
  readonly commands: FakeCommand[];
  /** Sample bytes written so far (all connections, greetings excluded). */
  readonly bytesSent: number;
  /** Connections accepted so far. */
  readonly connections: number;
  /** Connections open now. */
  readonly open: number;
  readonly centerFrequency: number;
  readonly sampleRate: number;
  /** The carrier's absolute frequency as sent (after rounding to the cycle's grid). */
  readonly carrier: number;
  /** The bytes each connection streams, repeated (see the file comment). */
  cycle(): Buffer;
  /** Moves the carrier (absolute Hz). */
  setCarrier(hz: number): void;
  /** Stops (true) or resumes (false) sending on every connection; sockets stay open. */
  stall(on: boolean): void;
  /** Drops connections after `bytes` sample bytes (every one, or the next one only); undefined: never. */
  dropAfter(bytes: number | undefined, every?: boolean): void;
  /** Drops every open connection now. */
  dropAll(): void;
  /** Resolves once `n` commands have arrived (or rejects after `ms`). */
  waitForCommands(n: number, ms?: number): Promise<void>;
  close(): Promise<void>;
}

/** Gain counts of the tuners, as librtlsdr reports them. */
export const TUNER_GAIN_COUNT: Record<number, number> = { 1: 14, 2: 5, 3: 23, 4: 0, 5: 29, 6: 29 };

interface Conn {
  socket: Socket;
  /** Sample bytes sent on this connection. */
  sent: number;
  /** Position (bytes) in the cycle. */
  pos: number;
  /** Pacing: when the rate last changed (ms) and the bytes due since then that were already sent. */
  t0: number;
  paced0: number;
  timer: NodeJS.Timeout | undefined;
  writing: boolean;
  dead: boolean;
}

/** Starts the fake server on 127.0.0.1 (see the file comment). */
export async function startFakeRtlTcp(options: FakeRtlTcpOptions = {}): Promise<FakeRtlTcp> {
  const tunerType = options.tunerType ?? 5;
  const gainCount = options.gainCount ?? TUNER_GAIN_COUNT[tunerType] ?? 0;
  const paced = options.paced ?? true;
  const chunkMs = options.chunkMs ?? 10;
  const amplitude = options.amplitude ?? 0.5;
  const noiseRms = options.noise ?? 0.01;
  let center = options.centerFrequency ?? 100e6;
  let rate = options.sampleRate ?? 2_048_000;
  let carrierAsked = options.carrier ?? center + rate / 8;
  let carrier = carrierAsked;
  let cycle = Buffer.alloc(0);
  let stalled = false;
  let dropBytes = options.dropAfter;
  let dropEvery = options.dropEvery ?? false;
  let bytesSent = 0;
  let accepted = 0;
  const commands: FakeCommand[] = [];
  const conns = new Set<Conn>();
  const waiters: Array<{ n: number; resolve: () => void }> = [];

  const greeting = options.greeting ? Buffer.from(options.greeting) : Buffer.alloc(12);
  if (!options.greeting) {
    greeting.write('RTL0', 0, 'latin1');
    greeting.writeUInt32BE(tunerType, 4);
    greeting.writeUInt32BE(gainCount, 8);
  }

  // The cycle: carrier rounded to k·rate/N so N frames hold k whole periods; noise from a fixed seed.
  const rebuild = (): void => {
    const n = CYCLE_FRAMES;
    const k = Math.round(((carrierAsked - center) * n) / rate);
    const inBand = Math.abs(k) < n / 2;
    carrier = center + (k * rate) / n;
    const buf = Buffer.allocUnsafe(2 * n);
    let seed = 12345;
    const uniform = (): number => {
      seed = (seed + 0x6d2b79f5) >>> 0;
      let t = seed;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return (((t ^ (t >>> 14)) >>> 0) + 1) / 4294967297;
    };
    for (let i = 0; i < n; i++) {
      const p = (2 * Math.PI * ((k * i) % n)) / n;
      const r = noiseRms * Math.sqrt(-2 * Math.log(uniform()));
      const q = 2 * Math.PI * uniform();
      const a = inBand ? amplitude : 0;
      const re = a * Math.cos(p) + r * Math.cos(q);
      const im = a * Math.sin(p) + r * Math.sin(q);
      buf[2 * i] = Math.max(0, Math.min(255, Math.round(127.5 + 127.5 * re)));
      buf[2 * i + 1] = Math.max(0, Math.min(255, Math.round(127.5 + 127.5 * im)));
    }
    // A new buffer each time: chunks of the old one may still sit in socket queues.
    cycle = buf;
    for (const c of conns) c.pos = 0;
  };
  rebuild();

  const restartPacing = (): void => {
    const now = performance.now();
    for (const c of conns) {
      c.t0 = now;
      c.paced0 = 0;
    }
  };

  const kill = (c: Conn, mode: 'close' | 'reset'): void => {
    if (c.dead) return;
    c.dead = true;
    clearInterval(c.timer);
    if (mode === 'reset') c.socket.resetAndDestroy();
    else c.socket.end();
  };

  /** Writes up to `want` sample bytes from the cycle; returns false when the socket wants a drain. */
  const send = (c: Conn, want: number): boolean => {
    let ok = true;
    while (want > 0 && !c.dead) {
      let n = Math.min(want, cycle.length - c.pos, options.chunkBytes ?? 1 << 18);
      if (dropBytes !== undefined) n = Math.min(n, Math.max(0, dropBytes - c.sent));
      if (n > 0) {
        ok = c.socket.write(cycle.subarray(c.pos, c.pos + n));
        c.pos = (c.pos + n) % cycle.length;
        c.sent += n;
        bytesSent += n;
        want -= n;
      }
      if (dropBytes !== undefined && c.sent >= dropBytes) {
        if (!dropEvery) dropBytes = undefined;
        kill(c, options.dropMode ?? 'close');
        return false;
      }
      if (!ok || options.chunkBytes !== undefined) break;
    }
    return ok;
  };

  // Unpaced (or chunked) writing: as fast as the socket drains, one chunk per macrotask with chunkBytes.
  const pump = (c: Conn): void => {
    if (c.writing || c.dead || stalled) return;
    c.writing = true;
    const step = (): void => {
      c.writing = false;
      if (c.dead || stalled) return;
      const ok = send(c, options.chunkBytes ?? 1 << 18);
      if (c.dead) return;
      c.writing = true;
      if (ok) setImmediate(step);
      else c.socket.once('drain', step);
    };
    step();
  };

  // Paced: every chunkMs, the bytes due since t0 at the current rate; a full socket queue (a client that
  // does not read) loses them as a real rtl_tcp does when its buffers run over.
  const tick = (c: Conn): void => {
    if (c.dead || stalled) return;
    const due = 2 * Math.floor(((performance.now() - c.t0) / 1000) * rate);
    // At most 50 ms at once: after a pause (a busy event loop) the rest is lost, as a dongle overruns.
    const want = Math.min(due - c.paced0, 2 * Math.round(rate * 0.05));
    if (want <= 0) return;
    c.paced0 = due;
    if (c.socket.writableLength > 8 << 20) return;
    if (options.chunkBytes === undefined) {
      send(c, want);
      return;
    }
    // In odd-sized pieces, each in its own macrotask so they leave as separate TCP segments.
    let left = want;
    const piece = (): void => {
      if (left <= 0 || c.dead) return;
      const n = Math.min(left, options.chunkBytes!);
      left -= n;
      send(c, n);
      setImmediate(piece);
    };
    piece();
  };

  const onCommand = (cmd: number, value: number): void => {
    commands.push({ cmd, value, signed: value | 0 });
    // A command that changes nothing leaves the stream as it was (the cycle continues).
    if (cmd === 0x01 && value !== center) {
      center = value;
      rebuild();
    } else if (cmd === 0x02 && value > 0 && value !== rate) {
      rate = value;
      rebuild();
      restartPacing();
    }
    for (let i = waiters.length - 1; i >= 0; i--) {
      if (commands.length >= waiters[i].n) {
        waiters[i].resolve();
        waiters.splice(i, 1);
      }
    }
  };

  const server: Server = createServer((socket) => {
    accepted++;
    socket.setNoDelay(true);
    const c: Conn = {
      socket,
      sent: 0,
      pos: 0,
      t0: performance.now(),
      paced0: 0,
      timer: undefined,
      writing: false,
      dead: false,
    };
    conns.add(c);
    let pending: Buffer = Buffer.alloc(0);
    socket.on('data', (d: Buffer) => {
      pending = pending.length > 0 ? Buffer.concat([pending, d]) : d;
      let i = 0;
      for (; i + 5 <= pending.length; i += 5) onCommand(pending[i], pending.readUInt32BE(i + 1));
      pending = pending.subarray(i);
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      c.dead = true;
      clearInterval(c.timer);
      conns.delete(c);
    });
    if (greeting.length > 0) socket.write(greeting);
    if (options.greeting) return; // not rtl_tcp: no samples
    if (paced) c.timer = setInterval(() => tick(c), chunkMs);
    else pump(c);
  });
  server.on('error', () => {});

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;

  return {
    host: '127.0.0.1',
    port,
    commands,
    get bytesSent() {
      return bytesSent;
    },
    get connections() {
      return accepted;
    },
    get open() {
      return conns.size;
    },
    get centerFrequency() {
      return center;
    },
    get sampleRate() {
      return rate;
    },
    get carrier() {
      return carrier;
    },
    cycle: () => cycle,
    setCarrier(hz) {
      carrierAsked = hz;
      rebuild();
    },
    stall(on) {
      stalled = on;
      if (on) return;
      restartPacing();
      if (!paced) for (const c of conns) pump(c);
    },
    dropAfter(bytes, every = false) {
      dropBytes = bytes;
      dropEvery = every;
    },
    dropAll() {
      for (const c of conns) kill(c, options.dropMode ?? 'close');
    },
    waitForCommands(n, ms = 5000) {
      if (commands.length >= n) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const w = { n, resolve: () => (clearTimeout(t), resolve()) };
        const t = setTimeout(() => {
          waiters.splice(waiters.indexOf(w), 1);
          reject(new Error(`fake rtl_tcp: ${commands.length} of ${n} commands after ${ms} ms`));
        }, ms);
        waiters.push(w);
      });
    },
    close() {
      for (const c of conns) {
        c.dead = true;
        clearInterval(c.timer);
        c.socket.destroy();
      }
      conns.clear();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// As a script: serve until killed, printing the port on the first line.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const arg = (name: string): string | undefined => {
    const i = process.argv.indexOf(name);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const fake = await startFakeRtlTcp({
    port: Number(arg('--port') ?? 0),
    sampleRate: Number(arg('--rate') ?? 2_048_000),
    paced: !process.argv.includes('--unpaced'),
  });
  process.stdout.write(`${fake.port}\n`);
  const stop = (): void => void fake.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
