#!/usr/bin/env node
// Lint for commit subjects: one line of at most 72 characters, so `git log --oneline` stays readable.
// Checks every commit after BASE (the last commit before the rule; older subjects are history).
// Outside a git checkout, or where BASE is not in a shallow clone's history, it checks what it can and says so.
import { spawnSync } from 'node:child_process';

// CHECK_COMMITS_BASE overrides it (tests).
const BASE = process.env.CHECK_COMMITS_BASE ?? 'c88ae0dbdd52c45e4f343f27669940191f75d8c8';
const MAX = 72;

function git(...args) {
  const r = spawnSync('git', args, { encoding: 'utf8' });
  return r.status === 0 ? r.stdout : null;
}

if (git('rev-parse', '--git-dir') === null) {
  console.log('check-commits: not a git checkout; commit subjects not checked');
  process.exit(0);
}
const hasBase = git('cat-file', '-e', `${BASE}^{commit}`) !== null;
const range = hasBase ? [`${BASE}..HEAD`] : ['-1', 'HEAD'];
if (!hasBase) console.log(`check-commits: ${BASE} is not in this clone's history; checking HEAD only`);
const log = git('log', '--format=%h%x09%s', ...range) ?? '';
const bad = log
  .split('\n')
  .filter(Boolean)
  .map((line) => line.split('\t'))
  .filter(([, subject]) => [...subject].length > MAX);
for (const [hash, subject] of bad) {
  console.error(`check-commits: ${hash}: subject has ${[...subject].length} characters (at most ${MAX})`);
}
process.exit(bad.length > 0 ? 1 : 0);
