// A stand-in for the `electron` module, enough to run the built main process in plain Node and record
// what it asks of Electron (no Electron binary can be downloaded on these machines).
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
});

class Emitter {
  constructor() {
    this.listeners = new Map();
  }
  on(name, fn) {
    (this.listeners.get(name) ?? this.listeners.set(name, []).get(name)).push(fn);
    return this;
  }
  once(name, fn) {
    return this.on(name, fn);
  }
  emit(name, ...args) {
    for (const fn of this.listeners.get(name) ?? []) fn(...args);
  }
}

let nextId = 1;

class WebContents extends Emitter {
  constructor() {
    super();
    this.id = nextId++;
    this.sent = [];
    this.windowOpenHandler = null;
  }
  setWindowOpenHandler(fn) {
    this.windowOpenHandler = fn;
  }
  postMessage(channel, message, transfer) {
    this.sent.push({ channel, message, transfer });
  }
}

export class BrowserWindow extends Emitter {
  constructor(options) {
    super();
    this.options = options;
    this.webContents = new WebContents();
    this.url = null;
    fake.windows.push(this);
  }
  loadURL(url) {
    this.url = url;
    return Promise.resolve();
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

class Port extends Emitter {
  constructor() {
    super();
    this.peer = null;
    this.received = [];
    this.started = false;
    this.closed = false;
  }
  postMessage(data) {
    // Structured clone, as Electron does; the other end records it and hears it.
    const copy = structuredClone(data);
    this.peer.received.push(copy);
    this.peer.emit('message', { data: copy });
  }
  start() {
    this.started = true;
  }
  close() {
    this.closed = true;
  }
}

export class MessageChannelMain {
  constructor() {
    this.port1 = new Port();
    this.port2 = new Port();
    this.port1.peer = this.port2;
    this.port2.peer = this.port1;
  }
}

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
  webUtils,
};
