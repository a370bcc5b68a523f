// A vitest reporter that prints every skipped test with its reason and, under CI (CI=true), fails the
// run when a test was skipped that CI can run. Only tests tagged [needs-gpu] in their name may be
// skipped in CI (this machine and CI have no GPU); they print why.
import type { Reporter, TestModule } from 'vitest/node';

export const ALLOWED_SKIP_TAG = '[needs-gpu]';

export default class SkipGuard implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const skipped: Array<{ name: string; note: string | undefined; allowed: boolean }> = [];
    for (const mod of testModules) {
      for (const test of mod.children.allTests()) {
        const result = test.result();
        if (result.state !== 'skipped') continue;
        const name = `${mod.moduleId.replace(process.cwd() + '/', '')} > ${test.fullName}`;
        skipped.push({ name, note: result.note, allowed: test.fullName.includes(ALLOWED_SKIP_TAG) });
      }
    }
    for (const s of skipped) {
      process.stdout.write(`SKIPPED ${s.name}${s.note ? ` — ${s.note}` : ''}\n`);
    }
    const forbidden = skipped.filter((s) => !s.allowed);
    if (process.env.CI && forbidden.length > 0) {
      process.stdout.write(
        `skip-guard: ${forbidden.length} test(s) skipped that CI must run (only ${ALLOWED_SKIP_TAG} tests may skip)\n`,
      );
      process.exitCode = 1;
    }
  }
}
