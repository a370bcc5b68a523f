// The preload (sandboxed, isolated world): exposes window.phasor, the PhasorBridge of
// electron/engine/protocol/bridge.ts, and nothing else. It asks the main process for a MessagePort to the
// engine host and carries every message over it; ipcRenderer itself never reaches the page. chooseFile asks
// the main process for the native dialog (dialog.ts there validates it); pathForFile gives a dropped file's
// path. When the engine host dies, the main process says so (ENGINE_STATE_CHANNEL) and later sends a new
// port: onState reports 'reconnecting' (or 'closed' when it gave up) and then 'open', as the WebSocket
// transport does in web mode, and the page reconnects without a reload. onCommand gives the page what the
// main process asks of it (the application menu's items, files opened from outside): only the commands
// listed here, checked field by field, and those that came before the page listened wait for it.

import { contextBridge, ipcRenderer, webUtils } from 'electron';
import type { AppCommand, OpenDialogOptions, PhasorBridge } from '../engine/protocol/bridge.js';
import type { ClientMessage, ServerMessage } from '../engine/protocol/messages.js';

// Kept literal (not imported) so the sandboxed preload bundles no library; ipc.ts checks it.
const PROTOCOL_VERSION = 1;
const CONNECT_CHANNEL = 'phasor:connect';
const PORT_CHANNEL = 'phasor:port';
const CHOOSE_FILE_CHANNEL = 'phasor:choose-file';
const GRANT_DROPPED_CHANNEL = 'phasor:grant-dropped';
const ENGINE_STATE_CHANNEL = 'phasor:engine-state';
const COMMAND_CHANNEL = 'phasor:command';
/** Messages sent before the port arrives wait here (requests at start-up); beyond this they are lost. */
const MAX_WAITING = 256;

interface PortLike {
  postMessage(message: unknown): void;
  onmessage: ((event: { data: unknown }) => void) | null;
  start?(): void;
  close?(): void;
}

type Listener = (message: ServerMessage | ArrayBuffer) => void;
type StateListener = Parameters<NonNullable<PhasorBridge['onState']>>[0];
type CommandListener = (command: AppCommand) => void;
type Zoom = Extract<AppCommand, { type: 'zoom' }>['zoom'];
type EngineState = Parameters<StateListener>[0];
/** The desktop bridge always reports the engine host's state (the renderer's Transport.onState). */
type DesktopBridge = PhasorBridge & Required<Pick<PhasorBridge, 'onState' | 'onCommand'>>;

let port: PortLike | null = null;
const waiting: ClientMessage[] = [];
const listeners = new Set<Listener>();
let state: EngineState = 'open';
let stateDetail = '';
const stateListeners = new Set<StateListener>();

function setState(next: EngineState, detail = ''): void {
  state = next;
  stateDetail = detail;
  for (const l of stateListeners) {
    try {
      l(next, detail || undefined);
    } catch (err) {
      console.error('phasor: a state listener failed', err);
    }
  }
}

function dropPort(): void {
  if (!port) return;
  port.onmessage = null;
  try {
    port.close?.();
  } catch {
    // already closed
  }
  port = null;
}

/** Commands that came before the page listened (files given at launch); beyond this they are lost. */
const MAX_COMMANDS = 64;
const commands: AppCommand[] = [];
const commandListeners = new Set<CommandListener>();

const short = (v: unknown, max = 200): v is string =>
  typeof v === 'string' && v.length > 0 && v.length <= max;
const ZOOMS = new Set(['in', 'out', 'reset']);
const BARE = new Set(['open', 'export-csv', 'export-png', 'record', 'shortcuts']);

/** The command in a message from the main process, or null when it is none this bridge knows. */
function appCommand(raw: unknown): AppCommand | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const m = raw as Record<string, unknown>;
  const type = m.type;
  if (typeof type !== 'string') return null;
  if (BARE.has(type)) return { type } as AppCommand;
  switch (type) {
    case 'open-files': {
      const paths = m.paths;
      if (!Array.isArray(paths) || paths.length > 256 || !paths.every((p) => short(p, 4096))) return null;
      return { type, paths: [...(paths as string[])] };
    }
    case 'view':
      return short(m.view, 40) ? { type, view: m.view } : null;
    case 'zoom':
      return typeof m.zoom === 'string' && ZOOMS.has(m.zoom) ? { type, zoom: m.zoom as Zoom } : null;
    case 'colormap':
      return short(m.colormap, 40) ? { type, colormap: m.colormap } : null;
    case 'theme':
      return short(m.theme, 20) ? { type, theme: m.theme } : null;
    case 'about': {
      const v = (typeof m.versions === 'object' && m.versions !== null ? m.versions : {}) as Record<
        string,
        unknown
      >;
      const text = (x: unknown): string => (typeof x === 'string' ? x.slice(0, 100) : '');
      return {
        type,
        versions: {
          app: text(v.app),
          electron: text(v.electron),
          chrome: text(v.chrome),
          node: text(v.node),
        },
      };
    }
    default:
      return null;
  }
}

function deliver(command: AppCommand): void {
  for (const l of commandListeners) {
    try {
      l(command);
    } catch (err) {
      console.error('phasor: a command listener failed', err);
    }
  }
}

ipcRenderer.on(COMMAND_CHANNEL, (_event, raw: unknown) => {
  const command = appCommand(raw);
  if (!command) return;
  if (commandListeners.size > 0) deliver(command);
  else if (commands.length < MAX_COMMANDS) commands.push(command);
});

ipcRenderer.on(ENGINE_STATE_CHANNEL, (_event, down: unknown) => {
  const d = (typeof down === 'object' && down !== null ? down : {}) as { state?: unknown; detail?: unknown };
  if (d.state !== 'reconnecting' && d.state !== 'closed') return;
  // The old port leads to a dead process: drop it, and what waited for it (a fresh engine knows none of it).
  dropPort();
  waiting.length = 0;
  setState(d.state, typeof d.detail === 'string' ? d.detail.slice(0, 500) : '');
});

ipcRenderer.on(PORT_CHANNEL, (event) => {
  const p = (event as unknown as { ports: PortLike[] }).ports[0];
  if (!p) return;
  dropPort();
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
  if (state !== 'open') setState('open');
});

ipcRenderer
  .invoke(CONNECT_CHANNEL, { protocol: PROTOCOL_VERSION })
  .then((reply: { ok: boolean; error?: { message: string } }) => {
    if (!reply.ok) console.error(`phasor: the engine refused the connection: ${reply.error?.message ?? '?'}`);
  })
  .catch((err: unknown) => console.error('phasor: cannot reach the engine', err));

const bridge: DesktopBridge = {
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
    // '' for a File not backed by a file on disk (Electron's contract). A real one is granted to this
    // window's engine connection before the page can ask to open it (synchronously, so in that order).
    const path = webUtils.getPathForFile(file);
    if (path && ipcRenderer.sendSync(GRANT_DROPPED_CHANNEL, { path }) !== true) return '';
    return path;
  },
  onState(listener: StateListener): () => void {
    if (typeof listener !== 'function') throw new TypeError('onState takes a function');
    stateListeners.add(listener);
    // A page that subscribes while the engine is down hears it at once.
    if (state !== 'open') listener(state, stateDetail || undefined);
    return () => {
      stateListeners.delete(listener);
    };
  },
  onCommand(listener: CommandListener): () => void {
    if (typeof listener !== 'function') throw new TypeError('onCommand takes a function');
    commandListeners.add(listener);
    // What came before anyone listened goes to the first listener.
    for (const c of commands.splice(0)) deliver(c);
    return () => {
      commandListeners.delete(listener);
    };
  },
};

contextBridge.exposeInMainWorld('phasor', bridge);
