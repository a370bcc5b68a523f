import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { PhasorError } from '../../engine/errors.js';
import { shutdownAudio } from '../../engine/sources/mic.js';
import { interrupt, parseIntOption } from '../util.js';
import { packageRoot, startWebServer } from '../web/server.js';

interface ServeCli {
  port: number;
  host: string;
  appDir?: string;
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
      const server = await startWebServer({ host: opts.host, port: opts.port, appDir }).catch(
        (err: NodeJS.ErrnoException) => {
          if (err.code === 'EADDRINUSE') {
            throw new PhasorError(
              'io',
              `port ${opts.port} is in use: choose another with --port (0 picks a free one)`,
            );
          }
          if (err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND') {
            throw new PhasorError('io', `cannot listen on ${opts.host}: no such address on this machine`);
          }
          if (err.code === 'EACCES')
            throw new PhasorError('io', `not allowed to listen on port ${opts.port}`);
          throw err;
        },
      );
      process.stdout.write(`${server.url}\n`);
      process.stderr.write(
        server.token !== null
          ? `phasor: serving on ${opts.host}:${server.port}; the URL above carries the access token (Ctrl-C stops)\n`
          : `phasor: serving on ${opts.host}:${server.port} (this machine only; Ctrl-C stops)\n`,
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
