// What the preload script exposes to the renderer as `window.phasor` in the desktop app: the same
// message-level interface a WebSocket gives in web mode, so the renderer has one transport shape.
// JSON messages are protocol envelopes (messages.ts); ArrayBuffers are binary messages (rows-codec.ts).
//
// Web mode has no bridge: files are chosen with the server-side browser (listDirectory), and a file dropped
// on the page is uploaded with `PUT /upload?name=<file name>` (same origin, same access token as the page;
// the body is the file's bytes; the reply is JSON `{ "path": "<where the server stored it>" }`), then
// opened by that path.

import type { ClientMessage, ServerMessage } from './messages.js';

export interface OpenDialogOptions {
  title?: string;
  /** 'open' picks an existing file; 'save' asks for a new file name. */
  mode: 'open' | 'save';
  defaultPath?: string;
  filters?: Array<{ name: string; extensions: string[] }>;
}

export interface PhasorBridge {
  /** Sends a request or an ack to the engine. */
  send(message: ClientMessage): void;
  /** Receives replies, events and binary messages; returns a function that stops listening. */
  onMessage(listener: (message: ServerMessage | ArrayBuffer) => void): () => void;
  /** The native file dialog (desktop only): the chosen path, or null when cancelled. */
  chooseFile?(options: OpenDialogOptions): Promise<string | null>;
  /** The real path of a file dropped on the window (desktop only; Electron's webUtils.getPathForFile). */
  pathForFile?(file: File): string;
  /** The engine host's state (desktop only): 'reconnecting' while a crashed engine process restarts,
   * 'closed' when it gave up, 'open' once a new port is attached. Returns a function that stops listening. */
  onState?(listener: (state: 'open' | 'reconnecting' | 'closed', detail?: string) => void): () => void;
}
