// The engine host's side of the windows' ports, kept free of Electron imports so tests run it with fake
// ports: one engine connection per window, fed by that window's MessagePort. Every message on a port goes
// through the connection's own validation, so a malformed payload gets an error reply and never takes the
// host down. The parent port (the main process) only hands ports over and takes them back (messages.ts),
// and grants each window the files its user chose (dialogs, drops): a window's connection may use those
// and nothing else (engine/offline/access.ts).

import type { EngineConnection } from '../engine/live/connection.js';
import { FileAccess } from '../engine/offline/access.js';
import type { ServerMessage } from '../engine/protocol/messages.js';
import { isHostMessage } from './messages.js';

/** The parts of a MessagePortMain the host uses. */
export interface PortLike {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (e: { data: unknown }) => void): unknown;
  on(event: 'close', listener: () => void): unknown;
  start(): void;
  close(): void;
}

/** The parts of process.parentPort (Electron's ParentPort) the host uses. */
export interface ParentPortLike {
  on(event: 'message', listener: (e: { data: unknown; ports?: readonly PortLike[] }) => void): unknown;
}

export type Connect = (
  send: (message: ServerMessage | ArrayBuffer) => void,
  access: FileAccess,
) => EngineConnection;

/** What a refusal tells the desktop app's user. */
const DESKTOP_HINT = 'open it with the Open button or drop it on the window';

export class EngineConnections {
  readonly #connect: Connect;
  readonly #open = new Map<number, { connection: EngineConnection; port: PortLike }>();
  /** What each window may use: granted before or after its port arrives, gone with its connection. */
  readonly #access = new Map<number, FileAccess>();

  constructor(connect: Connect) {
    this.#connect = connect;
  }

  /** Connections open now. */
  get size(): number {
    return this.#open.size;
  }

  /** Serves window `id` over `port`, replacing the window's previous connection (a reload). */
  add(id: number, port: PortLike): void {
    this.#close(id);
    const connection = this.#connect((message) => port.postMessage(message), this.#accessOf(id));
    port.on('message', (m) => connection.receive(m?.data));
    port.on('close', () => {
      // A replaced port's close must not end the connection that replaced it.
      if (this.#open.get(id)?.port === port) this.remove(id);
    });
    port.start();
    this.#open.set(id, { connection, port });
  }

  #accessOf(id: number): FileAccess {
    let a = this.#access.get(id);
    if (!a) {
      a = new FileAccess([], { hint: DESKTOP_HINT });
      this.#access.set(id, a);
    }
    return a;
  }

  /** Lets window `id` use `path` (a file or folder its user chose), and with `beside` make new files in
   * its folder; false when it cannot be resolved. */
  grant(id: number, path: string, beside = false): boolean {
    try {
      this.#accessOf(id).grant(path, { createBeside: beside });
      return true;
    } catch {
      return false;
    }
  }

  /** Ends the connection of a window (closed, reloaded, crashed), and what it was granted. */
  remove(id: number): void {
    this.#access.delete(id);
    this.#close(id);
  }

  #close(id: number): void {
    const c = this.#open.get(id);
    if (!c) return;
    this.#open.delete(id);
    c.connection.close();
    try {
      c.port.close();
    } catch {
      // already closed
    }
  }

  closeAll(): void {
    for (const id of [...this.#open.keys()]) this.remove(id);
  }
}

/**
 * Follows the main process's orders on the parent port. `shutdown` closes every connection, then calls
 * `onShutdown` (which ends the process); a `gpu-port` answer goes to `onGpuPort` (gpu.ts).
 */
export function serveParent(
  parent: ParentPortLike,
  connections: EngineConnections,
  onShutdown: () => void,
  onGpuPort?: (answer: { request: number; reason?: string }, port: PortLike | undefined) => void,
): void {
  parent.on('message', (e) => {
    const m = e?.data;
    if (!isHostMessage(m)) return;
    if (m.type === 'connect') {
      const port = e.ports?.[0];
      if (port) connections.add(m.window, port);
    } else if (m.type === 'disconnect') {
      connections.remove(m.window);
    } else if (m.type === 'grant') {
      connections.grant(m.window, m.path, m.beside === true);
    } else if (m.type === 'gpu-port') {
      onGpuPort?.(m, e.ports?.[0]);
    } else {
      connections.closeAll();
      onShutdown();
    }
  });
}
