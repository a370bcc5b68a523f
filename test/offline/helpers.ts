// Shared pieces of the offline tests: a protocol client over createEngineConnection (JSON and binary
// replies, progress events, rows), a backend whose chosen processors wait on a gate (so a test holds a job
// in the middle of its work without timing), and generated recordings.
import { writeFileSync } from 'node:fs';
import type {
  Backend,
  FirConfig,
  FirFilter,
  SpectrogramConfig,
  SpectrogramProcessor,
} from '../../electron/engine/backends/backend.js';
import { createEngineConnection, type EngineConnection } from '../../electron/engine/live/connection.js';
import type { Engine } from '../../electron/engine/live/engine.js';
import type {
  EventMessage,
  ProgressEvent,
  ReplyMessage,
  ServerMessage,
} from '../../electron/engine/protocol/messages.js';
import { decodeBinary, type RowsMessage } from '../../electron/engine/protocol/rows-codec.js';
import { until } from '../live/helpers.js';

export type AnyReply =
  | ReplyMessage
  | { type: 'reply'; id: number; ok: true; result: Record<string, unknown> & { data: Float32Array } };

export class Client {
  readonly out: Array<ServerMessage | ArrayBuffer> = [];
  readonly conn: EngineConnection;
  readonly replies = new Map<number, AnyReply>();
  readonly progress: ProgressEvent[] = [];
  readonly rows: RowsMessage[] = [];
  #next = 1000;
  /** Called with each progress event as it is sent (inside the engine's call). */
  onProgress: ((p: ProgressEvent) => void) | null = null;

  constructor(engine: Engine) {
    this.conn = createEngineConnection((m) => this.#take(m), { engine });
  }

  #take(m: ServerMessage | ArrayBuffer): void {
    this.out.push(m);
    if (m instanceof ArrayBuffer) {
      const b = decodeBinary(m);
      if (b.kind === 'rows') {
        this.rows.push(b.rows);
        this.conn.receive({ type: 'ack', session: b.rows.session, seq: b.rows.seq });
      } else this.replies.set(b.id, { type: 'reply', id: b.id, ok: true, result: b.result });
      return;
    }
    if (m.type === 'reply') this.replies.set(m.id, m);
    else if (m.type === 'event' && m.event === 'progress') {
      this.progress.push(m.data);
      this.onProgress?.(m.data);
    }
  }

  events(): EventMessage[] {
    return this.out.filter((m): m is EventMessage => !(m instanceof ArrayBuffer) && m.type === 'event');
  }

  progressOf(id: number): ProgressEvent[] {
    return this.progress.filter((p) => p.request === id);
  }

  /** Sends a request; returns its id. */
  send(method: string, params: unknown, id = this.#next++): number {
    this.conn.receive(JSON.stringify({ type: 'request', id, method, params }));
    return id;
  }

  async reply(id: number, ms = 30000): Promise<AnyReply> {
    await until(() => this.replies.has(id), ms, `reply ${id}`);
    return this.replies.get(id)!;
  }

  async request(method: string, params: unknown): Promise<AnyReply> {
    return this.reply(this.send(method, params));
  }

  /** The result of a request that must succeed. */
  async ok<T = Record<string, unknown>>(method: string, params: unknown): Promise<T> {
    const r = await this.request(method, params);
    if (!r.ok) throw new Error(`${method} failed: ${r.error.code}: ${r.error.message}`);
    return r.result as T;
  }

  /** The error of a request that must fail. */
  async error(method: string, params: unknown): Promise<{ code: string; message: string }> {
    const r = await this.request(method, params);
    if (r.ok) throw new Error(`${method} succeeded but should have failed`);
    return r.error;
  }
}

/** A gate a processor call waits on until the test opens it. */
export class Gate {
  #open = false;
  #waiters: Array<() => void> = [];
  /** Calls that reached the gate. */
  reached = 0;
  open(): void {
    this.#open = true;
    for (const w of this.#waiters.splice(0)) w();
  }
  async pass(): Promise<void> {
    this.reached++;
    if (this.#open) return;
    await new Promise<void>((r) => this.#waiters.push(r));
  }
}

/**
 * A backend that forwards to `inner`, except that spectrogram processors of frame length `gatedFft` and FIR
 * filters wait on their gate before each push (when a gate is set).
 */
export function gatedBackend(
  inner: Backend,
  gates: { spectrogramFft?: number; spectrogram?: Gate; fir?: Gate },
): Backend {
  return {
    name: inner.name,
    device: inner.device,
    details: inner.details,
    upload: (d) => inner.upload(d),
    fft: (x, n, o) => inner.fft(x, n, o),
    rfft: (x, n, o) => inner.rfft(x, n, o),
    irfft: (x, n, o) => inner.irfft(x, n, o),
    createCorrelator: (c) => inner.createCorrelator(c),
    dispose: async () => undefined,
    createSpectrogram(config: SpectrogramConfig): SpectrogramProcessor {
      const p = inner.createSpectrogram(config);
      const gate = config.fft === gates.spectrogramFft ? gates.spectrogram : undefined;
      if (!gate) return p;
      return {
        get bins() {
          return p.bins;
        },
        get width() {
          return p.width;
        },
        push: async (s) => {
          await gate.pass();
          return p.push(s);
        },
        reset: () => p.reset(),
        dispose: () => p.dispose(),
      };
    },
    createFir(config: FirConfig): FirFilter {
      const f = inner.createFir(config);
      const gate = gates.fir;
      if (!gate) return f;
      return {
        get numtaps() {
          return f.numtaps;
        },
        get method() {
          return f.method;
        },
        get pending() {
          return f.pending;
        },
        process: async (x) => {
          await gate.pass();
          return f.process(x);
        },
        flush: () => f.flush(),
        reset: () => f.reset(),
        dispose: () => f.dispose(),
      };
    },
  };
}

/** Writes interleaved complex float32 samples (raw .cf32). */
export function writeCf32(path: string, iq: Float64Array): void {
  writeFileSync(path, Buffer.from(Float32Array.from(iq).buffer));
}

/** Peak amplitude of a real tone at `frequency` in float64 samples (a projection over the whole record,
 * with a Hann window so neighbouring tones leak less than 1e-4). */
export function toneAmplitude(x: ArrayLike<number>, fs: number, frequency: number): number {
  const n = x.length;
  let re = 0;
  let im = 0;
  let wsum = 0;
  for (let i = 0; i < n; i++) {
    const w = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (n - 1));
    const p = (2 * Math.PI * frequency * i) / fs;
    re += w * x[i] * Math.cos(p);
    im -= w * x[i] * Math.sin(p);
    wsum += w;
  }
  return (2 * Math.hypot(re, im)) / wsum;
}
