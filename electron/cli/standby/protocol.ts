// The frames between a `phasor` client and a standby process on their Unix socket: one byte of kind, the
// payload's length (uint32, little-endian), the payload (JSON or raw bytes).

import type { Socket } from 'node:net';

export const Frame = {
  /** client → standby: run this job (JSON JobRequest) */
  job: 0x4a,
  /** client → standby: the user pressed Ctrl-C or the client got SIGTERM (text: the signal's name) */
  signal: 0x53,
  /** client → standby: who are you (answered by `hello`, the standby keeps waiting) */
  ping: 0x50,
  /** client → standby: stop waiting and exit (text, optional: why, for its log) */
  stop: 0x51,
  /** standby → client: the job is taken (from here an ended connection is a failed job, not a free standby) */
  accept: 0x41,
  /** standby → client: bytes for the client's stdout */
  stdout: 0x4f,
  /** standby → client: bytes for the client's stderr */
  stderr: 0x45,
  /** standby → client: the job ended, its outputs closed and in place (JSON { code }) */
  exit: 0x58,
  /** standby → client: not this job, run it yourself (JSON { reason, warn }: whether to tell the user; an
   * automatic standby of another environment does not, the job replaces it: auto.ts) */
  refuse: 0x4e,
  /** standby → client: JSON StandbyInfo */
  hello: 0x48,
} as const;

/** What a client sends with a job: what its own process would have run with. */
export interface JobRequest {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  umask: number;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  columns?: number;
}

/** What a waiting standby says about itself. */
export interface StandbyInfo {
  pid: number;
  /** When it became ready (ms since the epoch). */
  readySince: number;
  /** When it exits if no job comes (ms since the epoch; 0 while it runs a job). */
  idleUntil: number;
  /** The backend it opened ahead of a job (`auto`'s choice), with its device, or why none. */
  backend: string;
  /** Started by a job (PHASOR_STANDBY=auto, after a job on CUDA), not by `phasor standby start`. */
  auto: boolean;
  /** environmentDigest of the environment it takes jobs from. */
  env: string;
  /** Jobs it has run. */
  jobs: number;
  /** Its resident memory now. */
  rssMiB: number;
}

/** The longest payload a frame may carry (a job's command line and environment, or a piece of output). */
const MAX_PAYLOAD = 16 * 1024 * 1024;

export function writeFrame(socket: Socket, kind: number, payload: string | Uint8Array = ''): boolean {
  const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  const head = Buffer.allocUnsafe(5);
  head[0] = kind;
  head.writeUInt32LE(body.length, 1);
  return socket.write(body.length ? Buffer.concat([head, body]) : head);
}

/** Splits a byte stream into frames; a frame over the limit is an error (the peer is not a phasor). */
class FrameReader {
  private buffered: Buffer = Buffer.alloc(0);

  constructor(private readonly onFrame: (kind: number, payload: Buffer) => void) {}

  push(chunk: Buffer): void {
    this.buffered = this.buffered.length ? Buffer.concat([this.buffered, chunk]) : chunk;
    while (this.buffered.length >= 5) {
      const length = this.buffered.readUInt32LE(1);
      if (length > MAX_PAYLOAD) throw new Error(`a frame of ${length} bytes is over the limit`);
      if (this.buffered.length < 5 + length) return;
      const kind = this.buffered[0];
      const payload = this.buffered.subarray(5, 5 + length);
      this.buffered = this.buffered.subarray(5 + length);
      this.onFrame(kind, payload);
    }
  }
}

/** Reads the socket's frames into onFrame; a stream that is not frames ends the connection. */
export function readFrames(socket: Socket, onFrame: (kind: number, payload: Buffer) => void): void {
  const reader = new FrameReader(onFrame);
  socket.on('data', (chunk: Buffer) => {
    try {
      reader.push(chunk);
    } catch {
      socket.destroy();
    }
  });
  socket.on('error', () => {});
}
