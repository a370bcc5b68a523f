// What a CLI job loads before it computes: only its command, its backend and the readers it uses, so
// start-up stays short (docs/PERFORMANCE.md, "Start-up"). A module loader hook lists every module the
// real CLI loads, in order.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../support/cli.js';

const tmp = tempDir();
afterAll(() => tmp.remove());
const f = (name: string) => join(tmp.dir, name);

const hooks = f('hooks.mjs');
writeFileSync(
  hooks,
  `export async function load(url, context, next) {
  process._rawDebug('MODULE ' + url);
  return next(url, context);
}
`,
);
const register = f('register.mjs');
writeFileSync(
  register,
  `import { register } from 'node:module';
register(${JSON.stringify(pathToFileURL(hooks).href)});
`,
);

const input = f('in.cf32');
writeFileSync(input, Buffer.from(new Float32Array(4096).map((_, i) => Math.sin(i / 7)).buffer));

/** The engine and library modules a CLI run loaded, in load order (paths after dist/electron/ or the
 * package name), with its result. */
async function modulesOf(args: string[]): Promise<{ code: number | null; modules: string[] }> {
  const r = await runCli(args, { env: { NODE_OPTIONS: `--import=${pathToFileURL(register).href}` } });
  const modules = r.stderr
    .split('\n')
    .filter((l) => l.startsWith('MODULE '))
    .map((l) => l.slice(7))
    .map((u) => u.replace(/^.*\/dist\/electron\//, '').replace(/^.*\/node_modules\//, 'npm:'));
  return { code: r.code, modules };
}

describe('CLI start-up', () => {
  it('a CPU filter of a raw file loads neither the GPU backends nor the SigMF metadata parser', async () => {
    const r = await modulesOf([
      'filter',
      input,
      '-o',
      f('out.sigmf-data'),
      '--format',
      'cf32',
      '--rate',
      '48k',
      '--lowpass',
      '1k',
      '--backend',
      'cpu',
    ]);
    expect(r.code).toBe(0);
    expect(r.modules).toContain('cli/commands/filter.js');
    expect(r.modules).toContain('engine/backends/cpu/backend.js');
    expect(r.modules.filter((m) => /backends\/(cuda|webgpu)\//.test(m))).toEqual([]);
    expect(r.modules.filter((m) => /npm:(zod|webgpu)\//.test(m) || m.includes('sigmf-meta'))).toEqual([]);
    expect(r.modules.filter((m) => m.startsWith('cli/commands/'))).toEqual(['cli/commands/filter.js']);
  }, 60_000);

  it('a job that may run on CUDA starts it before loading its command; one on the CPU does not', async () => {
    const args = ['filter', input, '-o', f('auto.sigmf-data'), '--format', 'cf32', '--rate', '48k'];
    const auto = await modulesOf([...args, '--lowpass', '1k']);
    expect(auto.code).toBe(0);
    const warm = auto.modules.indexOf('engine/backends/cuda/addon.js');
    expect(warm).toBeGreaterThanOrEqual(0);
    expect(warm).toBeLessThan(auto.modules.indexOf('cli/commands/filter.js'));
    const double = await modulesOf([...args, '--lowpass', '1k', '--precision=double']);
    expect(double.code).toBe(0);
    expect(double.modules.filter((m) => m.includes('backends/cuda/'))).toEqual([]);
  }, 60_000);

  it('reading a SigMF recording loads its metadata parser', async () => {
    const r = await modulesOf(['info', f('out.sigmf-meta')]);
    expect(r.code).toBe(0);
    expect(r.modules).toContain('engine/io/sigmf-meta.js');
    expect(r.modules.some((m) => m.startsWith('npm:zod/'))).toBe(true);
  }, 60_000);
});
