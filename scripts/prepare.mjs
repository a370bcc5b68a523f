#!/usr/bin/env node
// npm's `prepare` step (after `install`, which built the native parts): builds the engine and CLI (dist/,
// tsc) and the app (out/, electron-vite), so that `phasor serve` and `npm start` work right after
// `npm install`. Prints each step with its time, then a closing note with the whole install's time and what
// was built.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { markAppBuilt } from './app-stamp.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const say = (line) => console.log(`phasor: ${line}`);

function step(what, argv) {
  const t0 = Date.now();
  const r = spawnSync(process.execPath, argv, {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
    env: { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1' },
  });
  if (r.status !== 0) {
    process.stderr.write(`${r.stdout}${r.stderr}`);
    console.error(`phasor: building ${what} failed (exit status ${r.status})`);
    process.exit(1);
  }
  say(`built ${what} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

step('the engine and CLI (dist/)', [
  path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'),
  '-p',
  'tsconfig.build.json',
]);
step('the app (out/)', [
  path.join(root, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'),
  'build',
]);
markAppBuilt(root);

/** Seconds since the npm process that runs this script started (Linux /proc), or null. */
function npmSeconds() {
  try {
    const hz = 100; // USER_HZ, 100 on every Linux Node runs on
    const uptime = Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]);
    let pid = process.ppid;
    for (let i = 0; i < 4 && pid > 1; i++) {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      // the fields after the command's name, which may hold spaces
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // npm's process: `node …/npm-cli.js install`, or its title `npm install`
      if (/(^|[\s/])npm(-cli\.js)?(\s|$)/.test(cmd.join(' '))) return uptime - Number(fields[19]) / hz;
      pid = Number(fields[1]);
    }
  } catch {
    // not Linux, or the process is gone
  }
  return null;
}

// audify (microphone input) is optional: npm builds it from source, and drops it without a word when the
// audio headers are missing, so say so here.
const audify =
  spawnSync(process.execPath, ['-e', "require('audify')"], { cwd: root, stdio: 'ignore' }).status === 0;
if (!audify) {
  // a package left unbuilt is rebuilt in place; one npm dropped comes back with npm install
  const again = existsSync(path.join(root, 'node_modules', 'audify', 'package.json'))
    ? 'npm rebuild audify'
    : 'npm install';
  say(
    'microphone input is not available: the optional audify addon was not built; it needs the ALSA and ' +
      `PulseAudio headers (Debian/Ubuntu: apt-get install -y libasound2-dev libpulse-dev), then ${again}`,
  );
}

const cuda = existsSync(path.join(root, 'native', 'build', 'cuda', 'phasor_cuda.node'));
const client = existsSync(path.join(root, 'native', 'build', 'client', 'phasor-client'));
const took = npmSeconds();
say(
  `${{ ci: 'npm ci', run: 'npm run prepare', 'run-script': 'npm run prepare' }[process.env.npm_command ?? ''] ?? 'npm install'} done` +
    (took === null ? '' : ` in ${took.toFixed(0)} s`) +
    `: the app, the CLI${client ? ', the native client' : ''}${audify ? ', audify' : ''}` +
    `${cuda ? ' and the CUDA addon' : ' (no CUDA addon: see above)'}; next: npm start, npx phasor serve, npm test`,
);
