import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const script = path.resolve('scripts/check-commits.mjs');
const dirs: string[] = [];

function repo(): { dir: string; commit: (subject: string) => string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'phasor-commits-'));
  dirs.push(dir);
  const git = (...args: string[]): string =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], {
      cwd: dir,
      encoding: 'utf8',
    }).trim();
  git('init', '-q');
  const commit = (subject: string): string => {
    git('commit', '-q', '--allow-empty', '-m', subject);
    return git('rev-parse', 'HEAD');
  };
  return { dir, commit };
}

function check(dir: string, base: string): { status: number | null; stderr: string } {
  const r = spawnSync(process.execPath, [script], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, CHECK_COMMITS_BASE: base },
  });
  return { status: r.status, stderr: r.stderr };
}

afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('scripts/check-commits.mjs', () => {
  it('passes subjects of at most 72 characters after the base and ignores older ones', () => {
    const { dir, commit } = repo();
    const base = commit('x'.repeat(200));
    commit('a'.repeat(72));
    commit('b'.repeat(72) + '\n\n' + 'a long body line '.repeat(20));
    expect(check(dir, base).status).toBe(0);
  });

  it('fails a subject of 73 characters and names the commit', () => {
    const { dir, commit } = repo();
    const base = commit('base');
    const bad = commit('c'.repeat(73));
    commit('fine');
    const r = check(dir, base);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(bad.slice(0, 7));
    expect(r.stderr).toContain('73 characters');
  });
});
