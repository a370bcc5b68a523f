#!/usr/bin/env node
// Checks electron-builder.yml the way `electron-builder` itself does before it packages anything: the
// configuration is loaded by its loader and validated against its own schema (app-builder-lib's
// scheme.json, through its validateConfiguration), so an unknown or misplaced key fails `npm run lint`,
// not a release build. Then it checks what the schema cannot know: deb.depends and rpm.depends replace
// electron-builder's default dependencies, so each must still hold every default of this electron-builder.
// Usage: node scripts/check-builder.mjs [PROJECT_DIR]   (default: this repository)
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const projectDir = path.resolve(process.argv[2] ?? fileURLToPath(new URL('..', import.meta.url)));

// electron-builder's own copy of app-builder-lib and builder-util, as `npx electron-builder` loads them.
const builderRequire = createRequire(createRequire(import.meta.url).resolve('electron-builder'));
const { getConfig, validateConfiguration } = builderRequire('app-builder-lib/out/util/config/config.js');
const FpmTarget = builderRequire('app-builder-lib/out/targets/FpmTarget.js').default;
const { log } = builderRequire('builder-util/out/log.js');

const fail = (lines) => {
  for (const line of lines) console.error(`phasor: electron-builder.yml: ${line}`);
  process.exit(1);
};

// Without the file electron-builder would quietly package with its defaults.
if (!existsSync(path.join(projectDir, 'electron-builder.yml'))) fail([`not found in ${projectDir}`]);

// Its loader logs "loaded configuration" to stdout; the problems are printed below, one a line.
const stdout = log.stream;
log.stream = { write: () => true };
let config;
try {
  config = await getConfig(projectDir);
  await validateConfiguration(config, { isEnabled: false, add: () => undefined });
} catch (error) {
  // The validator's message: a header, then for each problem " - configuration.x …" (its details on the
  // lines below, up to "How to fix:"), then advice. One line a problem, details joined.
  const message = error instanceof Error ? error.message : String(error);
  const problems = [];
  let open = false;
  for (const line of message.split('\n')) {
    if (line.startsWith(' - ')) {
      problems.push(line.slice(3).trim());
      open = true;
    } else if (open && line.trim() !== '' && line.trim() !== 'How to fix:') {
      problems[problems.length - 1] += ` ${line.trim()}`;
    } else {
      open = false;
    }
  }
  fail(problems.length > 0 ? problems : [message.split('\n')[0]]);
} finally {
  log.stream = stdout;
}

const missing = [];
for (const target of ['deb', 'rpm']) {
  const depends = config[target]?.depends;
  if (depends == null) continue;
  const ours = new Set(Array.isArray(depends) ? depends : [depends]);
  const defaults = FpmTarget.prototype.getDefaultDepends(target);
  const lost = defaults.filter((name) => !ours.has(name));
  if (lost.length > 0) {
    missing.push(
      `${target}.depends replaces electron-builder's defaults and lacks ${lost.join(', ')} (its defaults: ${defaults.join(', ')})`,
    );
  }
}
if (missing.length > 0) fail(missing);
