import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { isIP } from 'node:net';
import { createSecureContext } from 'node:tls';
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
  tlsCert?: string;
  tlsKey?: string;
}

interface Tls {
  cert: Buffer;
  key: Buffer;
  /** Whether the certificate is valid for a host name or address, as a browser checks it (its
   * subjectAltName; browsers ignore the subject's CN). */
  covers(host: string): boolean;
}

function readPem(file: string, flag: string): Buffer {
  try {
    return readFileSync(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EACCES'
          ? 'not allowed to read it'
          : code === 'EISDIR'
            ? 'a folder, not a file'
            : `cannot read it (${code ?? String(e)})`;
    throw new PhasorError('io', `${why} (${flag})`, { file: path.resolve(file) });
  }
}

/** Reads and checks --tls-cert and --tls-key before anything listens: each must hold what its flag says,
 * in PEM, and the key must be the certificate's. Each problem is one line naming the file. */
export function loadTls(certFile: string, keyFile: string): Tls {
  const cert = readPem(certFile, '--tls-cert');
  const key = readPem(keyFile, '--tls-key');
  const certPath = path.resolve(certFile);
  const keyPath = path.resolve(keyFile);
  const holdsKey = (b: Buffer) => /-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(b.toString('latin1'));
  let x509: X509Certificate;
  try {
    if (!cert.toString('latin1').includes('-----BEGIN CERTIFICATE-----')) throw new Error('no PEM');
    x509 = new X509Certificate(cert);
  } catch {
    throw new PhasorError(
      'corrupt',
      holdsKey(cert)
        ? 'holds a private key, not a certificate (--tls-cert; swapped with --tls-key?)'
        : 'not a PEM certificate (--tls-cert wants -----BEGIN CERTIFICATE-----)',
      { file: certPath },
    );
  }
  let privateKey: KeyObject;
  try {
    if (!holdsKey(key)) throw new Error('no PEM');
    privateKey = createPrivateKey(key);
  } catch {
    const text = key.toString('latin1');
    throw new PhasorError(
      'corrupt',
      /ENCRYPTED PRIVATE KEY|Proc-Type: 4,ENCRYPTED/.test(text)
        ? 'the private key is encrypted: phasor serve needs it unencrypted (--tls-key)'
        : text.includes('-----BEGIN CERTIFICATE-----')
          ? 'holds a certificate, not a private key (--tls-key; swapped with --tls-cert?)'
          : 'not a PEM private key (--tls-key wants -----BEGIN PRIVATE KEY-----)',
      { file: keyPath },
    );
  }
  if (!x509.checkPrivateKey(privateKey)) {
    throw new PhasorError('invalid-argument', `is not the key of the certificate ${certPath} (--tls-key)`, {
      file: keyPath,
    });
  }
  try {
    // What else OpenSSL refuses (a key too weak for its security level, say).
    createSecureContext({ cert, key });
  } catch (e) {
    const why = (e as Error).message;
    throw new PhasorError('invalid-argument', `cannot serve TLS with it: ${why} (--tls-cert)`, {
      file: certPath,
    });
  }
  const covers = (host: string): boolean => {
    const h = host.replace(/^\[|\]$/g, '');
    return isIP(h) ? x509.checkIP(h) !== undefined : x509.checkHost(h, { subject: 'never' }) !== undefined;
  };
  return { cert, key, covers };
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
    .description(
      'web mode: serve the app and the engine to a browser (http + WebSocket on one port; https + wss with --tls-cert)',
    )
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
    .option('--tls-cert <file>', 'serve HTTPS and wss with this certificate (PEM; with --tls-key)')
    .option('--tls-key <file>', "the certificate's private key (PEM, unencrypted; with --tls-cert)")
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
      if ((opts.tlsCert === undefined) !== (opts.tlsKey === undefined)) {
        throw new PhasorError(
          'invalid-argument',
          `${opts.tlsCert === undefined ? '--tls-key' : '--tls-cert'} needs ` +
            `${opts.tlsCert === undefined ? '--tls-cert' : '--tls-key'}: give both or neither`,
        );
      }
      const tls = opts.tlsCert !== undefined ? loadTls(opts.tlsCert, opts.tlsKey!) : undefined;
      const server = await startWebServer({
        host: opts.host,
        port: opts.port,
        appDir,
        roots,
        network: opts.rtlTcp.length > 0 ? opts.rtlTcp : DEFAULT_NETWORK_GRANTS,
        ...(opts.maxUpload !== undefined ? { maxUploadBytes: opts.maxUpload } : {}),
        ...(tls ? { tls: { cert: tls.cert, key: tls.key }, certCovers: tls.covers } : {}),
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
      const shown = new URL(server.url).hostname;
      if (tls && !tls.covers(shown)) {
        process.stderr.write(
          `phasor: warning: the certificate ${path.resolve(opts.tlsCert!)} is not for ${shown} ` +
            `(its subjectAltName: ${new X509Certificate(tls.cert).subjectAltName ?? 'none'}): ` +
            `a browser will refuse it there\n`,
        );
      }
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
