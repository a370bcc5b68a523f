// A stand-in for the `electron` module, enough to run the built main process in plain Node and record
// what it asks of Electron (no Electron binary can be downloaded on these machines). Message ports are
// real ones (ports.mjs), and a utility process is a worker thread running the entry script with
// process.parentPort (utility-bootstrap.mjs). No page runs here, but the hidden WebGPU window's preload
// does, as Chromium would run it (see BrowserWindow.loadURL), and so does the app window's when a test
// sets fake.runAppPreload (its bridge is then webContents.exposed.phasor).
//
// The process looks like the packaged app launched with no arguments (process.argv is [executable],
// process.versions has electron and chrome); a test sets process.argv (and process.defaultApp for
// `electron . file`) before it imports the main process. 'ready' comes one microtask after the main
// process first asks whenReady(), after the 'open-file' events of fake.openAtLaunch (macOS sends a
// launch's files before 'ready').
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir, tmpdir } from 'node:os';
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
  // What app.requestSingleInstanceLock() answers (false: another instance holds it).
  singleInstanceLock: true,
  // Files macOS hands over at launch ('open-file' before 'ready').
  openAtLaunch: [],
  ready: false,
  // The application menu (Menu.setApplicationMenu), the roles its items ran, the OS's recent documents.
  applicationMenu: null,
  roles: [],
  recentDocuments: [],
  // The focused window (win.focus()), null for none.
  focused: null,
  // Run the app window's preload (electron/preload/index.ts) as its page would.
  runAppPreload: false,
  /** Emits an app event as Electron does: listeners get `event` (with preventDefault) and the args. */
  emitApp(name, ...args) {
    let prevented = false;
    const event = { preventDefault: () => (prevented = true) };
    for (const fn of [...(fake.appEvents.get(name) ?? [])]) fn(event, ...args);
    return prevented;
  },
});

const root = new URL('../../../', import.meta.url);
process.argv = [process.execPath];
process.versions.electron = '45.0.0';
process.versions.chrome = '140.0.0.0';
const packageVersion = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')).version;

/** The preload this stand-in runs: the hidden WebGPU window's (electron/preload/gpu.ts). */
const RUN_PRELOADS = new Set(['gpu.cjs']);
/** The app window's preload, run when fake.runAppPreload is set. */
const APP_PRELOAD = 'index.cjs';

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
    // Structured-cloned, as IPC does, and delivered later.
    const copy = structuredClone(args);
    setTimeout(() => this.renderer.emit(channel, { sender: null, ports: [] }, ...copy));
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
  /** The event an ipcMain handler gets for a message from this page's main frame. */
  #ipcEvent() {
    return { sender: this, senderFrame: { url: this.url, parent: null }, frameId: 1, processId: 1 };
  }
  /** Runs a preload script in this process, with `electron` as a sandboxed preload sees it. */
  runPreload(file) {
    const ipcRenderer = {
      on: (channel, fn) => this.renderer.on(channel, fn),
      invoke: (channel, ...args) => {
        const handler = fake.ipc.get(channel);
        if (!handler) return Promise.reject(new Error(`No handler registered for '${channel}'`));
        return Promise.resolve().then(() => handler(this.#ipcEvent(), ...structuredClone(args)));
      },
      sendSync: (channel, ...args) => {
        const event = this.#ipcEvent();
        fake.ipc.get(channel)?.(event, ...structuredClone(args));
        return event.returnValue;
      },
    };
    const contextBridge = {
      exposeInMainWorld: (key, api) => {
        this.exposed = { ...this.exposed, [key]: api };
      },
    };
    const electron = { ipcRenderer, contextBridge, webUtils };
    const nodeRequire = createRequire(file);
    const require = (name) => (name === 'electron' ? electron : nodeRequire(name));
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
    const run =
      preload &&
      (RUN_PRELOADS.has(basename(preload)) || (fake.runAppPreload && basename(preload) === APP_PRELOAD));
    if (run) {
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
  /** Minimized when a test says so (win.minimized = true); restore() and focus() bring it back. */
  isMinimized() {
    return this.minimized === true;
  }
  getNormalBounds() {
    return { x: 10, y: 20, width: 1200, height: 800 };
  }
  show() {}
  focus() {
    this.focusCount = (this.focusCount ?? 0) + 1;
    this.minimized = false;
    fake.focused = this;
  }
  restore() {
    this.restoreCount = (this.restoreCount ?? 0) + 1;
    this.minimized = false;
  }
  static getAllWindows() {
    return fake.windows;
  }
  static getFocusedWindow() {
    return fake.focused && !fake.focused.isDestroyed() ? fake.focused : null;
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

// Started by the main process's first whenReady(): one microtask later, once its script has run.
let ready = null;
function whenReady() {
  ready ??= Promise.resolve().then(() => {
    fake.emitApp('will-finish-launching');
    for (const file of fake.openAtLaunch) fake.emitApp('open-file', file);
    fake.ready = true;
    fake.emitApp('ready', {});
  });
  return ready;
}

export const app = {
  isPackaged: false,
  /** The paths the main process asks for; Electron throws for a name it does not know. */
  getPath(name) {
    const paths = { userData: fake.userData, home: homedir(), temp: tmpdir() };
    if (!(name in paths)) throw new Error(`Failed to get '${name}' path`);
    return paths[name];
  },
  getVersion: () => packageVersion,
  requestSingleInstanceLock: () => fake.singleInstanceLock,
  isReady: () => fake.ready,
  addRecentDocument(path) {
    fake.recentDocuments.push(path);
  },
  clearRecentDocuments() {
    fake.recentDocuments.length = 0;
  },
  commandLine: {
    appendSwitch(name, value) {
      fake.switches.push(value === undefined ? name : `${name}=${value}`);
    },
  },
  whenReady,
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

// Electron's accelerator grammar: modifiers joined by '+' to one key code (docs: api/accelerator).
const MODIFIERS = new Set(
  'Command Cmd Control Ctrl CommandOrControl CmdOrCtrl Alt Option AltGr Shift Super Meta'.split(' '),
);
const NAMED_KEYS = new Set(
  (
    'Plus Space Tab Capslock Numlock Scrolllock Backspace Delete Insert Return Enter Up Down Left Right ' +
    'Home End PageUp PageDown Escape Esc VolumeUp VolumeDown VolumeMute MediaNextTrack MediaPreviousTrack ' +
    'MediaStop MediaPlayPause PrintScreen numdec numadd numsub nummult numdiv'
  ).split(' '),
);
export function isAccelerator(text) {
  if (typeof text !== 'string' || text === '') return false;
  const parts = text.endsWith('++') ? [...text.slice(0, -2).split('+'), '+'] : text.split('+');
  const key = parts.pop();
  if (!parts.every((p) => MODIFIERS.has(p))) return false;
  return (
    /^[0-9A-Z]$/i.test(key) ||
    /^F([1-9]|1[0-9]|2[0-4])$/.test(key) ||
    /^num[0-9]$/.test(key) ||
    /^[)!@#$%^&*(:;+=<,_\->.?/~`{\][|\\}"]$/.test(key) ||
    NAMED_KEYS.has(key)
  );
}

/** Electron's MenuItem: the options it was made with, `click(event, focusedWindow, focusedWebContents)`
 * calling the template's click(menuItem, window, event) (a role's built-in action is recorded in
 * fake.roles), a submenu made a Menu. */
export class MenuItem {
  constructor(options) {
    const o = options ?? {};
    if (o.label === undefined && o.role === undefined && o.type === undefined && o.submenu === undefined)
      throw new Error('Invalid template for MenuItem: must have at least one of label, role or type');
    if (o.accelerator !== undefined && !isAccelerator(o.accelerator))
      // Electron ignores an accelerator it cannot parse (with a warning): refused here so a test sees it.
      throw new Error(`Invalid accelerator: ${o.accelerator}`);
    this.id = o.id;
    this.label = o.label ?? '';
    this.role = o.role;
    this.accelerator = o.accelerator;
    this.registerAccelerator = o.registerAccelerator ?? true;
    this.enabled = o.enabled ?? true;
    this.visible = o.visible ?? true;
    this.checked = o.checked ?? false;
    this.toolTip = o.toolTip ?? '';
    this.submenu =
      o.submenu === undefined
        ? undefined
        : o.submenu instanceof Menu
          ? o.submenu
          : Menu.buildFromTemplate(o.submenu);
    this.type = o.type ?? (this.submenu ? 'submenu' : 'normal');
    const userClick = o.click;
    this.click = (event = {}, focusedWindow = BrowserWindow.getFocusedWindow(), focusedWebContents) => {
      if (this.type === 'checkbox') this.checked = !this.checked;
      if (typeof userClick === 'function') userClick(this, focusedWindow ?? undefined, event);
      else if (this.role) fake.roles.push(this.role);
      void focusedWebContents;
    };
  }
}

export class Menu {
  constructor() {
    this.items = [];
  }
  append(item) {
    this.items.push(item);
  }
  getMenuItemById(id) {
    for (const item of this.items) {
      if (item.id === id) return item;
      const inner = item.submenu?.getMenuItemById(id);
      if (inner) return inner;
    }
    return null;
  }
  static buildFromTemplate(template) {
    if (!Array.isArray(template))
      throw new TypeError('Invalid template for Menu: Menu template must be an array');
    const menu = new Menu();
    for (const o of template) menu.append(o instanceof MenuItem ? o : new MenuItem(o));
    return menu;
  }
  static setApplicationMenu(menu) {
    fake.applicationMenu = menu;
  }
  static getApplicationMenu() {
    return fake.applicationMenu;
  }
}

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
  Menu,
  MenuItem,
  MessageChannelMain,
  protocol,
  screen,
  session,
  shell,
  utilityProcess,
  webUtils,
};
