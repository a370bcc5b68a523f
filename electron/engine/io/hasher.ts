// SHA-512 of a stream computed on a helper thread, so a writer's checksum (SigMF core:sha512) overlaps the
// compute and the writes instead of holding the engine's thread (OpenSSL's SHA-512 runs at about
// 0.5–1 GB/s, which is slower than a GPU filter). One thread per process serves every stream; small
// streams never start it: their bytes are hashed in place until they pass INLINE_BYTES.

import { createHash, type Hash } from 'node:crypto';
import { Worker } from 'node:worker_threads';

/** Streams up to this many bytes are hashed on the calling thread. */
const INLINE_BYTES = 8 << 20;
/** Chunks in flight per stream before update() waits (bounds the copies held). */
const MAX_QUEUED = 4;

// Plain CommonJS evaluated in the worker, so it needs no file beside the compiled engine.
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const streams = new Map();
parentPort.on('message', (m) => {
  if (m.type === 'start') {
    const h = createHash('sha512');
    h.update(new Uint8Array(m.head));
    streams.set(m.id, h);
  } else if (m.type === 'update') {
    streams.get(m.id).update(new Uint8Array(m.chunk));
    parentPort.postMessage({ id: m.id, type: 'done', chunk: m.chunk }, [m.chunk]);
  } else if (m.type === 'digest') {
    const h = streams.get(m.id);
    streams.delete(m.id);
    parentPort.postMessage({ id: m.id, type: 'digest', hex: h.digest('hex') });
  } else if (m.type === 'drop') streams.delete(m.id);
});
`;

interface Reply {
  id: number;
  type: 'done' | 'digest';
  chunk?: ArrayBuffer;
  hex?: string;
}

let worker: Worker | undefined;
let nextId = 1;
/** Streams on the thread; while any is, the thread keeps the process alive (a digest is awaited). */
const listeners = new Map<number, (r: Reply) => void>();

function track(id: number, listener: ((r: Reply) => void) | undefined): void {
  if (listener === undefined) listeners.delete(id);
  else listeners.set(id, listener);
  if (listeners.size > 0) worker?.ref();
  else worker?.unref();
}

function hashWorker(): Worker {
  if (worker !== undefined) return worker;
  const w = new Worker(WORKER_SOURCE, { eval: true });
  w.on('message', (r: Reply) => listeners.get(r.id)?.(r));
  w.on('error', (err) => fail(err));
  w.on('exit', (code) => fail(new Error(`the hashing thread exited with code ${code}`)));
  w.unref();
  worker = w;
  return w;
}

function fail(err: Error): void {
  worker = undefined;
  for (const [id, l] of listeners) l({ id, type: 'digest', hex: `error:${err.message}` });
  listeners.clear();
}

/** A SHA-512 whose update() may wait (back-pressure) and whose digest comes asynchronously. */
export class StreamHash {
  /** Copies of the bytes while the stream is small (hashed in place by digest()). */
  #head: Uint8Array[] | undefined = [];
  #headBytes = 0;
  #id = 0;
  #queued = 0;
  #failed: string | undefined;
  #spare: ArrayBuffer[] = [];
  #wake: (() => void) | undefined;
  #digest: ((hex: string) => void) | undefined;

  /** Adds bytes; the caller may reuse `bytes` as soon as the returned promise settles. */
  async update(bytes: Uint8Array): Promise<void> {
    if (this.#head !== undefined) {
      this.#head.push(bytes.slice());
      this.#headBytes += bytes.length;
      if (this.#headBytes > INLINE_BYTES) this.#start();
      return;
    }
    while (this.#queued >= MAX_QUEUED && this.#failed === undefined) {
      await new Promise<void>((r) => (this.#wake = r));
    }
    if (this.#failed !== undefined) return;
    let chunk = this.#spare.pop();
    if (chunk === undefined || chunk.byteLength !== bytes.length) chunk = new ArrayBuffer(bytes.length);
    new Uint8Array(chunk).set(bytes);
    this.#queued++;
    hashWorker().postMessage({ type: 'update', id: this.#id, chunk }, [chunk]);
  }

  /** The hex digest of everything added. */
  async digest(): Promise<string> {
    if (this.#head !== undefined) {
      const h: Hash = createHash('sha512');
      for (const b of this.#head) h.update(b);
      this.#head = [];
      return h.digest('hex');
    }
    const hex =
      this.#failed !== undefined
        ? `error:${this.#failed}`
        : await new Promise<string>((resolve) => {
            this.#digest = resolve;
            hashWorker().postMessage({ type: 'digest', id: this.#id });
          });
    track(this.#id, undefined);
    if (hex.startsWith('error:')) throw new Error(`computing the checksum failed: ${hex.slice(6)}`);
    return hex;
  }

  /** Forgets the stream (after a failure). */
  dispose(): void {
    if (this.#head !== undefined) {
      this.#head = [];
      return;
    }
    if (!listeners.has(this.#id)) return;
    track(this.#id, undefined);
    worker?.postMessage({ type: 'drop', id: this.#id });
  }

  /** Hands the stream to the hashing thread, its head first. */
  #start(): void {
    const head = this.#head ?? [];
    this.#head = undefined;
    this.#id = nextId++;
    const w = hashWorker();
    track(this.#id, (r) => this.#reply(r));
    const all = new Uint8Array(this.#headBytes);
    let at = 0;
    for (const b of head) {
      all.set(b, at);
      at += b.length;
    }
    w.postMessage({ type: 'start', id: this.#id, head: all.buffer }, [all.buffer]);
  }

  #reply(r: Reply): void {
    if (r.type === 'done') {
      this.#queued--;
      if (this.#spare.length < MAX_QUEUED && r.chunk !== undefined) this.#spare.push(r.chunk);
    } else if (r.hex?.startsWith('error:') && this.#digest === undefined) this.#failed = r.hex.slice(6);
    else this.#digest?.(r.hex ?? 'error:no digest');
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}
