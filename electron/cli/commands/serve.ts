import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { PhasorError } from '../../engine/errors.js';
import { DEFAULT_NETWORK_GRANTS, formatEndpoint, parseEndpoint } from '../../engine/live/network-access.js';
import { shutdownAudio } from '../../engine/sources/mic.js';
import { interrupt, parseIntOption } from '../util.js';
import { isLoopbackHost } from '../web/security.js';
import { packageRoot, startWebServer } from '../web/server.js';

interface ServeCli {
  port: number;
  host: string;
  appDir?: string;
  root: string[];
  rtlTcp: string[];
  maxUpload?: number;
}

/** A byte count: digits with an optional K, M, G or T (powers of 1024). */
function parseBytes(v: string, name: string): number {
  const m = /^(\d+)([KMGT]i?B?)?$/i.exec(v.trim());
  const unit = m?.[2]?.[0].toUpperCase();
  const n = m ? Number(m[1]) * 1024 ** (unit ? 'KMGT'.indexOf(unit) + 1 : 0) : NaN;
  if (!Number.isSafeInteger(n) || n < 1)
    throw new PhasorError('invalid-argument', `${name} must be a size in bytes such as 512M or 8G, got ${v}`);
  return n;
}

export const DEFAULT_PORT = 5917;

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('web mode: serve the app and the engine to a browser (http + WebSocket on one port)')
    .option(
      '--port <p>',
      `port (0: any free port, printed)`,
      (v) => parseIntOption(v, '--port', 0),
      DEFAULT_PORT,
    )
    .option(
      '--host <address>',
      'address to listen on; anything but loopback requires the printed access token',
      '127.0.0.1',
    )
    .option('--app-dir <dir>', 'the built renderer (default: out/renderer of the Phasor folder)')
    .option(
      '--root <dir>',
      'a folder clients may open, list and write in (repeatable; default: the current folder)',
      (v: string, all: string[]) => [...all, v],
      [] as string[],
    )
    .option(
      '--rtl-tcp <host:port>',
      `an rtl_tcp server clients may connect to (repeatable; default ${DEFAULT_NETWORK_GRANTS.join(', ')})`,
      (v: string, all: string[]) => [...all, formatEndpoint(parseEndpoint(v, '--rtl-tcp'))],
      [] as string[],
    )
    .option('--max-upload <bytes>', 'largest file a page may upload, e.g. 512M or 8G (default 64G)', (v) =>
      parseBytes(v, '--max-upload'),
    )
    .action(async (opts: ServeCli) => {
      if (opts.port > 65535)
        throw new PhasorError('invalid-argument', `--port must be at most 65535, got ${opts.port}`);
      const root = packageRoot();
      const appDir = path.resolve(opts.appDir ?? path.join(root ?? process.cwd(), 'out', 'renderer'));
      if (!existsSync(path.join(appDir, 'index.html'))) {
        throw new PhasorError(
          'io',
          `the app is not built (no ${path.join(appDir, 'index.html')}): run npm run build:app`,
        );
      }
      const roots = opts.root.length > 0 ? opts.root : [process.cwd()];
      for (const r of roots) {
        let ok = false;
        try {
          ok = statSync(r).isDirectory();
        } catch {
          // said below
        }
        if (!ok) throw new PhasorError('io', 'no such folder (--root)', { file: path.resolve(r) });
      }
      const server = await startWebServer({
        host: opts.host,
        port: opts.port,
        appDir,
        roots,
        network: opts.rtlTcp.length > 0 ? opts.rtlTcp : DEFAULT_NETWORK_GRANTS,
        ...(opts.maxUpload !== undefined ? { maxUploadBytes: opts.maxUpload } : {}),
      }).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'EADDRINUSE') {
          throw new PhasorError(
            'io',
            `port ${opts.port} is in use: choose another with --port (0 picks a free one)`,
          );
        }
        if (err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND') {
          throw new PhasorError('io', `cannot listen on ${opts.host}: no such address on this machine`);
        }
        if (err.code === 'EACCES') throw new PhasorError('io', `not allowed to listen on port ${opts.port}`);
        throw err;
      });
      process.stdout.write(`${server.url}\n`);
      const where = isLoopbackHost(opts.host) ? 'this machine only' : 'reachable from the network';
      process.stderr.write(
        `phasor: serving ${roots.map((r) => path.resolve(r)).join(', ')} on ${opts.host}:${server.port} ` +
          `(${where}; rtl_tcp: ${(opts.rtlTcp.length > 0 ? opts.rtlTcp : DEFAULT_NETWORK_GRANTS).join(', ')}); ` +
          `open the URL above, it carries the access token (Ctrl-C stops)\n`,
      );
      await new Promise<void>((resolve) => {
        if (interrupt.signal.aborted) resolve();
        interrupt.signal.addEventListener('abort', () => resolve(), { once: true });
        process.once('SIGTERM', () => resolve());
      });
      await server.close();
      // Stop capture cleanly before the process goes (see mic-worker.ts).
      await shutdownAudio();
    });
}
