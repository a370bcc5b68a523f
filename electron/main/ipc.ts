// The desktop app's IPC, kept free of Electron imports so tests run it with fake events and ports.
//
// Handshake: the preload invokes CONNECT_CHANNEL with { protocol }. The hub checks that the sender is one
// of the app's windows, its main frame, showing the app's own page, and validates the payload; then it
// attaches the window to the engine host (engine-process.ts), which makes a MessageChannel, gives one port
// to the host and the other to that renderer (PORT_CHANNEL). Every message on the port then goes through
// the engine connection's own validation in the host, so a malformed payload gets an error reply there.
// When the host dies the window hears it on ENGINE_STATE_CHANNEL, and gets a new port once it is back.

import { z } from 'zod';
import { PROTOCOL_VERSION, type ErrorInfo } from '../engine/protocol/messages.js';

export const CONNECT_CHANNEL = 'phasor:connect';
export const PORT_CHANNEL = 'phasor:port';
/** main → preload: { state: 'reconnecting' | 'closed', detail } when the engine host stopped. */
export const ENGINE_STATE_CHANNEL = 'phasor:engine-state';

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

export interface IpcHubOptions {
  /** True for the app's own page URLs (its protocol, or the dev server in development). */
  isAppUrl(url: string): boolean;
  /** True for the ids of the app's own windows' webContents. */
  isAppWebContents(id: number): boolean;
  /** Connects a window to the engine: a new port to the engine host, delivered to that window. */
  attach(webContentsId: number): void;
  /** Ends a window's connection to the engine. */
  detach(webContentsId: number): void;
}

export type ConnectReply = { ok: true; protocol: number } | { ok: false; error: ErrorInfo };

/** Why a message may not be accepted from this sender, or null when it may. */
export function senderProblem(
  event: unknown,
  options: Pick<IpcHubOptions, 'isAppUrl' | 'isAppWebContents'>,
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

export class IpcHub {
  readonly #o: IpcHubOptions;
  /** Windows (webContents ids) connected now. */
  readonly #open = new Set<number>();

  constructor(options: IpcHubOptions) {
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
      const id = (event as IpcEventLike).sender.id;
      this.disconnect(id); // a reload replaces the page's previous connection
      this.#o.attach(id);
      this.#open.add(id);
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
    if (!this.#open.delete(webContentsId)) return;
    this.#o.detach(webContentsId);
  }

  closeAll(): void {
    for (const id of [...this.#open.keys()]) this.disconnect(id);
  }
}
