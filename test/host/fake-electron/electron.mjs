// A stand-in for the `electron` module, enough to run the built main process in plain Node and record
// what it asks of Electron (no Electron binary can be downloaded on these machines). Message ports are
// real ones (ports.mjs), and a utility process is a worker thread running the entry script with
// process.parentPort (utility-bootstrap.mjs). No page runs here, but the hidden WebGPU window's preload
// does, as Chromium would run it (see BrowserWindow.loadURL).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname } from 'node:path';
import { Worker } from 'node:worker_threads';
import { Emitter, MessageChannelMain } from './ports.mjs';

export { MessageChannelMain };

const fake = (globalThis.__fakeElectron = {
  windows: [],
  ipc: new Map(),
  protocols: new Map(),
  privileged: [],
  appEvents: new Map(),
  permissionRequest: null,
  permissionCheck: null,
  quits: 0,
  opened: [],
  // Chromium switches the main process adds before the app is ready.
  switches: [],
  // File dialogs: what they were asked, and what they answer.
  dialogs: [],
  dialogAnswer: { canceled: false, filePaths: ['/data/rec.wav'], filePath: '/data/out.wav' },
  // Message boxes answer with this button index, or with what this function of their options returns.
  messageBoxAnswer: 0,
  // Utility processes forked, in order (each a UtilityProcess below).
  utilityProcesses: [],
  // The navigator the WebGPU window's preload sees: no navigator.gpu unless a test gives one.
  navigator: { userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/140.0.0.0 Electron/45.0.0 (stand-in)' },
});

/** The preload this stand-in runs: the hidden WebGPU window's (electron/preload/gpu.ts). */
const RUN_PRELOADS = new Set(['gpu.cjs']);

let nextId = 1;

/** A renderer's end of a MessagePortMain, as a page sees it: messages wait until onmessage is set (which
 * starts a web MessagePort) and are dispatched as tasks of their own, never inside the setter; postMessage
 * takes a transfer list. */
function webPort(main) {
  const queue = [];
  let handler = null;
  const drain = () => {
    while (handler && queue.length > 0) handler({ data: queue.shift() });
  };
  const port = {
    get onmessage() {
      return handler;
    },
    set onmessage(fn) {
      handler = fn;
      setImmediate(drain);
    },
    postMessage: (data, transfer = []) => {
      if (!main.closed) main.port.postMessage({ data, ports: [] }, transfer);
    },
    close: () => main.close(),
  };
  main.on('message', (e) => {
    queue.push(e.data);
    setImmediate(drain);
  });
  main.start();
  return port;
}

class WebContents extends Emitter {
  constructor() {
    super();
    this.id = nextId++;
    this.sent = [];
    this.windowOpenHandler = null;
    this.destroyed = false;
    this.crashed = false;
    // The renderer side: ipcRenderer listeners of the preload this stand-in runs, and the ports it got.
    this.renderer = new Emitter();
    this.rendererPorts = [];
    this.url = '';
  }
  getURL() {
    return this.url;
  }
  /** Emits a navigation event as Electron does: a details Event (url, isMainFrame, preventDefault), with
   * the deprecated positional url after it; answers whether a listener prevented it. */
  #navigationEvent(name, url, isMainFrame) {
    let prevented = false;
    const details = {
      url,
      isMainFrame,
      isSameDocument: false,
      frame: null,
      initiator: null,
      preventDefault: () => (prevented = true),
    };
    this.emit(name, details, url, false, isMainFrame, 1, 1);
    return prevented;
  }
  /** The page (or one of its frames) starts a navigation, as a link or location.href would: Chromium
   * asks 'will-frame-navigate' for every frame, then 'will-navigate' for the main frame. Answers whether it
   * went ahead (the main frame's URL then changes). */
  navigate(url, { mainFrame = true } = {}) {
    if (this.#navigationEvent('will-frame-navigate', url, mainFrame)) return false;
    if (mainFrame && this.#navigationEvent('will-navigate', url, true)) return false;
    if (mainFrame) this.url = url;
    return true;
  }
  /** A server redirects the navigation in progress to `url` ('will-redirect'); answers whether it went
   * ahead. Electron asks this for loadURL's navigations too. */
  redirect(url, { mainFrame = true } = {}) {
    if (this.#navigationEvent('will-redirect', url, mainFrame)) return false;
    if (mainFrame) this.url = url;
    return true;
  }
  /** The page calls window.open (or follows a target=_blank link): without a handler, or when it allows,
   * Chromium opens a new window on `url`. Answers the action taken. */
  openWindow(url) {
    const answer = this.windowOpenHandler?.({
      url,
      frameName: '',
      features: '',
      disposition: 'foreground-tab',
      referrer: { url: this.url, policy: 'strict-origin-when-cross-origin' },
    }) ?? { action: 'allow' };
    if (answer.action === 'allow') {
      const child = new BrowserWindow(answer.overrideBrowserWindowOptions ?? {});
      void child.loadURL(url);
    }
    return answer.action;
  }
  isDestroyed() {
    return this.destroyed;
  }
  isCrashed() {
    return this.crashed;
  }
  send(channel, ...args) {
    this.sent.push({ channel, message: args[0], transfer: [] });
  }
  setWindowOpenHandler(fn) {
    this.windowOpenHandler = fn;
  }
  postMessage(channel, message, transfer) {
    this.sent.push({ channel, message, transfer });
    if ((this.renderer.listeners.get(channel) ?? []).length === 0) return;
    this.rendererPorts.push(...transfer);
    const event = { ports: transfer.map(webPort), sender: null };
    setTimeout(() => this.renderer.emit(channel, event, message));
  }
  /** The renderer dies: its ports close and 'render-process-gone' fires. */
  forcefullyCrashRenderer() {
    this.crashed = true;
    for (const p of this.rendererPorts) p.close();
    this.emit('render-process-gone', {}, { reason: 'crashed', exitCode: 139 });
  }
  /** Runs a preload script in this process, with `electron` as a sandboxed preload sees it. */
  runPreload(file) {
    const ipcRenderer = { on: (channel, fn) => this.renderer.on(channel, fn) };
    const nodeRequire = createRequire(file);
    const require = (name) => (name === 'electron' ? { ipcRenderer } : nodeRequire(name));
    if (globalThis.navigator !== fake.navigator) {
      Object.defineProperty(globalThis, 'navigator', {
        value: fake.navigator,
        configurable: true,
        writable: true,
      });
    }
    const module = { exports: {} };
    new Function('require', 'module', 'exports', '__filename', '__dirname', readFileSync(file, 'utf8'))(
      require,
      module,
      module.exports,
      file,
      dirname(file),
    );
  }
}

export class BrowserWindow extends Emitter {
  constructor(options) {
    super();
    this.options = options;
    this.webContents = new WebContents();
    this.url = null;
    fake.windows.push(this);
    // Electron announces every new webContents, a window's included, while the window is being made.
    for (const fn of fake.appEvents.get('web-contents-created') ?? []) fn({}, this.webContents);
  }
  /** Pages do not load here, except that the hidden WebGPU window runs its preload, then "finishes". */
  loadURL(url) {
    this.url = url;
    this.webContents.url = url;
    this.loads = (this.loads ?? 0) + 1;
    const preload = this.options?.webPreferences?.preload;
    if (preload && RUN_PRELOADS.has(basename(preload))) {
      setTimeout(() => {
        try {
          this.webContents.runPreload(preload);
          this.webContents.emit('did-finish-load', {});
        } catch (err) {
          this.webContents.emit('did-fail-load', {}, -3, String(err?.message ?? err));
        }
      });
    }
    return Promise.resolve();
  }
  isDestroyed() {
    return this.webContents.destroyed;
  }
  destroy() {
    this.webContents.destroyed = true;
    for (const p of this.webContents.rendererPorts) p.close();
    this.emit('closed');
  }
  maximize() {}
  isMaximized() {
    return false;
  }
  isMinimized() {
    return false;
  }
  getNormalBounds() {
    return { x: 10, y: 20, width: 1200, height: 800 };
  }
  show() {}
  focus() {}
  restore() {}
  static getAllWindows() {
    return fake.windows;
  }
  static fromWebContents(contents) {
    return fake.windows.find((w) => w.webContents === contents) ?? null;
  }
}

/**
 * Electron's UtilityProcess: 'spawn' once running, 'message' for what the child posts on its parentPort,
 * 'exit' with the exit code (process.exit's, 1 after kill() or an uncaught error), postMessage with
 * transferred ports, kill().
 */
class UtilityProcess extends Emitter {
  constructor(modulePath, args = [], options = {}) {
    super();
    this.modulePath = modulePath;
    this.options = options;
    this.pid = undefined;
    this.exitCode = null;
    this.worker = new Worker(new URL('./utility-bootstrap.mjs', import.meta.url), {
      workerData: { modulePath, args },
      ...(options.env ? { env: options.env } : {}),
    });
    this.worker.on('online', () => {
      this.pid = 100000 + this.worker.threadId;
      this.emit('spawn');
    });
    this.worker.on('message', (m) => this.emit('message', m));
    this.worker.on('error', (err) => {
      this.error = err;
    });
    this.worker.on('exit', (code) => {
      this.pid = undefined;
      this.exitCode = code;
      this.emit('exit', code);
    });
  }
  postMessage(message, transfer = []) {
    if (this.exitCode !== null) return;
    const ports = transfer.map((p) => p.port);
    this.worker.postMessage({ data: message, ports }, ports);
  }
  kill() {
    if (this.exitCode !== null) return false;
    void this.worker.terminate();
    return true;
  }
}

export const utilityProcess = {
  fork(modulePath, args, options) {
    const child = new UtilityProcess(modulePath, args, options);
    fake.utilityProcesses.push(child);
    return child;
  },
};

export const app = {
  isPackaged: false,
  getPath: () => fake.userData,
  requestSingleInstanceLock: () => true,
  commandLine: {
    appendSwitch(name, value) {
      fake.switches.push(value === undefined ? name : `${name}=${value}`);
    },
  },
  whenReady: () => Promise.resolve(),
  on(name, fn) {
    (fake.appEvents.get(name) ?? fake.appEvents.set(name, []).get(name)).push(fn);
  },
  quit() {
    fake.quits++;
  },
};

export const ipcMain = {
  handle(channel, fn) {
    fake.ipc.set(channel, fn);
  },
  on(channel, fn) {
    fake.ipc.set(channel, fn);
  },
};

export const protocol = {
  registerSchemesAsPrivileged(list) {
    fake.privileged.push(...list);
  },
  handle(scheme, fn) {
    fake.protocols.set(scheme, fn);
  },
};

export const screen = { getAllDisplays: () => [{ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }] };

export const session = {
  defaultSession: {
    setPermissionRequestHandler(fn) {
      fake.permissionRequest = fn;
    },
    setPermissionCheckHandler(fn) {
      fake.permissionCheck = fn;
    },
    webRequest: { onHeadersReceived() {} },
  },
};

export const dialog = {
  showOpenDialog(win, options) {
    fake.dialogs.push({ kind: 'open', window: win?.webContents?.id ?? null, options });
    const a = fake.dialogAnswer;
    return Promise.resolve({ canceled: a.canceled, filePaths: a.canceled ? [] : a.filePaths });
  },
  showSaveDialog(win, options) {
    fake.dialogs.push({ kind: 'save', window: win?.webContents?.id ?? null, options });
    const a = fake.dialogAnswer;
    return Promise.resolve(a.canceled ? { canceled: true } : { canceled: false, filePath: a.filePath });
  },
  /** showMessageBox([window], options): answers with fake.messageBoxAnswer's button. */
  showMessageBox(win, options) {
    const modal = win instanceof BrowserWindow;
    const o = modal ? options : win;
    fake.dialogs.push({ kind: 'message', window: modal ? win.webContents.id : null, options: o });
    const a = fake.messageBoxAnswer;
    return Promise.resolve({ response: typeof a === 'function' ? a(o) : a, checkboxChecked: false });
  },
};

export const webUtils = {
  getPathForFile: (file) => file?.path ?? '',
};

export const shell = {
  openExternal(url) {
    fake.opened.push(url);
    return Promise.resolve();
  },
};

export default {
  app,
  BrowserWindow,
  dialog,
  ipcMain,
  MessageChannelMain,
  protocol,
  screen,
  session,
  shell,
  utilityProcess,
  webUtils,
};
