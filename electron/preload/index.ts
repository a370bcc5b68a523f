// The preload (sandboxed, isolated world): exposes window.phasor, the PhasorBridge of
// electron/engine/protocol/bridge.ts, and nothing else. It asks the main process for a MessagePort and
// carries every message over it; ipcRenderer itself never reaches the page.

import { contextBridge, ipcRenderer } from 'electron';
import type { PhasorBridge } from '../engine/protocol/bridge.js';
import type { ClientMessage, ServerMessage } from '../engine/protocol/messages.js';

// Kept literal (not imported) so the sandboxed preload bundles no library; ipc.ts checks it.
const PROTOCOL_VERSION = 1;
const CONNECT_CHANNEL = 'phasor:connect';
const PORT_CHANNEL = 'phasor:port';
/** Messages sent before the port arrives wait here (requests at start-up); beyond this they are lost. */
const MAX_WAITING = 256;

interface PortLike {
  postMessage(message: unknown): void;
  onmessage: ((event: { data: unknown }) => void) | null;
  start?(): void;
}

type Listener = (message: ServerMessage | ArrayBuffer) => void;

let port: PortLike | null = null;
const waiting: ClientMessage[] = [];
const listeners = new Set<Listener>();

ipcRenderer.on(PORT_CHANNEL, (event) => {
  const p = (event as unknown as { ports: PortLike[] }).ports[0];
  if (!p) return;
  port = p;
  p.onmessage = (e) => {
    for (const l of listeners) {
      try {
        l(e.data as ServerMessage | ArrayBuffer);
      } catch (err) {
        console.error('phasor: a message listener failed', err);
      }
    }
  };
  p.start?.();
  for (const m of waiting.splice(0)) p.postMessage(m);
});

ipcRenderer
  .invoke(CONNECT_CHANNEL, { protocol: PROTOCOL_VERSION })
  .then((reply: { ok: boolean; error?: { message: string } }) => {
    if (!reply.ok) console.error(`phasor: the engine refused the connection: ${reply.error?.message ?? '?'}`);
  })
  .catch((err: unknown) => console.error('phasor: cannot reach the engine', err));

const bridge: PhasorBridge = {
  send(message: ClientMessage): void {
    if (port) port.postMessage(message);
    else if (waiting.length < MAX_WAITING) waiting.push(message);
  },
  onMessage(listener: Listener): () => void {
    if (typeof listener !== 'function') throw new TypeError('onMessage takes a function');
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  },
};

contextBridge.exposeInMainWorld('phasor', bridge);
