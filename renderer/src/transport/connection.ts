// One connection to the engine over either transport: the desktop bridge (window.phasor) or a WebSocket
// (web mode). Typed requests with replies matched by id (JSON replies, and binary replies whose float32
// payload arrives as `result.data`), progress events routed to the request that started them, cancel by
// AbortSignal, events by name, binary rows decoded, and acks sent back per rows message (the engine stops
// sending, and counts drops, when acks stop).

import type {
  ClientMessage,
  EventMap,
  Method,
  MethodParams,
  MethodResults,
  ProgressEvent,
  ServerMessage,
} from '../../../electron/engine/protocol/messages.js';
import {
  decodeBinary,
  type BinaryMessage,
  type RowsMessage,
} from '../../../electron/engine/protocol/rows-codec.js';

export type ConnectionState = 'connecting' | 'open' | 'reconnecting' | 'closed';

/** What a transport carries: protocol messages out, replies/events/rows in, and its state. */
export interface Transport {
  send(message: ClientMessage): void;
  onMessage(listener: (message: ServerMessage | ArrayBuffer) => void): () => void;
  /**
   * State changes; a transport without one is always open. The desktop bridge has one: 'reconnecting'
   * while its engine process restarts ('closed' when it gave up), 'open' once a new port arrives.
   */
  onState?(listener: (state: ConnectionState, detail?: string) => void): () => void;
  readonly state?: ConnectionState;
  close?(): void;
  /** Sends a binary message (the page's own audio blocks); only a transport that carries them has it. */
  sendBinary?(data: ArrayBuffer): void;
  /** Bytes handed to the transport that have not gone out yet (WebSocket.bufferedAmount). */
  readonly bufferedAmount?: number;
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

/** Long requests answer when done and send progress meanwhile (messages.ts, offline work). */
export const LONG_METHODS: ReadonlySet<Method> = new Set<Method>([
  'fileSpectrogram',
  'fileSpectrum',
  'applyFilter',
  'extract',
  'correlate',
  'runBench',
]);

export interface RequestOptions {
  /** Progress events the engine sends for this request. */
  onProgress?: (progress: ProgressEvent) => void;
  /**
   * Aborting sends `cancel` for this request; the request then fails with the engine's 'cancelled' reply
   * (or with code 'cancelled' at once when it was aborted before it was sent).
   */
  signal?: AbortSignal;
  /**
   * How long (ms) the request may go without a reply or a progress event; 0 waits for ever. Default: the
   * connection's timeout, five times it for the long requests.
   */
  timeoutMs?: number;
}

export interface Connection {
  readonly state: ConnectionState;
  request<M extends Method>(
    method: M,
    params: MethodParams[M],
    options?: RequestOptions,
  ): Promise<MethodResults[M]>;
  on<E extends keyof EventMap>(event: E, listener: (data: EventMap[E]) => void): () => void;
  onRows(listener: (rows: RowsMessage) => void): () => void;
  /** Acknowledges one rows message once it has been consumed (drawn or discarded). */
  ack(session: number, seq: number): void;
  onState(listener: (state: ConnectionState, detail?: string) => void): () => void;
  close(): void;
  /** Sends a binary audio block (web mode); throws where the transport carries none (the desktop app). */
  sendBinary?(data: ArrayBuffer): void;
  /** Bytes waiting in the transport to go out (0 where it cannot say). */
  bufferedAmount?(): number;
}

interface Pending {
  method: Method;
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer: ReturnType<typeof setTimeout> | null;
  /** Idle limit (ms; 0 = none), restarted by each progress event. */
  idleMs: number;
  onProgress?: (progress: ProgressEvent) => void;
  /** Stops listening to the abort signal. */
  release?: () => void;
  cancelled: boolean;
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

  request<M extends Method>(
    method: M,
    params: MethodParams[M],
    options: RequestOptions = {},
  ): Promise<MethodResults[M]> {
    if (this.current !== 'open') {
      return Promise.reject(new RequestError('disconnected', 'not connected to the engine'));
    }
    if (options.signal?.aborted) return Promise.reject(cancelledError());
    const id = this.nextId++;
    const idleMs = options.timeoutMs ?? (LONG_METHODS.has(method) ? 5 * this.timeoutMs : this.timeoutMs);
    return new Promise<MethodResults[M]>((resolve, reject) => {
      const p: Pending = {
        method,
        resolve: resolve as (v: unknown) => void,
        reject,
        timer: null,
        idleMs,
        onProgress: options.onProgress,
        cancelled: false,
      };
      this.pending.set(id, p);
      this.arm(id, p);
      const signal = options.signal;
      if (signal) {
        const onAbort = () => this.cancel(id);
        signal.addEventListener('abort', onAbort, { once: true });
        p.release = () => signal.removeEventListener('abort', onAbort);
      }
      try {
        this.transport.send({ type: 'request', id, method, params });
      } catch (e) {
        this.settle(id, p);
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

  sendBinary(data: ArrayBuffer): void {
    if (!this.transport.sendBinary) {
      throw new RequestError('unsupported', 'this connection carries no audio from the page');
    }
    if (this.current !== 'open') throw new RequestError('disconnected', 'not connected to the engine');
    this.transport.sendBinary(data);
  }

  bufferedAmount(): number {
    return this.transport.bufferedAmount ?? 0;
  }

  close(): void {
    this.stopMessages();
    this.stopState?.();
    this.transport.close?.();
    this.setState('closed');
  }

  /** (Re)starts a request's idle timer. */
  private arm(id: number, p: Pending): void {
    if (p.timer) clearTimeout(p.timer);
    p.timer = null;
    if (p.idleMs <= 0) return;
    p.timer = setTimeout(() => {
      if (this.pending.get(id) !== p) return;
      this.settle(id, p);
      p.reject(
        p.cancelled
          ? cancelledError()
          : new RequestError('timeout', `the engine did not answer "${p.method}" in time`),
      );
    }, p.idleMs);
  }

  /** Forgets a pending request (its reply, if one still comes, is dropped). */
  private settle(id: number, p: Pending): void {
    if (p.timer) clearTimeout(p.timer);
    p.timer = null;
    p.release?.();
    this.pending.delete(id);
  }

  /** Asks the engine to stop request `id`; the request ends with the engine's reply ('cancelled'). */
  private cancel(id: number): void {
    const p = this.pending.get(id);
    if (!p || p.cancelled) return;
    p.cancelled = true;
    // The engine answers a cancelled request promptly; without a reply, give up after the usual time.
    p.idleMs = this.timeoutMs;
    this.arm(id, p);
    this.request('cancel', { request: id }).catch(() => {
      // A lost link or an engine that finished first: the request's own reply (or failPending) settles it.
    });
  }

  private setState(state: ConnectionState, detail?: string): void {
    if (state !== 'open') this.failPending(detail ?? 'connection to the engine lost');
    this.current = state;
    for (const l of this.stateListeners) l(state, detail);
  }

  private failPending(why: string): void {
    for (const [id, p] of this.pending) {
      this.settle(id, p);
      p.reject(new RequestError('disconnected', why));
    }
  }

  private resolveReply(id: number, result: unknown): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.settle(id, p);
    p.resolve(result);
  }

  private rejectReply(id: number, code: string, message: string): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.settle(id, p);
    p.reject(new RequestError(code, message));
  }

  private progress(e: ProgressEvent): void {
    const p = this.pending.get(e.request);
    if (!p) return;
    if (!p.cancelled) this.arm(e.request, p);
    try {
      p.onProgress?.(e);
    } catch (err) {
      this.options.onProtocolError?.(
        `a progress listener failed: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }

  private receive(message: ServerMessage | ArrayBuffer): void {
    if (message instanceof ArrayBuffer) {
      let decoded: BinaryMessage;
      try {
        decoded = decodeBinary(message);
      } catch (e) {
        this.options.onProtocolError?.(e instanceof Error ? e.message : String(e));
        return;
      }
      if (decoded.kind === 'reply') this.resolveReply(decoded.id, decoded.result);
      else for (const l of this.rowListeners) l(decoded.rows);
      return;
    }
    if (message.type === 'reply') {
      if (message.ok) this.resolveReply(message.id, message.result);
      else this.rejectReply(message.id, message.error.code, message.error.message);
      return;
    }
    if (message.type === 'event') {
      if (message.event === 'progress') this.progress(message.data);
      const set = this.eventListeners.get(message.event);
      if (set) for (const l of set) (l as (d: unknown) => void)(message.data);
      return;
    }
    this.options.onProtocolError?.('unknown message from the engine');
  }
}

function cancelledError(): RequestError {
  return new RequestError('cancelled', 'cancelled');
}

/** Whether `e` is the failure of a request that was cancelled. */
export function isCancelled(e: unknown): boolean {
  return e instanceof RequestError && e.code === 'cancelled';
}
