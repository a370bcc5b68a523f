#!/usr/bin/env node
// A stand-in for fpm, the tool electron-builder's deb and rpm targets run last (it downloads fpm from
// GitHub, which these machines cannot reach; CUSTOM_FPM_PATH makes it run this instead). It does what
// `fpm -s dir` does with its input and stops short of writing the package: every SRC=DEST argument is
// copied to DEST under $FAKE_FPM_STAGE/<target>/ (the package's file tree, like fpm's staging folder), and
// the arguments are kept in $FAKE_FPM_STAGE/<target>.json for the test to read the package's fields from.
// A source that does not exist fails, as it fails fpm.
import { cpSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const args = process.argv.slice(2);
const stage = process.env.FAKE_FPM_STAGE;
const t = args.indexOf('-t');
if (!stage || t < 0 || args[args.indexOf('-s') + 1] !== 'dir') {
  console.error('fake-fpm: needs FAKE_FPM_STAGE, -s dir and -t TARGET');
  process.exit(2);
}
const target = args[t + 1];
const root = path.join(stage, target);
for (const arg of args) {
  const m = /^(\/[^=]*)=(\/.*)$/.exec(arg);
  if (!m) continue;
  const [, src, dest] = m;
  try {
    statSync(src);
  } catch {
    console.error(`fake-fpm: File not found: ${src}`);
    process.exit(1);
  }
  mkdirSync(path.dirname(path.join(root, dest)), { recursive: true });
  cpSync(src, path.join(root, dest), { recursive: true });
}
writeFileSync(path.join(stage, `${target}.json`), JSON.stringify(args));
