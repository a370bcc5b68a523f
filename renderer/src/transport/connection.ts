// One connection to the engine over either transport: the desktop bridge (window.phasor) or a WebSocket
// (web mode). Typed requests with replies matched by id, events by name, binary rows decoded, and acks
// sent back per rows message (the engine stops sending, and counts drops, when acks stop).

import type {
  ClientMessage,
  EventMap,
  Method,
  MethodParams,
  MethodResults,
  ServerMessage,
} from '../../../electron/engine/protocol/messages.js';
import { decodeRows, type RowsMessage } from '../../../electron/engine/protocol/rows-codec.js';

export type ConnectionState = 'connecting' | 'open' | 'reconnecting' | 'closed';

/** What a transport carries: protocol messages out, replies/events/rows in, and its state. */
export interface Transport {
  send(message: ClientMessage): void;
  onMessage(listener: (message: ServerMessage | ArrayBuffer) => void): () => void;
  /** State changes; a transport without one (the bridge) is always open. */
  onState?(listener: (state: ConnectionState, detail?: string) => void): () => void;
  readonly state?: ConnectionState;
  close?(): void;
}

/** A failed request: the engine's error code and its message (which the UI shows as is). */
export class RequestError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'RequestError';
  }
}

export interface Connection {
  readonly state: ConnectionState;
  request<M extends Method>(method: M, params: MethodParams[M]): Promise<MethodResults[M]>;
  on<E extends keyof EventMap>(event: E, listener: (data: EventMap[E]) => void): () => void;
  onRows(listener: (rows: RowsMessage) => void): () => void;
  /** Acknowledges one rows message once it has been consumed (drawn or discarded). */
  ack(session: number, seq: number): void;
  onState(listener: (state: ConnectionState, detail?: string) => void): () => void;
  close(): void;
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer: ReturnType<typeof setTimeout>;
}

export interface ConnectionOptions {
  /** A request without a reply after this long fails (ms). */
  timeoutMs?: number;
  /** Called for messages that cannot be decoded (they are dropped). */
  onProtocolError?: (message: string) => void;
}

export class PhasorConnection implements Connection {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly eventListeners = new Map<string, Set<(data: never) => void>>();
  private readonly rowListeners = new Set<(rows: RowsMessage) => void>();
  private readonly stateListeners = new Set<(state: ConnectionState, detail?: string) => void>();
  private readonly stopMessages: () => void;
  private readonly stopState: (() => void) | undefined;
  private current: ConnectionState;
  private readonly timeoutMs: number;

  constructor(
    private readonly transport: Transport,
    private readonly options: ConnectionOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.current = transport.state ?? 'open';
    this.stopMessages = transport.onMessage((m) => this.receive(m));
    this.stopState = transport.onState?.((state, detail) => this.setState(state, detail));
  }

  get state(): ConnectionState {
    return this.current;
  }

  request<M extends Method>(method: M, params: MethodParams[M]): Promise<MethodResults[M]> {
    if (this.current !== 'open') {
      return Promise.reject(new RequestError('disconnected', 'not connected to the engine'));
    }
    const id = this.nextId++;
    return new Promise<MethodResults[M]>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new RequestError('timeout', `the engine did not answer "${method}" in time`));
      }, this.timeoutMs);
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
      try {
        this.transport.send({ type: 'request', id, method, params });
      } catch (e) {
        clearTimeout(timer);
        this.pending.delete(id);
        reject(new RequestError('disconnected', e instanceof Error ? e.message : String(e)));
      }
    });
  }

  on<E extends keyof EventMap>(event: E, listener: (data: EventMap[E]) => void): () => void {
    let set = this.eventListeners.get(event);
    if (!set) this.eventListeners.set(event, (set = new Set()));
    set.add(listener as (data: never) => void);
    return () => set.delete(listener as (data: never) => void);
  }

  onRows(listener: (rows: RowsMessage) => void): () => void {
    this.rowListeners.add(listener);
    return () => this.rowListeners.delete(listener);
  }

  ack(session: number, seq: number): void {
    if (this.current !== 'open') return;
    try {
      this.transport.send({ type: 'ack', session, seq });
    } catch {
      // The transport is going down; the engine forgets the session's acks with it.
    }
  }

  onState(listener: (state: ConnectionState, detail?: string) => void): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }

  close(): void {
    this.stopMessages();
    this.stopState?.();
    this.transport.close?.();
    this.setState('closed');
  }

  private setState(state: ConnectionState, detail?: string): void {
    if (state !== 'open') this.failPending(detail ?? 'connection to the engine lost');
    this.current = state;
    for (const l of this.stateListeners) l(state, detail);
  }

  private failPending(why: string): void {
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(new RequestError('disconnected', why));
      this.pending.delete(id);
    }
  }

  private receive(message: ServerMessage | ArrayBuffer): void {
    if (message instanceof ArrayBuffer) {
      let rows: RowsMessage;
      try {
        rows = decodeRows(message);
      } catch (e) {
        this.options.onProtocolError?.(e instanceof Error ? e.message : String(e));
        return;
      }
      for (const l of this.rowListeners) l(rows);
      return;
    }
    if (message.type === 'reply') {
      const p = this.pending.get(message.id);
      if (!p) return;
      this.pending.delete(message.id);
      clearTimeout(p.timer);
      if (message.ok) p.resolve(message.result);
      else p.reject(new RequestError(message.error.code, message.error.message));
      return;
    }
    if (message.type === 'event') {
      const set = this.eventListeners.get(message.event);
      if (set) for (const l of set) (l as (d: unknown) => void)(message.data);
      return;
    }
    this.options.onProtocolError?.('unknown message from the engine');
  }
}
