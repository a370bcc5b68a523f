#!/usr/bin/env node
// Builds the `phasor` command's native client (native/build/client/phasor-client, see phasor-client.c) with
// the system's C compiler ($CC, else cc, gcc or clang). It saves Node's start on every job that goes to a
// standby; without it bin/phasor runs the Node CLI, which reaches the standby too.
//
//   node native/client/build.mjs                 build; fail without a C compiler
//   node native/client/build.mjs --if-available  (npm install) build where a compiler is found, else say so
import { spawnSync } from 'node:child_process';
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const ifAvailable = process.argv.includes('--if-available');
const out = path.join(here, '..', 'build', 'client', 'phasor-client');

function skip(why) {
  if (ifAvailable) {
    console.log(`phasor: the native client is not built (${why}); phasor runs its jobs through Node`);
    process.exit(0);
  }
  console.error(`phasor: cannot build the native client: ${why}`);
  process.exit(1);
}

if (process.platform === 'win32') skip('it needs a POSIX system');
const which = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).stdout?.trim();
const cc = [process.env.CC, 'cc', 'gcc', 'clang'].find((c) => c && which(c));
if (!cc) skip('no C compiler was found (cc, gcc or clang)');

mkdirSync(path.dirname(out), { recursive: true });
const tmp = `${out}.${process.pid}.tmp`;
const started = Date.now();
const r = spawnSync(
  cc,
  ['-std=gnu11', '-O2', '-Wall', '-Wextra', '-o', tmp, path.join(here, 'phasor-client.c')],
  { stdio: 'inherit' },
);
if (r.status !== 0) {
  rmSync(tmp, { force: true });
  skip(`${cc} failed`);
}
renameSync(tmp, out);
console.log(
  `phasor: built the native client (${path.relative(process.cwd(), out)}) in ${Date.now() - started} ms`,
);
