// The desktop app built for a test (electron-vite, as `npm run build:app` does) and a way to run its main
// process in plain Node against the stand-in for Electron (fake-electron/).
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { root } from '../support/cli.js';

/** A build folder inside the project (out/ is ignored by git), so the bundle resolves node_modules. */
export function buildFolder(name: string): string {
  return join(root, 'out', `.test-${name}-${process.pid}`);
}

export function buildApp(out: string): SpawnSyncReturns<string> {
  mkdirSync(out, { recursive: true });
  const bin = join(root, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js');
  return spawnSync(process.execPath, [bin, 'build', '--outDir', out, '--logLevel', 'error'], {
    cwd: root,
    encoding: 'utf8',
    timeout: 120000,
  });
}

/** Removes the build, unless KEEP_BUILD is set (to look at it). */
export function removeBuild(out: string): void {
  if (!process.env.KEEP_BUILD) rmSync(out, { recursive: true, force: true });
}

/** Builds the app before the file's tests (out/.test-<name>-<pid>) and removes it after them. */
export function useAppBuild(name: string): { out: string; result(): SpawnSyncReturns<string> } {
  const out = buildFolder(name);
  let result: SpawnSyncReturns<string> | undefined;
  beforeAll(() => {
    result = buildApp(out);
  }, 130000);
  afterAll(() => removeBuild(out));
  return {
    out,
    result: () => {
      if (!result) throw new Error('the app was not built');
      return result;
    },
  };
}

/** The user-data folder the stand-in gives the main process (made by mainScript). */
export function userDataOf(out: string): string {
  return join(out, 'user-data');
}

/**
 * A script for runWithFakeElectron: loads the stand-in (`fake` is its state), runs `setup` (e.g. the
 * command line: process.argv), the built main process, and `wait(check, ms)`, a poll until check() holds;
 * then runs `body`. `userData`: the user-data folder, userDataOf(out) unless given.
 */
export function mainScript(
  out: string,
  body: string,
  options: { setup?: string; userData?: string } = {},
): string {
  const userData = options.userData ?? userDataOf(out);
  mkdirSync(userData, { recursive: true });
  return `
      await import('electron');
      const fake = globalThis.__fakeElectron;
      fake.userData = ${JSON.stringify(userData)};
${options.setup ?? ''}
      await import(${JSON.stringify(pathToFileURL(join(out, 'main/index.js')).href)});
      const wait = async (check, ms = 10000) => { const t = Date.now(); while (!check() && Date.now() - t < ms) await new Promise((r) => setTimeout(r, 5)); return check(); };
${body}`;
}

/**
 * Runs `script` (an ES module, written to `out/<file>`) in plain Node with `electron` resolved to the
 * stand-in: it imports 'electron', then the built main process, and prints its findings as JSON.
 */
export function runWithFakeElectron(out: string, file: string, script: string): SpawnSyncReturns<string> {
  // A file, not --eval: worker threads inherit the parent's execArgv, and --input-type breaks them.
  const path = join(out, file);
  writeFileSync(path, script);
  const register = pathToFileURL(join(root, 'test/host/fake-electron/register.mjs')).href;
  return spawnSync(process.execPath, ['--import', register, path], {
    cwd: root,
    encoding: 'utf8',
    timeout: 60000,
  });
}
