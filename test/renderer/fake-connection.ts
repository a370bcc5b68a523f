// A fake Connection for store and component tests: records requests and acks, answers with handlers the
// test sets, and lets the test push events and rows as the engine would.
import type {
  EventMap,
  HelloResult,
  LiveInfo,
  Method,
  MethodParams,
  MethodResults,
} from '../../electron/engine/protocol/messages.js';
import type { RowsMessage } from '../../electron/engine/protocol/rows-codec.js';
import type { Connection, ConnectionState, RequestOptions } from '../../renderer/src/transport/connection.js';
import { RequestError } from '../../renderer/src/transport/connection.js';

type Handler<M extends Method> = (
  params: MethodParams[M],
  options: RequestOptions,
) => MethodResults[M] | Promise<MethodResults[M]>;

export const GENERATOR_KIND = {
  kind: 'generator',
  label: 'Generator',
  fields: [
    {
      name: 'signal',
      label: 'Signal',
      type: 'select' as const,
      default: 'tone',
      options: [
        { value: 'tone', label: 'Tone' },
        { value: 'chirp', label: 'Chirp' },
      ],
    },
    {
      name: 'frequency',
      label: 'Frequency',
      type: 'number' as const,
      default: 1000,
      min: 0,
      max: 24000,
      unit: 'Hz',
    },
    {
      name: 'sampleRate',
      label: 'Sample rate',
      type: 'select' as const,
      default: 48000,
      options: [
        { value: 44100, label: '44.1 kHz' },
        { value: 48000, label: '48 kHz' },
      ],
    },
  ],
};

export const MIC_KIND = {
  kind: 'mic',
  label: 'Microphone',
  fields: [
    { name: 'device', label: 'Device', type: 'device' as const },
    {
      name: 'sampleRate',
      label: 'Sample rate',
      type: 'number' as const,
      default: 48000,
      min: 8000,
      max: 192000,
    },
  ],
};

export function helloResult(extra: Partial<HelloResult> = {}): HelloResult {
  return {
    version: 1,
    backend: { name: 'cpu', device: 'test CPU' },
    backends: [
      { name: 'cpu', available: true },
      { name: 'cuda', available: false, reason: 'no NVIDIA GPU' },
    ],
    sources: [GENERATOR_KIND, MIC_KIND],
    windows: ['hann', 'hamming', 'blackman', 'kaiser'],
    defaults: {
      analysis: { fft: 2048, overlap: 0.75, window: 'hann', averaging: 0.1, columns: 2048 },
      source: { kind: 'generator', signal: 'tone', frequency: 1500 },
    },
    ...extra,
  };
}

export function liveInfo(extra: Partial<LiveInfo> = {}): LiveInfo {
  return {
    session: 1,
    sampleRate: 48000,
    complex: false,
    fft: 2048,
    hop: 512,
    enbw: 1.5,
    bins: 1025,
    width: 1025,
    frequencyRange: [0, 24000],
    rowRate: 93.75,
    source: 'generator tone',
    ...extra,
  };
}

export class FakeConnection implements Connection {
  state: ConnectionState = 'open';
  readonly requests: Array<{ method: Method; params: unknown; options?: RequestOptions }> = [];
  readonly acks: Array<{ session: number; seq: number }> = [];
  private readonly handlers: Partial<{ [M in Method]: Handler<M> }> = {};
  private readonly events = new Map<string, Set<(d: never) => void>>();
  private readonly rows = new Set<(r: RowsMessage) => void>();
  private readonly states = new Set<(s: ConnectionState, d?: string) => void>();
  info: LiveInfo = liveInfo();

  constructor() {
    this.handle('hello', () => helloResult());
    this.handle('start', () => this.info);
    this.handle('configure', (p) => {
      this.info = { ...this.info, ...(p.analysis.fft !== undefined ? { fft: p.analysis.fft } : {}) };
      return this.info;
    });
    this.handle('stop', () => ({}));
    this.handle('resetPeak', () => ({}));
    this.handle('listDevices', () => ({ devices: [] }));
  }

  handle<M extends Method>(method: M, fn: Handler<M>): void {
    (this.handlers as Record<string, unknown>)[method] = fn;
  }

  async request<M extends Method>(
    method: M,
    params: MethodParams[M],
    given?: RequestOptions,
  ): Promise<MethodResults[M]> {
    const options = given ?? {};
    this.requests.push(given ? { method, params, options: given } : { method, params });
    const h = this.handlers[method] as Handler<M> | undefined;
    if (!h) throw new RequestError('bad-request', `no handler for ${method}`);
    if (options.signal?.aborted) throw new RequestError('cancelled', 'cancelled');
    return h(params, options);
  }

  on<E extends keyof EventMap>(event: E, listener: (data: EventMap[E]) => void): () => void {
    let set = this.events.get(event);
    if (!set) this.events.set(event, (set = new Set()));
    set.add(listener as (d: never) => void);
    return () => set.delete(listener as (d: never) => void);
  }

  onRows(listener: (rows: RowsMessage) => void): () => void {
    this.rows.add(listener);
    return () => this.rows.delete(listener);
  }

  ack(session: number, seq: number): void {
    this.acks.push({ session, seq });
  }

  onState(listener: (s: ConnectionState, d?: string) => void): () => void {
    this.states.add(listener);
    return () => this.states.delete(listener);
  }

  close(): void {
    this.setState('closed');
  }

  // Test side -------------------------------------------------------------------------------------

  emit<E extends keyof EventMap>(event: E, data: EventMap[E]): void {
    for (const l of this.events.get(event) ?? []) (l as (d: unknown) => void)(data);
  }

  pushRows(m: RowsMessage): void {
    for (const l of this.rows) l(m);
  }

  setState(s: ConnectionState, detail?: string): void {
    this.state = s;
    for (const l of this.states) l(s, detail);
  }

  count(method: Method): number {
    return this.requests.filter((r) => r.method === method).length;
  }

  methods(): Method[] {
    return this.requests.map((r) => r.method);
  }

  last<M extends Method>(method: M): MethodParams[M] | undefined {
    for (let i = this.requests.length - 1; i >= 0; i--) {
      if (this.requests[i].method === method) return this.requests[i].params as MethodParams[M];
    }
    return undefined;
  }
}

/** A rows message with `count` rows of `width` levels (row r, column c = base − c/10 − r). */
export function rowsMessage(
  session: number,
  seq: number,
  count: number,
  width: number,
  extra: Partial<RowsMessage> = {},
): RowsMessage {
  const rows = new Float32Array(count * width);
  for (let r = 0; r < count; r++) for (let c = 0; c < width; c++) rows[r * width + c] = -20 - c / 10 - r;
  const average = new Float32Array(width).map((_, c) => -30 - c / 20);
  const peak = new Float32Array(width).map((_, c) => -10 - c / 30);
  return {
    session,
    seq,
    firstFrame: seq * count,
    count,
    width,
    captureTime: Date.now(),
    streamTime: (seq * count * 512) / 48000,
    rows,
    average,
    peak,
    ...extra,
  };
}

/** Lets pending promise callbacks run. */
export async function settle(times = 5): Promise<void> {
  for (let i = 0; i < times; i++) await Promise.resolve();
  await new Promise((r) => setTimeout(r, 0));
}
