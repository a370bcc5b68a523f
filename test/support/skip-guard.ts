// A vitest reporter that prints every skipped test with its reason and, under CI (CI=true), fails the
// run when a test was skipped that CI can run. Only tests tagged [needs-gpu] in their name may be
// skipped in CI (this machine and CI have no GPU); they print why.
//
// Tests skipped for a missing optional part of the system (test/support/requirements.ts: a note
// `missing <part>: <install command>`, on the test or inherited from its suite's meta) are grouped: one
// line per part with the number of tests and files and the command that installs it; other skips (a GPU's
// absence) one line per reason. In CI each skipped test is listed.
import type { Reporter, TestCase, TestModule } from 'vitest/node';

export const ALLOWED_SKIP_TAG = '[needs-gpu]';
const MISSING = /^missing (.+): ([^:]+)$/;

interface Skipped {
  file: string;
  name: string;
  note: string | undefined;
  allowed: boolean;
}

/** The skip note of a test: its own (ctx.skip(note)), else the one its suite was given (needs(…)). */
function noteOf(test: TestCase): string | undefined {
  const result = test.result();
  if (result.state === 'skipped' && result.note) return result.note;
  const meta = test.meta() as { skipNote?: string };
  return meta.skipNote;
}

export default class SkipGuard implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const skipped: Skipped[] = [];
    for (const mod of testModules) {
      const file = mod.moduleId.replace(process.cwd() + '/', '');
      for (const test of mod.children.allTests()) {
        if (test.result().state !== 'skipped') continue;
        skipped.push({
          file,
          name: `${file} > ${test.fullName}`,
          note: noteOf(test),
          allowed: test.fullName.includes(ALLOWED_SKIP_TAG),
        });
      }
    }
    const out = (line: string) => process.stdout.write(`${line}\n`);
    if (process.env.CI) {
      for (const s of skipped) out(`SKIPPED ${s.name}${s.note ? ` — ${s.note}` : ''}`);
    } else {
      // one line per reason: a missing part with its install command, or another note (a GPU's absence)
      const groups = new Map<string, { tests: number; files: Set<string> }>();
      const add = (key: string, file: string) => {
        const g = groups.get(key) ?? { tests: 0, files: new Set<string>() };
        g.tests++;
        g.files.add(file);
        groups.set(key, g);
      };
      for (const s of skipped) {
        // a suite that needs several parts joins their notes with '; '
        const parts = (s.note ?? '').split(/; (?=missing )/).map((n) => MISSING.exec(n));
        if (parts.length > 0 && parts.every((m) => m !== null)) {
          for (const m of parts) add(`missing ${m![1]}; install: ${m![2]}`, s.file);
        } else add(s.note ?? 'no reason given', s.file);
      }
      if (groups.size > 0)
        out('skipped here (CI runs them all but [needs-gpu]; README: Install and requirements):');
      for (const [why, g] of groups) {
        const files = [...g.files];
        const shown = files.length > 3 ? `${files.slice(0, 3).join(', ')}, …` : files.join(', ');
        out(`  SKIPPED ${g.tests} test(s) in ${files.length} file(s) (${shown}): ${why}`);
      }
    }
    const forbidden = skipped.filter((s) => !s.allowed);
    if (process.env.CI && forbidden.length > 0) {
      out(
        `skip-guard: ${forbidden.length} test(s) skipped that CI must run (only ${ALLOWED_SKIP_TAG} tests may skip)`,
      );
      process.exitCode = 1;
    }
  }
}
