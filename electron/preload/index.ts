// The preload (sandboxed, isolated world): exposes window.phasor, the PhasorBridge of
// electron/engine/protocol/bridge.ts, and nothing else. It asks the main process for a MessagePort and
// carries every message over it; ipcRenderer itself never reaches the page. chooseFile asks the main
// process for the native dialog (dialog.ts there validates it); pathForFile gives a dropped file's path.

import { contextBridge, ipcRenderer, webUtils } from 'electron';
import type { OpenDialogOptions, PhasorBridge } from '../engine/protocol/bridge.js';
import type { ClientMessage, ServerMessage } from '../engine/protocol/messages.js';

// Kept literal (not imported) so the sandboxed preload bundles no library; ipc.ts checks it.
const PROTOCOL_VERSION = 1;
const CONNECT_CHANNEL = 'phasor:connect';
const PORT_CHANNEL = 'phasor:port';
const CHOOSE_FILE_CHANNEL = 'phasor:choose-file';
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
  async chooseFile(options: OpenDialogOptions): Promise<string | null> {
    // The main process validates the options and the sender; a refusal becomes an Error here.
    const reply = (await ipcRenderer.invoke(CHOOSE_FILE_CHANNEL, options)) as
      { ok: true; path: string | null } | { ok: false; error?: { message?: string } } | undefined;
    if (reply && reply.ok === true) return reply.path;
    throw new Error(reply?.error?.message ?? 'the file dialog is not available');
  },
  pathForFile(file: File): string {
    // '' for a File not backed by a file on disk (Electron's contract).
    return webUtils.getPathForFile(file);
  },
};

contextBridge.exposeInMainWorld('phasor', bridge);
