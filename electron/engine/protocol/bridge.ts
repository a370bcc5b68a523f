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
  /** The main process's commands (desktop only: the application menu, files opened from outside);
   * those that came before the page listened are delivered to its first listener. Returns a function
   * that stops listening. */
  onCommand?(listener: (command: AppCommand) => void): () => void;
}

/** The versions About shows (the main process's process.versions and the app's own). */
export interface AboutVersions {
  app: string;
  electron: string;
  chrome: string;
  node: string;
}

/**
 * What the desktop app's main process asks the page to do (menu.ts there; the preload's onCommand): one
 * typed message per menu item that acts on the page, and the files the user gave the app (command line,
 * file manager, a second launch, Open Recent), already granted to this window's engine connection.
 */
export type AppCommand =
  | { type: 'open' }
  | { type: 'open-files'; paths: string[] }
  | { type: 'export-csv' }
  | { type: 'export-png' }
  | { type: 'record' }
  | { type: 'view'; view: string }
  | { type: 'zoom'; zoom: 'in' | 'out' | 'reset' }
  /** A colormap by name, or 'next' (the C key's). */
  | { type: 'colormap'; colormap: string }
  /** The theme the user chose: 'system', 'dark', 'light' or 'contrast'. */
  | { type: 'theme'; theme: string }
  | { type: 'shortcuts' }
  | { type: 'about'; versions: AboutVersions };
