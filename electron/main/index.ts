// The desktop app's main process: windows, dialogs, the page's protocol and the wiring. The engine runs in
// an Electron utility process (electron/engine-host, kept by engine-process.ts): each window's MessagePort
// goes straight to it, so no request, sample or row passes through here, and a long job never stalls a
// window. Kept thin: the IPC rules live in ipc.ts and dialog.ts, the host's life cycle in engine-process.ts,
// the window state in window-state.ts, files given from outside in open-files.ts, the application menu in
// menu.ts and Open Recent's list in recent.ts, all testable without Electron.

import { existsSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  app,
  BrowserWindow,
  dialog,
  ipcMain,
  Menu,
  MessageChannelMain,
  protocol,
  screen,
  session,
  shell,
  utilityProcess,
  type IpcMainInvokeEvent,
  type MessageBoxOptions,
  type MessagePortMain,
  type OpenDialogOptions as ElectronOpenOptions,
  type SaveDialogOptions as ElectronSaveOptions,
  type WebContents,
} from 'electron';
import { resolveAppFile } from '../cli/web/files.js';
import { contentSecurityPolicy, securityHeaders } from '../cli/web/security.js';
import { CHOOSE_FILE_CHANNEL, FileDialogs, GRANT_DROPPED_CHANNEL } from './dialog.js';
import { isEngineRequest } from '../engine-host/messages.js';
import { EngineProcess } from './engine-process.js';
import { GpuWindow, linuxVulkanDriver, webGpuSwitches } from './gpu-window.js';
import { CONNECT_CHANNEL, ENGINE_STATE_CHANNEL, IpcHub, PORT_CHANNEL, type IpcEventLike } from './ipc.js';
import { COMMAND_CHANNEL, menuTemplate } from './menu.js';
import { externalLink, isSchemePage } from './navigation.js';
import { filesFromArgv, OpenFiles } from './open-files.js';
import { RecentFiles } from './recent.js';
import { fitToDisplays, loadWindowState, MIN_HEIGHT, MIN_WIDTH, saveWindowState } from './window-state.js';

const SCHEME = 'phasor';
const APP_URL = `${SCHEME}://app/index.html`;
// The hidden window that runs WebGPU for the engine host: an empty page, its preload does the work.
const GPU_URL = `${SCHEME}://gpu/index.html`;
const GPU_PORT_CHANNEL = 'phasor:gpu-port';
const here = path.dirname(fileURLToPath(import.meta.url)); // out/main
const rendererDir = path.join(here, '..', 'renderer');
const preloadFile = path.join(here, '..', 'preload', 'index.cjs');
const gpuPreloadFile = path.join(here, '..', 'preload', 'gpu.cjs');
// Beside this bundle, with the engine's workers (worker.js, mic-worker.js) it starts.
const engineHostFile = path.join(here, 'engine-host.js');
const devUrl = !app.isPackaged ? process.env.ELECTRON_RENDERER_URL : undefined;

// The page is served from phasor://app (a standard, secure scheme), never file://.
protocol.registerSchemesAsPrivileged([
  { scheme: SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true, codeCache: true } },
]);

function isAppUrl(url: string): boolean {
  if (isSchemePage(url, SCHEME, 'app')) return true;
  try {
    return devUrl !== undefined && new URL(url).origin === new URL(devUrl).origin;
  } catch {
    return false;
  }
}

/** The app's windows' webContents, by id. */
const windows = new Map<number, WebContents>();
/** The hidden WebGPU windows' webContents ids: their one page is phasor://gpu. */
const gpuContents = new Set<number>();

/** Whether `url` is a page `contents` may show: the WebGPU window's own, or else the app's. */
function isOwnPage(contents: WebContents, url: string): boolean {
  return gpuContents.has(contents.id) ? isSchemePage(url, SCHEME, 'gpu') : isAppUrl(url);
}

/** Opens an allowed link in the browser once the user agreed, in a box modal to the asking window. */
async function openAfterAsking(contents: WebContents, url: string): Promise<void> {
  const win = BrowserWindow.fromWebContents(contents);
  const options: MessageBoxOptions = {
    type: 'question',
    title: 'Open link',
    message: 'Open this link in your web browser?',
    detail: url,
    buttons: ['Cancel', 'Open in browser'],
    defaultId: 0,
    cancelId: 0,
    noLink: true,
  };
  const { response } = win ? await dialog.showMessageBox(win, options) : await dialog.showMessageBox(options);
  if (response === 1) await shell.openExternal(url);
}

/** Every webContents (the app's windows, the WebGPU window, any other): navigations, frame navigations
 * and redirects stay on its own pages; no webview; no new window, and only an app window may hand a link
 * to the browser (navigation.ts says which). Checked when each event comes: a window's webContents is
 * announced before the window is known as the app's or the WebGPU one. */
function guardContents(contents: WebContents): void {
  const stay = (e: { url: string; preventDefault(): void }): void => {
    if (!isOwnPage(contents, e.url)) e.preventDefault();
  };
  contents.on('will-navigate', stay);
  contents.on('will-frame-navigate', stay);
  contents.on('will-redirect', stay);
  contents.on('will-attach-webview', (e) => e.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    const link = windows.has(contents.id) ? externalLink(url) : null;
    if (link !== null) {
      openAfterAsking(contents, link).catch((err: unknown) =>
        console.error(`phasor: could not open ${link}: ${err instanceof Error ? err.message : String(err)}`),
      );
    }
    return { action: 'deny' };
  });
}

/** A window's webContents while it can still be sent to. */
function liveContents(id: number): WebContents | null {
  const contents = windows.get(id);
  return contents && !contents.isDestroyed() ? contents : null;
}

const gpuWindow = new GpuWindow<MessagePortMain>({
  open: () => {
    const win = new BrowserWindow({
      show: false,
      title: 'Phasor WebGPU',
      webPreferences: {
        preload: gpuPreloadFile,
        contextIsolation: true,
        sandbox: true,
        nodeIntegration: false,
        webSecurity: true,
        backgroundThrottling: false,
        spellcheck: false,
      },
    });
    const id = win.webContents.id;
    gpuContents.add(id);
    win.on('closed', () => gpuContents.delete(id));
    const ready = new Promise<void>((resolve, reject) => {
      win.webContents.once('did-finish-load', () => resolve());
      win.webContents.once('did-fail-load', (_e, code, description) =>
        reject(new Error(`${description} (${code})`)),
      );
    });
    void win.loadURL(GPU_URL);
    return {
      ready,
      gone: () => win.isDestroyed() || win.webContents.isCrashed(),
      deliver: (port) => win.webContents.postMessage(GPU_PORT_CHANNEL, null, [port]),
      close: () => {
        if (!win.isDestroyed()) win.destroy();
      },
    };
  },
  createChannel: () => {
    const { port1, port2 } = new MessageChannelMain();
    return { host: port1, window: port2 };
  },
  log: (message) => console.error(message),
});

const engineProcess = new EngineProcess<MessagePortMain>({
  fork: () => {
    const child = utilityProcess.fork(engineHostFile, [], { serviceName: 'Phasor engine', stdio: 'inherit' });
    // The host's only request: a channel to the WebGPU window (one per backend it opens).
    child.on('message', (message: unknown) => {
      if (isEngineRequest(message)) void gpuWindow.answer(child, message);
    });
    return child;
  },
  createChannel: () => {
    const { port1, port2 } = new MessageChannelMain();
    return { host: port1, window: port2 };
  },
  deliver: (id, port) => {
    const contents = liveContents(id);
    if (contents) contents.postMessage(PORT_CHANNEL, null, [port]);
    else port.close();
  },
  notify: (id, down) => liveContents(id)?.send(ENGINE_STATE_CHANNEL, down),
  log: (message) => console.error(message),
});

const hub = new IpcHub({
  isAppUrl,
  isAppWebContents: (id) => windows.has(id),
  attach: (id) => engineProcess.attach(id),
  detach: (id) => engineProcess.detach(id),
});

/** The window a renderer's request came from (dialogs are modal to it). */
function windowOf(event: IpcEventLike): BrowserWindow | null {
  return BrowserWindow.fromWebContents((event as IpcMainInvokeEvent).sender);
}

const dialogs = new FileDialogs({
  isAppUrl,
  isAppWebContents: (id) => windows.has(id),
  showOpen: (event, options) => {
    const win = windowOf(event);
    const o = options as ElectronOpenOptions;
    return win ? dialog.showOpenDialog(win, o) : dialog.showOpenDialog(o);
  },
  showSave: (event, options) => {
    const win = windowOf(event);
    const o = options as ElectronSaveOptions;
    return win ? dialog.showSaveDialog(win, o) : dialog.showSaveDialog(o);
  },
  // A file opened (not one to be written) is remembered for Open Recent.
  grant: (id, chosen, beside) => (beside ? grantOpened(id, chosen) : engineProcess.grant(id, chosen, false)),
});

// ---------------------------------------------------------------------------------------------------
// Files opened from outside, Open Recent and the application menu

/** Window `id` may open `file`, which the user chose (a dialog, a drop, the command line, the OS, Open
 * Recent): granted as the Open dialog grants, and remembered as recently opened. */
function grantOpened(id: number, file: string): void {
  engineProcess.grant(id, file, true);
  recent.add(file);
  // The OS's own list (the Dock's and the taskbar's jump list) where there is one.
  if ((process.platform === 'darwin' || process.platform === 'win32') && existsSync(file))
    app.addRecentDocument(file);
}

function appWindow(id: number): BrowserWindow | null {
  const contents = liveContents(id);
  return contents ? BrowserWindow.fromWebContents(contents) : null;
}

const openFiles = new OpenFiles({
  pick: (ready) => {
    const focused = BrowserWindow.getFocusedWindow()?.webContents.id;
    return focused !== undefined && ready.includes(focused) ? focused : (ready[0] ?? null);
  },
  grant: grantOpened,
  send: (id, paths) => liveContents(id)?.send(COMMAND_CHANNEL, { type: 'open-files', paths }),
  focus: (id) => {
    const win = appWindow(id);
    if (!win) return;
    if (win.isMinimized()) win.restore();
    win.focus();
  },
});

const recent = new RecentFiles(path.join(app.getPath('userData'), 'recent-files.json'), {
  changed: () => setMenu(),
});

/** The window a menu item acts on: the one it was used in when that is an app window, else the first. */
function menuTarget(window: unknown): WebContents | null {
  if (window instanceof BrowserWindow && !window.isDestroyed()) {
    const contents = liveContents(window.webContents.id);
    if (contents) return contents;
  }
  const first = windows.keys().next();
  return first.done ? null : liveContents(first.value);
}

let menuSet = false;
/** (Re)builds the application menu: at start, and when Open Recent changes. Only once the app is ready. */
function setMenu(): void {
  if (!menuSet && !app.isReady()) return;
  menuSet = true;
  const template = menuTemplate({
    platform: process.platform,
    recent: recent.list(),
    versions: {
      app: app.getVersion(),
      electron: process.versions.electron ?? '',
      chrome: process.versions.chrome ?? '',
      node: process.versions.node,
    },
    developer: !app.isPackaged,
    send: (command, window) => menuTarget(window)?.send(COMMAND_CHANNEL, command),
    openRecent: (file) => openFiles.open([file]),
    clearRecent: () => {
      recent.clear();
      if (process.platform === 'darwin' || process.platform === 'win32') app.clearRecentDocuments();
    },
  });
  Menu.setApplicationMenu(Menu.buildFromTemplate(template));
}

function createWindow(): void {
  const stateFile = path.join(app.getPath('userData'), 'window-state.json');
  const state = fitToDisplays(
    loadWindowState(stateFile),
    screen.getAllDisplays().map((d) => d.workArea),
  );
  const win = new BrowserWindow({
    ...(state.x !== undefined && state.y !== undefined ? { x: state.x, y: state.y } : {}),
    width: state.width,
    height: state.height,
    minWidth: MIN_WIDTH,
    minHeight: MIN_HEIGHT,
    show: false,
    title: 'Phasor',
    backgroundColor: '#101014',
    webPreferences: {
      preload: preloadFile,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      spellcheck: false,
    },
  });
  const id = win.webContents.id;
  windows.set(id, win.webContents);
  if (state.maximized) win.maximize();
  win.once('ready-to-show', () => win.show());

  const save = (): void => {
    const b = win.getNormalBounds();
    saveWindowState(stateFile, { ...b, maximized: win.isMaximized() });
  };
  win.on('close', save);
  win.on('closed', () => {
    windows.delete(id);
    openFiles.gone(id);
    hub.disconnect(id);
    // The hidden WebGPU window must not keep the app open once the last app window is gone.
    if (windows.size === 0) gpuWindow.close();
  });
  // A reload connects again (replacing the old connection); a crash ends it.
  win.webContents.on('render-process-gone', () => {
    openFiles.gone(id);
    hub.disconnect(id);
  });
  void win.loadURL(devUrl ?? APP_URL);
}

function serveApp(): void {
  const headers = securityHeaders(contentSecurityPolicy());
  protocol.handle(SCHEME, async (request) => {
    const url = new URL(request.url);
    if (url.host === 'gpu') {
      const page = '<!doctype html><meta charset="utf-8"><title>Phasor WebGPU</title>';
      return new Response(page, { status: 200, headers: { ...headers, 'Content-Type': 'text/html' } });
    }
    const found = url.host === 'app' ? resolveAppFile(rendererDir, url.pathname) : null;
    if (!found) return new Response('not found', { status: 404, headers });
    const body = await readFile(found.file);
    return new Response(body, { status: 200, headers: { ...headers, 'Content-Type': found.type } });
  });
  if (devUrl !== undefined) {
    // The dev server's page gets the same policy, plus its hot-reload socket.
    const devCsp = contentSecurityPolicy({ connect: ['ws://localhost:*', 'ws://127.0.0.1:*'] });
    session.defaultSession.webRequest.onHeadersReceived((details, callback) => {
      callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [devCsp] } });
    });
  }
}

function lockDown(): void {
  // Nothing here needs the camera, notifications, geolocation… (the microphone is captured by the engine
  // process, not the page): refuse every permission but the clipboard (snapshots) and full screen.
  const allowed = new Set(['clipboard-sanitized-write', 'fullscreen']);
  session.defaultSession.setPermissionRequestHandler((_wc, permission, callback) =>
    callback(allowed.has(permission)),
  );
  session.defaultSession.setPermissionCheckHandler((_wc, permission) => allowed.has(permission));
  app.on('web-contents-created', (_e, contents) => guardContents(contents));
}

// Where the GPU cannot be used (blocklisted drivers, virtual machines, remote desktops) Chromium now refuses
// WebGL rather than fall back to its software renderer; the waterfall is WebGL2, so allow the fallback.
// A usable GPU is still preferred: the flag only changes what happens when there is none.
app.commandLine.appendSwitch('enable-unsafe-swiftshader');
// WebGPU for the engine (gpu-window.ts): Linux Chromium offers navigator.gpu only with these.
const vulkanDriver =
  process.platform !== 'linux' ||
  linuxVulkanDriver(process.env, (dir) => {
    try {
      return readdirSync(dir);
    } catch {
      return [];
    }
  });
for (const [name, value] of webGpuSwitches(process.platform, vulkanDriver))
  app.commandLine.appendSwitch(name, value);

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  // The files on this launch's command line (argv on Linux and Windows, from a shell or the file
  // manager) wait for the first window.
  openFiles.open(
    filesFromArgv(process.argv, { defaultApp: process.defaultApp === true, cwd: process.cwd() }),
  );
  // A second launch quits at once (above) and hands its command line here: its files, resolved against
  // the folder it ran in, open in the running window, which comes to the front.
  app.on('second-instance', (_event, argv, workingDirectory) => {
    const files = filesFromArgv(argv, { defaultApp: process.defaultApp === true, cwd: workingDirectory });
    const first = windows.values().next().value;
    const win = first ? BrowserWindow.fromWebContents(first) : null;
    if (win) {
      if (win.isMinimized()) win.restore();
      win.focus();
    } else if (app.isReady()) createWindow();
    openFiles.open(files);
  });
  // macOS hands files opened from the Finder or the Dock here, also before 'ready' (at launch).
  app.on('open-file', (event, file) => {
    event.preventDefault();
    openFiles.open([path.resolve(file)]);
    if (app.isReady() && windows.size === 0) createWindow();
  });
  ipcMain.handle(CONNECT_CHANNEL, (event, payload: unknown) => {
    const reply = hub.handleConnect(event as IpcEventLike, payload);
    // Connected: what the user gave the app from outside can be granted to this window and opened.
    if (reply.ok) openFiles.ready((event as IpcEventLike).sender.id);
    return reply;
  });
  ipcMain.handle(CHOOSE_FILE_CHANNEL, (event, payload: unknown) => dialogs.handle(event, payload));
  ipcMain.on(GRANT_DROPPED_CHANNEL, (event, payload: unknown) => {
    event.returnValue = dialogs.handleDropped(event, payload);
  });
  void app.whenReady().then(() => {
    lockDown();
    serveApp();
    setMenu();
    engineProcess.start();
    createWindow();
    app.on('activate', () => {
      if (windows.size === 0) createWindow();
    });
  });
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  // The engine host stops its capture and its backends before it exits (engine-host/index.ts): wait for
  // it, at most 2 s, then quit anyway (the host is killed).
  let cleaned = false;
  app.on('will-quit', (event) => {
    if (cleaned) return;
    event.preventDefault();
    hub.closeAll();
    void engineProcess
      .stop(2000)
      .catch(() => undefined)
      .finally(() => {
        cleaned = true;
        app.quit();
      });
  });
}
