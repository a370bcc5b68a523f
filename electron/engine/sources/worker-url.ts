// Finding a worker script beside a module, whether the engine runs compiled (dist/), bundled (the
// Electron main process: every worker is an entry beside out/main/index.js) or from TypeScript sources
// under vitest (through tsx, whose loader a worker must register itself: Node 20 workers inherit neither
// the parent's loader hooks nor a working `--import tsx`).

import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

export interface WorkerScript {
  url: URL;
  /** tsx's ESM API, registered before the script when it is TypeScript. */
  tsLoader?: URL;
}

/**
 * The first existing script among `candidates` (paths relative to `base`, without extension): `.js` when
 * `base` is compiled, `.ts` (with tsx) when it is a TypeScript source. Undefined when none exists.
 */
export function findWorkerScript(base: string, candidates: readonly string[]): WorkerScript | undefined {
  const fromSources = base.endsWith('.ts');
  for (const c of candidates) {
    const url = new URL(`${c}${fromSources ? '.ts' : '.js'}`, base);
    if (!existsSync(fileURLToPath(url))) continue;
    if (!fromSources) return { url };
    const tsLoader = tsxLoader(base);
    return tsLoader ? { url, tsLoader } : undefined;
  }
  return undefined;
}

function tsxLoader(base: string): URL | undefined {
  try {
    const req = createRequire(base);
    const pkg = req.resolve('tsx/package.json');
    const esm = path.join(path.dirname(pkg), 'dist/esm/api/index.mjs');
    return pathToFileURL(existsSync(esm) ? esm : req.resolve('tsx/esm/api'));
  } catch {
    return undefined;
  }
}

/** Starts a worker on the script (registering tsx first for TypeScript). */
export function startWorker(script: WorkerScript, options: WorkerOptions = {}): Worker {
  if (script.tsLoader === undefined) return new Worker(script.url, options);
  const boot =
    `import(${JSON.stringify(script.tsLoader.href)})` +
    `.then((m) => { (m.register ?? m.default.register)(); return import(${JSON.stringify(script.url.href)}); })`;
  return new Worker(boot, { ...options, eval: true });
}
