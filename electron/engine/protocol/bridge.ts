// What the preload script exposes to the renderer as `window.phasor` in the desktop app: the same
// message-level interface a WebSocket gives in web mode, so the renderer has one transport shape.
// JSON messages are protocol envelopes (messages.ts); ArrayBuffers are encoded rows (rows-codec.ts).

import type { ClientMessage, ServerMessage } from './messages.js';

export interface PhasorBridge {
  /** Sends a request or an ack to the engine. */
  send(message: ClientMessage): void;
  /** Receives replies, events and rows; returns a function that stops listening. */
  onMessage(listener: (message: ServerMessage | ArrayBuffer) => void): () => void;
}
