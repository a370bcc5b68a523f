// The desktop app's IPC, kept free of Electron imports so tests run it with fake events and ports.
//
// Handshake: the preload invokes CONNECT_CHANNEL with { protocol }. The hub checks that the sender is one
// of the app's windows, its main frame, showing the app's own page, and validates the payload; then it makes
// a MessageChannel, keeps one port for the engine connection and hands the other to that renderer
// (PORT_CHANNEL). Every message on the port then goes through the connection's own validation, so a
// malformed payload gets an error reply and never takes the main process down.

import { z } from 'zod';
import type { EngineConnection } from '../engine/live/connection.js';
import { PROTOCOL_VERSION, type ErrorInfo, type ServerMessage } from '../engine/protocol/messages.js';

export const CONNECT_CHANNEL = 'phasor:connect';
export const PORT_CHANNEL = 'phasor:port';

export const connectPayloadSchema = z.strictObject({ protocol: z.number().int().min(1).max(1_000_000) });

export interface SenderLike {
  readonly id: number;
}

export interface FrameLike {
  readonly url: string;
  /** The parent frame; null for a window's main frame. */
  readonly parent: unknown;
}

/** The parts of an IpcMainInvokeEvent the hub looks at. */
export interface IpcEventLike {
  readonly sender: SenderLike;
  readonly senderFrame: FrameLike | null | undefined;
}

/** The parts of a MessagePortMain the hub uses. */
export interface PortLike {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (e: { data: unknown }) => void): unknown;
  on(event: 'close', listener: () => void): unknown;
  start(): void;
  close(): void;
}

export interface IpcHubOptions<Remote> {
  /** True for the app's own page URLs (its protocol, or the dev server in development). */
  isAppUrl(url: string): boolean;
  /** True for the ids of the app's own windows' webContents. */
  isAppWebContents(id: number): boolean;
  createChannel(): { local: PortLike; remote: Remote };
  /** Sends the remote port to the renderer that asked. */
  deliver(event: IpcEventLike, remote: Remote): void;
  connect(send: (message: ServerMessage | ArrayBuffer) => void): EngineConnection;
}

export type ConnectReply = { ok: true; protocol: number } | { ok: false; error: ErrorInfo };

/** Why a message may not be accepted from this sender, or null when it may. */
export function senderProblem(
  event: unknown,
  options: Pick<IpcHubOptions<unknown>, 'isAppUrl' | 'isAppWebContents'>,
): string | null {
  if (typeof event !== 'object' || event === null) return 'no sender';
  const { sender, senderFrame } = event as Partial<IpcEventLike>;
  if (typeof sender !== 'object' || sender === null || typeof sender.id !== 'number') return 'no sender';
  if (!options.isAppWebContents(sender.id)) return 'the message does not come from a Phasor window';
  if (typeof senderFrame !== 'object' || senderFrame === null) return 'the sending frame is gone';
  if (senderFrame.parent !== null && senderFrame.parent !== undefined)
    return 'only the main frame may connect';
  if (typeof senderFrame.url !== 'string' || !options.isAppUrl(senderFrame.url)) {
    return `the page ${String(senderFrame.url).slice(0, 200)} is not Phasor's`;
  }
  return null;
}

export class IpcHub<Remote> {
  readonly #o: IpcHubOptions<Remote>;
  readonly #open = new Map<number, { connection: EngineConnection; port: PortLike }>();

  constructor(options: IpcHubOptions<Remote>) {
    this.#o = options;
  }

  /** Connections open now. */
  get size(): number {
    return this.#open.size;
  }

  /** The CONNECT_CHANNEL handler. Never throws. */
  handleConnect(event: unknown, payload: unknown): ConnectReply {
    try {
      const problem = senderProblem(event, this.#o);
      if (problem !== null) return { ok: false, error: { code: 'forbidden', message: problem } };
      const p = connectPayloadSchema.safeParse(payload);
      if (!p.success) {
        return {
          ok: false,
          error: {
            code: 'bad-request',
            message: `bad connect request: ${p.error.issues[0]?.message ?? 'invalid'}`,
          },
        };
      }
      if (p.data.protocol !== PROTOCOL_VERSION) {
        return {
          ok: false,
          error: {
            code: 'bad-request',
            message: `the page speaks protocol ${p.data.protocol}, the engine ${PROTOCOL_VERSION}: reload the app`,
          },
        };
      }
      const e = event as IpcEventLike;
      const id = e.sender.id;
      this.disconnect(id); // a reload replaces the page's previous connection
      const { local, remote } = this.#o.createChannel();
      const connection = this.#o.connect((message) => local.postMessage(message));
      local.on('message', (m) => connection.receive(m?.data));
      local.on('close', () => {
        if (this.#open.get(id)?.port === local) this.disconnect(id);
      });
      local.start();
      this.#open.set(id, { connection, port: local });
      this.#o.deliver(e, remote);
      return { ok: true, protocol: PROTOCOL_VERSION };
    } catch (err) {
      return {
        ok: false,
        error: {
          code: 'internal',
          message: `could not connect: ${err instanceof Error ? err.message : String(err)}`,
        },
      };
    }
  }

  /** Ends the connection of a window (closed, reloaded, crashed). */
  disconnect(webContentsId: number): void {
    const c = this.#open.get(webContentsId);
    if (!c) return;
    this.#open.delete(webContentsId);
    c.connection.close();
    try {
      c.port.close();
    } catch {
      // already closed
    }
  }

  closeAll(): void {
    for (const id of [...this.#open.keys()]) this.disconnect(id);
  }
}
