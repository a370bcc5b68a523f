// Builds the browser side of the WebGPU bridge for chromium-bridge.test.ts and bench/webgpu/chromium.ts with
// Vite, as electron-vite builds it for the desktop app: the Node-only imports replaced by the stub
// (bridge/browser-build.ts) and shaders/*.wgsl inlined as text (bridge/shader-text.ts); and serves it.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import type { Rollup } from 'vite';
import { WebSocketServer, type WebSocket } from 'ws';
import { browserStubs } from '../../electron/engine/backends/webgpu/bridge/browser-build.js';
import type { BridgePort } from '../../electron/engine/backends/webgpu/bridge/protocol.js';
import { socketPort, type SocketLike } from '../../electron/engine/backends/webgpu/bridge/wire.js';

const here = (p: string): string => fileURLToPath(new URL(p, import.meta.url));

export async function buildBridgePage(): Promise<Map<string, string>> {
  // imported here, so that a bundle of the bench that serves a page built beforehand runs without Vite
  const { build } = await import('vite');
  const result = await build({
    configFile: false,
    logLevel: 'error',
    root: here('../..'),
    plugins: [browserStubs()],
    build: {
      write: false,
      target: 'es2022',
      minify: false,
      modulePreload: false,
      rolldownOptions: {
        input: {
          page: here('./bridge-page.ts'),
          worker: here('../../electron/engine/backends/webgpu/bridge/worker.ts'),
        },
        output: { format: 'es', entryFileNames: '[name].js', chunkFileNames: '[name]-[hash].js' },
      },
    },
  });
  const outputs = (Array.isArray(result) ? result : [result]) as Rollup.RollupOutput[];
  const files = new Map<string, string>();
  for (const o of outputs)
    for (const f of o.output) files.set(f.fileName, f.type === 'chunk' ? f.code : String(f.source));
  return files;
}

/** The bridge page served on 127.0.0.1 with its WebSocket relay (chromium-bridge.test.ts and
 * bench/webgpu/chromium.ts): `open` loads a new page in `browser` (its own worker, device and socket) and
 * returns the port to it and the page. */
export interface BridgeServer {
  origin: string;
  open(browser: Browser, log?: string[]): Promise<{ port: BridgePort; page: Page }>;
  close(): void;
}

/** `files`: the page's scripts as buildBridgePage gives them (built beforehand); built now if omitted. */
export async function serveBridgePage(files?: Map<string, string>): Promise<BridgeServer> {
  files ??= await buildBridgePage();
  const scripts = files;
  const html =
    '<!doctype html><meta charset="utf-8"><title>bridge</title><script type="module" src="/page.js"></script>';
  const server = createServer((req, res) => {
    const name = (req.url ?? '/').slice(1);
    if (name === 'favicon.ico') {
      res.writeHead(204).end();
    } else if (name === '') {
      res.writeHead(200, { 'Content-Type': 'text/html' }).end(html);
    } else if (scripts.has(name)) {
      res.writeHead(200, { 'Content-Type': 'text/javascript' }).end(scripts.get(name));
    } else {
      res.writeHead(404).end();
    }
  });
  const sockets = new WebSocketServer({ server, path: '/bridge' });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    async open(browser, log) {
      const connected = new Promise<WebSocket>((resolve) => sockets.once('connection', resolve));
      const page = await browser.newPage();
      page.on('console', (m) => log?.push(`${m.type()}: ${m.text()}`));
      page.on('pageerror', (e) => log?.push(`error: ${e.message}`));
      await page.goto(`${origin}/`);
      const ws = await connected;
      ws.binaryType = 'arraybuffer';
      return { port: socketPort(ws as unknown as SocketLike), page };
    },
    close() {
      sockets.close();
      server.close();
    },
  };
}
