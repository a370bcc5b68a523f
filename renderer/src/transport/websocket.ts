// Web mode's transport: a WebSocket to `phasor serve` on the page's own origin, with the access token from
// the page URL, reconnecting with backoff when the server goes away (the state is shown in the UI).

import type { ClientMessage, ServerMessage } from '../../../electron/engine/protocol/messages.js';
import type { ConnectionState, Transport } from './connection.js';

export const WS_PATH = '/ws';

/** WebSocket.OPEN (spelled out so the module loads where WebSocket is not defined). */
const OPEN = 1;

/** The WebSocket URL for a page at `pageUrl`: same host, ws/wss by the page's scheme, token passed on. */
export function webSocketUrl(pageUrl: string, path = WS_PATH): string {
  const page = new URL(pageUrl);
  const url = new URL(path, page);
  url.protocol = page.protocol === 'https:' ? 'wss:' : 'ws:';
  url.search = '';
  url.hash = '';
  const token = page.searchParams.get('token');
  if (token) url.searchParams.set('token', token);
  return url.toString();
}

/** Delay before reconnect attempt n (0-based): 250 ms doubling up to 5 s. */
export function reconnectDelay(attempt: number): number {
  return Math.min(5000, 250 * Math.pow(2, attempt));
}

type SocketFactory = (url: string) => WebSocket;

export class WebSocketTransport implements Transport {
  private socket: WebSocket | null = null;
  private readonly messageListeners = new Set<(m: ServerMessage | ArrayBuffer) => void>();
  private readonly stateListeners = new Set<(s: ConnectionState, detail?: string) => void>();
  private attempt = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private closed = false;
  private everOpened = false;
  state: ConnectionState = 'connecting';

  constructor(
    private readonly url: string,
    private readonly factory: SocketFactory = (u) => new WebSocket(u),
  ) {
    this.open();
  }

  send(message: ClientMessage): void {
    if (!this.socket || this.socket.readyState !== OPEN) throw new Error('not connected');
    this.socket.send(JSON.stringify(message));
  }

  /** A binary message: an audio block of the page's own microphone (engine/protocol/audio-frames.ts). */
  sendBinary(data: ArrayBuffer): void {
    if (!this.socket || this.socket.readyState !== OPEN) throw new Error('not connected');
    this.socket.send(data);
  }

  get bufferedAmount(): number {
    return this.socket?.bufferedAmount ?? 0;
  }

  onMessage(listener: (m: ServerMessage | ArrayBuffer) => void): () => void {
    this.messageListeners.add(listener);
    return () => this.messageListeners.delete(listener);
  }

  onState(listener: (s: ConnectionState, detail?: string) => void): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.socket?.close();
    this.setState('closed');
  }

  private setState(state: ConnectionState, detail?: string): void {
    this.state = state;
    for (const l of this.stateListeners) l(state, detail);
  }

  private open(): void {
    const ws = this.factory(this.url);
    ws.binaryType = 'arraybuffer';
    this.socket = ws;
    ws.onopen = () => {
      this.attempt = 0;
      this.everOpened = true;
      this.setState('open');
    };
    ws.onmessage = (ev: MessageEvent) => {
      let message: ServerMessage | ArrayBuffer;
      if (ev.data instanceof ArrayBuffer) message = ev.data;
      else {
        try {
          message = JSON.parse(String(ev.data)) as ServerMessage;
        } catch {
          return;
        }
      }
      for (const l of this.messageListeners) l(message);
    };
    ws.onclose = (ev: CloseEvent) => {
      if (this.socket !== ws) return;
      this.socket = null;
      if (this.closed) return;
      const why =
        ev.code === 1008 || ev.code === 4401
          ? 'the server refused the access token (open the URL that phasor serve printed)'
          : this.everOpened
            ? 'connection to the engine lost; reconnecting…'
            : 'cannot reach the engine; retrying…';
      this.setState('reconnecting', why);
      this.timer = setTimeout(() => this.open(), reconnectDelay(this.attempt++));
    };
  }
}
