#!/usr/bin/env node
// Launcher for the `phasor` CLI: runs the compiled CLI from dist/ (built by `npm install` / `npm run build`).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const main = new URL('../dist/electron/cli/main.js', import.meta.url);
if (!existsSync(fileURLToPath(main))) {
  process.stderr.write('phasor: the CLI is not built; run `npm run build` in the Phasor folder\n');
  process.exit(2);
}
await import(main.href);
