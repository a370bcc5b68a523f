// Web mode: the built renderer over HTTP and the engine protocol over a WebSocket (/ws) on the same port;
// with a certificate and key (`tls`), HTTPS and wss instead, and plain HTTP only told to use https.
//
// Every request needs the access token, on loopback too (any local process could connect otherwise):
// `?token=` on the first page load (then an HttpOnly SameSite=Strict cookie, Secure over TLS) and on the
// WebSocket URL, compared in constant time. The printed URL carries it; nothing the server answers without
// the token holds it. Bound to a loopback address, the Host header must also be a loopback name (no DNS
// rebinding); a browser's Origin must be the page's own (https:// over TLS). The same checks guard
// `PUT /upload?name=` (upload.ts), through which the page hands the engine a file dropped on it.
//
// A client reads, lists and writes only inside the roots (`--root`, default the current folder) and the
// server's upload folder (engine/offline/access.ts), and has the engine connect only to the rtl_tcp servers
// granted (`--rtl-tcp`, default port 1234 on this machine: engine/live/network-access.ts). What is queued for a client is bounded: while more
// than HIGH_WATER bytes wait to go out, its requests are not read and its large replies wait; a client
// that reads nothing of them for `stallMs` is dropped (close code 4008) and its jobs cancelled.

import { createReadStream, existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { createEngineConnection } from '../../engine/live/connection.js';
import { Engine } from '../../engine/live/engine.js';
import { DEFAULT_NETWORK_GRANTS, NetworkAccess } from '../../engine/live/network-access.js';
import { FileAccess } from '../../engine/offline/access.js';
import { resolveAppFile } from './files.js';
import { UPLOAD_PATH, UploadStore } from './upload.js';
import { contentSecurityPolicy, isLoopbackHost, newToken, securityHeaders, tokensEqual } from './security.js';

export const WS_PATH = '/ws';
const COOKIE = 'phasor_token';
/** WebSocket close code for a missing or wrong token (the renderer tells the user to use the printed URL). */
export const CLOSE_UNAUTHORIZED = 4401;
/** WebSocket close code for a client dropped because it did not read what was sent to it. */
export const CLOSE_NOT_READING = 4008;
/** Bytes queued for a client above which its requests wait (a reply may be larger: it goes out whole). */
export const HIGH_WATER = 16 << 20;
/** How long a client over HIGH_WATER may read nothing before it is dropped, unless PHASOR_SERVE_STALL_MS says. */
export const DEFAULT_STALL_MS = 30_000;
/** Over TLS, how long a new connection may send nothing before it is closed (ms). */
const SNIFF_TIMEOUT_MS = 30_000;

function stallFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.PHASOR_SERVE_STALL_MS);
  return env.PHASOR_SERVE_STALL_MS && Number.isFinite(n) && n > 0 ? n : DEFAULT_STALL_MS;
}

export interface WebServerOptions {
  /** Address to bind (default 127.0.0.1). */
  host?: string;
  /** Port (0: a free one). */
  port: number;
  /** The built renderer (index.html and its assets). */
  appDir: string;
  /** Access token (default: a random one); `null` for none (tests of the engine only). */
  token?: string | null;
  /** Folders (or files) clients may read, list and write in (default: the current folder). */
  roots?: readonly string[];
  /** HOST:PORT endpoints a networked source (rtl_tcp) may reach (default DEFAULT_NETWORK_GRANTS); 'any'
   * for no restriction. */
  network?: readonly string[] | 'any';
  engine?: Engine;
  /** Where the server's upload folder is made (default: the system's temporary folder). */
  uploadParent?: string;
  /** Free bytes an upload must leave on the disk (default: PHASOR_UPLOAD_RESERVE_BYTES, else 1 GiB). */
  uploadReserveBytes?: number;
  /** Largest upload accepted, in bytes (default DEFAULT_MAX_UPLOAD). */
  maxUploadBytes?: number;
  /** How long a client with more than HIGH_WATER bytes queued may read nothing before it is dropped (ms). */
  stallMs?: number;
  /** One line for the operator (a dropped client); default stderr. */
  log?: (line: string) => void;
  /** Serve HTTPS and wss with this certificate (chain) and private key, both PEM; absent: plain HTTP. */
  tls?: { cert: string | Buffer; key: string | Buffer };
  /** With tls: whether the certificate is valid for a host name or address (the printed URL prefers one
   * it is). */
  certCovers?: (host: string) => boolean;
}

export interface WebServer {
  /** What a person opens (with the token when one is required). */
  readonly url: string;
  readonly port: number;
  readonly host: string;
  readonly token: string | null;
  close(): Promise<void>;
}

function cookieToken(req: IncomingMessage): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === COOKIE) return v.join('=');
  }
  return undefined;
}

function hostName(hostHeader: string | undefined): string {
  if (!hostHeader) return '';
  const m = /^(\[[^\]]*\]|[^:]*)/.exec(hostHeader);
  return (m ? m[1] : hostHeader).toLowerCase();
}

/** A URL host for printing: an unspecified bind address becomes this machine's first external IPv4, the
 * first one the certificate is valid for when `covers` is given and one is. */
function displayHost(host: string, covers?: (host: string) => boolean): string {
  if (host !== '0.0.0.0' && host !== '::') return host.includes(':') ? `[${host}]` : host;
  const external: string[] = [];
  for (const list of Object.values(os.networkInterfaces())) {
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) external.push(a.address);
  }
  return external.find((a) => covers?.(a)) ?? external[0] ?? '127.0.0.1';
}

export async function startWebServer(options: WebServerOptions): Promise<WebServer> {
  const host = options.host ?? '127.0.0.1';
  const secure = options.tls !== undefined;
  const scheme = secure ? 'https' : 'http';
  const loopback = isLoopbackHost(host);
  const token = options.token === undefined ? newToken() : options.token;
  const log = options.log ?? ((line: string) => process.stderr.write(line + '\n'));
  const stallMs = options.stallMs ?? stallFromEnv();
  const access = new FileAccess(options.roots ?? [process.cwd()], {
    hint: 'start phasor serve with --root to allow it',
  });
  const network = new NetworkAccess(options.network ?? DEFAULT_NETWORK_GRANTS, { flag: '--rtl-tcp' });
  const appDir = path.resolve(options.appDir);
  const ownEngine = options.engine === undefined;
  const engine = options.engine ?? new Engine();
  const uploads = new UploadStore({
    ...(options.uploadParent !== undefined ? { parent: options.uploadParent } : {}),
    ...(options.uploadReserveBytes !== undefined ? { reserveBytes: options.uploadReserveBytes } : {}),
    ...(options.maxUploadBytes !== undefined ? { maxBytes: options.maxUploadBytes } : {}),
    // Uploads are opened by the page that sent them.
    onFolder: (dir) => access.grant(dir),
  });

  /** Null when the request may go on; else why not. */
  const refuse = (req: IncomingMessage, url: URL): { status: number; text: string } | null => {
    if (loopback && !isLoopbackHost(hostName(req.headers.host))) {
      return {
        status: 403,
        text: 'Phasor serves this machine only: open it through 127.0.0.1 or localhost.',
      };
    }
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== `${scheme}://${req.headers.host}`) {
      return { status: 403, text: 'Phasor refuses requests from other sites.' };
    }
    if (token !== null) {
      const given = url.searchParams.get('token') ?? cookieToken(req);
      if (given === undefined || given === null || !tokensEqual(given, token)) {
        return {
          status: 401,
          text: 'Phasor needs its access token: open the URL that `phasor serve` printed.',
        };
      }
    }
    return null;
  };

  const send = (res: ServerResponse, status: number, text: string, headers: Record<string, string>): void => {
    res.writeHead(status, {
      ...headers,
      'Content-Type': 'text/plain; charset=utf-8',
      'Cache-Control': 'no-store',
    });
    res.end(text + '\n');
  };

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const wsScheme = secure ? 'wss' : 'ws';
    const csp = contentSecurityPolicy({
      connect: req.headers.host ? [`${wsScheme}://${req.headers.host}`] : [],
    });
    // The page may ask for its own microphone (the browser-mic source); the desktop app's policy stays none.
    const headers = securityHeaders(csp, { microphone: true });
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://localhost');
    } catch {
      send(res, 400, 'bad request', headers);
      return;
    }
    const no = refuse(req, url);
    if (no) {
      if (url.pathname === UPLOAD_PATH) {
        // Never read a refused upload's body: answer and hang up.
        send(res, no.status, no.text, { ...headers, Connection: 'close' });
        res.once('finish', () => req.destroy());
        return;
      }
      send(res, no.status, no.text, headers);
      return;
    }
    if (url.pathname === UPLOAD_PATH) {
      void uploads.handle(req, res, url, headers);
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      send(res, 405, 'method not allowed', { ...headers, Allow: 'GET, HEAD' });
      return;
    }
    const found = resolveAppFile(appDir, url.pathname);
    if (!found) {
      send(res, 404, 'not found', headers);
      return;
    }
    const ext = path.extname(found.file).toLowerCase();
    const out: Record<string, string> = {
      ...headers,
      'Content-Type': found.type,
      'Content-Length': String(found.size),
      'Cache-Control': ext === '.html' ? 'no-cache' : 'public, max-age=3600',
    };
    // The first page load carries the token in the URL; keep it for the page's assets.
    if (token !== null && url.searchParams.has('token')) {
      out['Set-Cookie'] = `${COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/${secure ? '; Secure' : ''}`;
    }
    res.writeHead(200, out);
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    const stream = createReadStream(found.file);
    stream.on('error', () => res.destroy());
    stream.pipe(res);
  };
  const server = options.tls
    ? createHttpsServer({ cert: options.tls.cert, key: options.tls.key }, handle)
    : createServer(handle);
  // Over TLS each new connection's first byte is looked at before the TLS server's own connection handler
  // sees it: a TLS handshake (0x16) goes on to it; anything else (http://, ws://) gets one plain-text 400
  // saying to use https, which holds no token, and is hung up on. One that sends nothing is closed.
  const sniffing = new Set<Socket>();
  if (secure) {
    const tlsHandlers = server.listeners('connection') as Array<(socket: Socket) => void>;
    server.removeAllListeners('connection');
    server.on('connection', (socket: Socket) => {
      sniffing.add(socket);
      socket.on('error', () => socket.destroy());
      socket.once('close', () => sniffing.delete(socket));
      socket.setTimeout(SNIFF_TIMEOUT_MS, () => socket.destroy());
      socket.once('data', (chunk: Buffer) => {
        if (chunk[0] === 0x16) {
          socket.pause();
          socket.setTimeout(0);
          socket.unshift(chunk);
          sniffing.delete(socket);
          for (const h of tlsHandlers) h.call(server, socket);
          return;
        }
        // Whatever else it sends is read and dropped until it hangs up (or the timeout above).
        socket.resume();
        const text = 'Phasor serves https on this port: open the https:// URL that `phasor serve` printed.\n';
        socket.end(
          'HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\n' +
            `Content-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
        );
      });
    });
  }

  const wss = new WebSocketServer({ noServer: true, maxPayload: 1 << 20 });
  const sockets = new Set<WebSocket>();

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://localhost');
    } catch {
      socket.destroy();
      return;
    }
    if (url.pathname !== WS_PATH) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
      return;
    }
    const no = refuse(req, url);
    if (no && no.status !== 401) {
      socket.end(`HTTP/1.1 ${no.status} Forbidden\r\nConnection: close\r\n\r\n`);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      if (no) {
        // Accepted only to say why with a close code the page understands; nothing reaches the engine.
        ws.close(CLOSE_UNAUTHORIZED, 'access token required');
        return;
      }
      attach(ws);
    });
  });

  const attach = (ws: WebSocket): void => {
    sockets.add(ws);
    let dropped = false;
    let over: ReturnType<typeof setInterval> | null = null;
    let overSince = 0;
    const waiting: Array<() => void> = [];
    const wake = (): void => {
      for (const w of waiting.splice(0)) w();
    };
    const drop = (): void => {
      if (dropped) return;
      dropped = true;
      const mib = (ws.bufferedAmount / 2 ** 20).toFixed(0);
      log(
        `phasor: dropped a client that did not read for ${Math.round(stallMs / 1000)} s (${mib} MiB queued)`,
      );
      ws.close(CLOSE_NOT_READING, 'the client did not read what was sent to it');
      // The close frame waits behind the unread bytes: hang up so they are freed now.
      setTimeout(() => ws.terminate(), 1000).unref();
      end();
    };
    // Watches a client over the high-water mark: resumes it once it has read down, drops it when it has
    // read nothing for stallMs (a slow link that is still reading keeps its connection).
    const watch = (): void => {
      if (over || dropped) return;
      overSince = Date.now();
      let last = ws.bufferedAmount;
      ws.pause();
      over = setInterval(() => {
        if (ws.readyState !== ws.OPEN) return;
        const amount = ws.bufferedAmount;
        if (amount <= HIGH_WATER / 2) {
          clearInterval(over!);
          over = null;
          ws.resume();
          wake();
          return;
        }
        if (amount < last) overSince = Date.now();
        last = amount;
        if (Date.now() - overSince > stallMs) drop();
      }, 50);
      over.unref();
    };
    const conn = createEngineConnection(
      (msg) => {
        if (dropped || ws.readyState !== ws.OPEN) return;
        if (msg instanceof ArrayBuffer) ws.send(msg, { binary: true });
        else ws.send(JSON.stringify(msg));
        if (ws.bufferedAmount > HIGH_WATER) watch();
      },
      {
        engine,
        access,
        network,
        clientAudio: true,
        drained: () =>
          new Promise<void>((resolve) => {
            if (dropped || ws.readyState !== ws.OPEN || ws.bufferedAmount <= HIGH_WATER) resolve();
            else waiting.push(resolve);
          }),
      },
    );
    ws.on('message', (data: RawData, isBinary: boolean) => {
      // Binary messages are audio blocks of the page's own microphone (engine/protocol/audio-frames.ts).
      if (isBinary) conn.receive(Array.isArray(data) ? Buffer.concat(data) : data);
      else conn.receive(Array.isArray(data) ? Buffer.concat(data).toString('utf8') : data.toString('utf8'));
    });
    let alive = true;
    ws.on('pong', () => (alive = true));
    const ping = setInterval(() => {
      if (!alive) {
        ws.terminate();
        return;
      }
      alive = false;
      ws.ping();
    }, 30000);
    ping.unref();
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      clearInterval(ping);
      if (over) clearInterval(over);
      over = null;
      sockets.delete(ws);
      conn.close();
      wake();
    };
    ws.on('close', end);
    ws.on('error', end);
  };

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const shown = displayHost(host, secure ? options.certCovers : undefined);
  const url = `${scheme}://${shown}:${port}/${token !== null ? `?token=${token}` : ''}`;
  return {
    url,
    port,
    host,
    token,
    close: async () => {
      for (const ws of sockets) ws.terminate();
      await new Promise<void>((r) => wss.close(() => r()));
      server.closeAllConnections();
      for (const socket of sniffing) socket.destroy();
      await new Promise<void>((r) => server.close(() => r()));
      await uploads.dispose();
      if (ownEngine) await engine.dispose();
    },
  };
}

/** The Phasor folder (holding package.json) above a module. */
export function packageRoot(from: string = import.meta.url): string | undefined {
  let dir = path.dirname(fileURLToPath(from));
  for (let i = 0; i < 8; i++) {
    if (existsSync(path.join(dir, 'package.json')) && existsSync(path.join(dir, 'electron'))) return dir;
    const up = path.dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return undefined;
}
