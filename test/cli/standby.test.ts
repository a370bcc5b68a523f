// `phasor standby`: a process kept ready for file jobs. Jobs through it give the same bytes and the same
// exit statuses as jobs run in their own process, one after another in the same process; Ctrl-C and a
// killed client cancel the job and leave nothing behind, and the standby goes on; a standby of another
// environment or in a folder open to others is not used. Every test runs with both clients: Node's
// (bin/phasor.js) and the native one that the installed command runs (bin/phasor, native/client).
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildNativeClient, runCli, spawnCli, tempDir, untilWriting } from '../support/cli.js';
import { connect } from 'node:net';
import { Frame, readFrames, writeFrame } from '../../electron/cli/standby/protocol.js';
import { fnv1a64 } from '../../electron/cli/standby/paths.js';
import { noise } from '../support/signals.js';
import { writeTestWav } from '../support/wav.js';

const tmp = tempDir('phasor-standby-');
afterAll(() => tmp.remove());
const f = (name: string) => join(tmp.dir, name);

// every standby of this file lives in a runtime folder of its own; the jobs use one, and start none
// themselves unless a test asks (PHASOR_STANDBY=auto)
const runtime = f('run');
mkdirSync(runtime, { mode: 0o700 });
// (this Node first on PATH, as the native client needs it: the standbys see the same PATH with both clients)
const env = {
  XDG_RUNTIME_DIR: runtime,
  PHASOR_STANDBY: 'manual',
  PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`,
};
const cli = (args: string[], extra: NodeJS.ProcessEnv = {}) => runCli(args, { env: { ...env, ...extra } });

interface Info {
  pid: number;
  backend: string;
  auto: boolean;
  jobs: number;
  idleUntil: number;
}
async function status(): Promise<Info | null> {
  const r = await cli(['standby', 'status', '--json']);
  expect(r.code, r.stderr).toBe(0);
  const info = JSON.parse(r.stdout) as Info | null;
  if (info) seen.add(info.pid);
  return info;
}
async function start(...args: string[]): Promise<Info> {
  const r = await cli(['standby', 'start', '--json', ...args]);
  expect(r.code, r.stderr).toBe(0);
  const info = JSON.parse(r.stdout) as Info;
  seen.add(info.pid);
  return info;
}

const input = f('in.cf32');
writeFileSync(input, Buffer.from(new Float32Array(noise(1 << 16, 3, 0.5)).buffer));
const filterArgs = (out: string) => [
  'filter',
  input,
  '--format',
  'cf32',
  '--rate',
  '48k',
  '--lowpass',
  '5k',
  '-o',
  out,
  '--backend',
  'cpu',
  '--json',
];

/** Standby processes a test saw: each must be gone once it is stopped. */
const seen = new Set<number>();
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

afterEach(async () => {
  await cli(['standby', 'stop']);
  const stopped = Date.now();
  while ([...seen].some(alive) && Date.now() - stopped < 10_000) await new Promise((r) => setTimeout(r, 20));
  const left = [...seen].filter(alive);
  seen.clear();
  expect(left, 'standby processes left running').toEqual([]);
});

// A job that ran on CUDA in its own process leaves a standby (standby/auto.ts). CI has no GPU: the tests'
// variable lets a job on the CPU do the same, through the same code.
const auto = { PHASOR_STANDBY: 'auto', PHASOR_STANDBY_AUTO_BACKENDS_FOR_TESTS: 'cpu' };

/** The standby files in the runtime folder (a socket, a standby starting), read without asking anyone. */
function standbyFiles(): string[] {
  const dir = join(runtime, 'phasor');
  if (!existsSync(dir)) return [];
  const files = readdirSync(dir).filter((e) => e.endsWith('.sock') || e.endsWith('.starting'));
  for (const e of files.filter((x) => x.endsWith('.starting'))) {
    const pid = Number(readFileSync(join(dir, e), 'utf8'));
    if (pid > 0) seen.add(pid);
  }
  return files;
}

/** The standby once one that `ok` accepts listens (up to 20 s). */
async function ready(ok: (info: Info) => boolean = () => true): Promise<Info> {
  const since = Date.now();
  for (;;) {
    const info = await status();
    if (info && ok(info)) return info;
    if (Date.now() - since > 20_000) throw new Error(`no standby became ready: ${JSON.stringify(info)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("the standby's socket name", () => {
  it('is keyed by FNV-1a (64 bits), as the native client computes it', () => {
    // the published FNV-1a test vectors
    expect(fnv1a64('')).toBe('cbf29ce484222325');
    expect(fnv1a64('a')).toBe('af63dc4c8601ec8c');
    expect(fnv1a64('foobar')).toBe('85944171f73967e8');
  });
});

const launchers = ['node', 'native'] as const;
beforeAll(() => buildNativeClient());

for (const launcher of launchers) {
  /** The CLI through this describe's client. */
  const job = (args: string[], extra: NodeJS.ProcessEnv = {}) =>
    runCli(args, { env: { ...env, ...extra }, launcher });

  describe(`phasor standby (${launcher} client)`, () => {
    it('runs jobs one after another with the same output as their own processes', async () => {
      const first = await start('--idle', '5m');
      expect(first.backend).toMatch(/^(cpu|cuda|webgpu) /);
      expect(first.jobs).toBe(0);
      const here = await runCli(filterArgs(f('here.sigmf-data')));
      expect(here.code, here.stderr).toBe(0);
      for (const name of ['via1', 'via2']) {
        const via = await job(filterArgs(f(`${name}.sigmf-data`)));
        expect(via.code, via.stderr).toBe(0);
        expect(via.stdout.replace(`${name}.`, 'here.')).toBe(here.stdout);
        expect(readFileSync(f(`${name}.sigmf-data`)).equals(readFileSync(f('here.sigmf-data')))).toBe(true);
      }
      // the same standby ran both
      const after = await status();
      expect(after?.pid).toBe(first.pid);
      expect(after?.jobs).toBe(2);
      // a usage error and a bad input: the same statuses and one-line messages as in a process of their own
      const usage = await job(['filter', input, '--lowpass', 'x', '-o', f('u.wav')]);
      expect(usage.code).toBe(2);
      expect(usage.stderr).toMatch(/^phasor: .*--lowpass/);
      const missing = await job(['info', f('nothing.wav')]);
      expect(missing.code).toBe(1);
      expect(missing.stderr.trim().split('\n')).toHaveLength(1);
      expect(missing.stderr).toContain('nothing.wav');
      expect((await status())?.jobs).toBe(4);
    }, 60_000);

    it('runs psd, measure and extract with the same output as their own processes', async () => {
      await start('--idle', '5m');
      const raw = ['--format', 'cf32', '--rate', '48k', '--backend', 'cpu', '--json'];
      const jobs: Array<[string[], string?]> = [
        [['psd', input, '--nperseg', '512', ...raw]],
        [['measure', input, '--band', '1k:9k', ...raw]],
        [['extract', input, '--shift', '2k', '--lowpass', '3k', '--decimate', '4', ...raw], 'x.sigmf-data'],
      ];
      for (const [args, out] of jobs) {
        const here = await runCli(out ? [...args, '-o', f(`here-${out}`)] : args);
        expect(here.code, here.stderr).toBe(0);
        const via = await job(out ? [...args, '-o', f(`via-${out}`)] : args);
        expect(via.code, via.stderr).toBe(0);
        expect(via.stdout.replaceAll('via-', 'here-')).toBe(here.stdout);
        if (out) expect(readFileSync(f(`via-${out}`)).equals(readFileSync(f(`here-${out}`)))).toBe(true);
      }
      expect((await status())?.jobs).toBe(3);
    });

    it('a reader that goes away loses the rest of the output, and the job goes on', async () => {
      await start();
      // through the standby, and in a process of its own
      for (const setting of ['manual', 'off']) {
        const out = f(`gone-${setting}.sigmf-data`);
        const child = spawnCli(filterArgs(out), { env: { ...env, PHASOR_STANDBY: setting }, launcher });
        child.stdout.destroy(); // before a byte of the summary is written
        let stderr = '';
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        const code = await new Promise<number | null>((r) => child.on('close', (c) => r(c)));
        expect(code, `${setting}: ${stderr}`).toBe(0);
        expect(stderr, setting).toBe('');
        expect(existsSync(out), setting).toBe(true);
      }
      expect((await status())?.jobs).toBe(1);
    }, 60_000);

    it('a job of another environment runs in its own process, saying why; start there replaces it', async () => {
      const waiting = await start();
      const r = await job(filterArgs(f('other.sigmf-data')), { PHASOR_CPU_THREADS: '1' });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(
        /^phasor: warning: the standby was not used: its environment differs in PHASOR_CPU_THREADS /,
      );
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect((await status())?.pid).toBe(waiting.pid);
      // the same variable set, and `standby start` in that environment: a new standby takes its jobs
      const other = await job(['standby', 'start', '--json'], { PHASOR_CPU_THREADS: '1' });
      expect(other.code, other.stderr).toBe(0);
      expect((JSON.parse(other.stdout) as Info).pid).not.toBe(waiting.pid);
      const there = await job(filterArgs(f('other.sigmf-data')), { PHASOR_CPU_THREADS: '1' });
      expect(there.code, there.stderr).toBe(0);
      expect(there.stderr).toBe('');
    }, 60_000);

    it('stop ends it; --idle ends it after that long without a job', async () => {
      await start();
      const stop = await job(['standby', 'stop']);
      expect(stop.stdout).toMatch(/stopped the standby/);
      expect(await status()).toBeNull();
      await start('--idle', '1s');
      await new Promise((r) => setTimeout(r, 2500));
      expect(await status()).toBeNull();
    }, 60_000);

    it('refuses what is not a file job, whoever asks', async () => {
      const waiting = await start();
      const dir = join(runtime, 'phasor');
      const sock = join(
        dir,
        readdirSync(dir).find((e) => e.endsWith('.sock'))!,
      );
      const answer = await new Promise<{ kind: number; text: string }>((resolve, reject) => {
        const socket = connect(sock, () => {
          const request = { argv: ['serve', '--port', '0'], cwd: tmp.dir, env: {}, umask: 0o22 };
          writeFrame(
            socket,
            Frame.job,
            JSON.stringify({ ...request, stdoutIsTTY: false, stderrIsTTY: false }),
          );
        });
        readFrames(socket, (kind, payload) => resolve({ kind, text: payload.toString() }));
        socket.on('error', reject);
      });
      expect(answer.kind).toBe(Frame.refuse);
      expect(answer.text).toMatch(/file jobs only/);
      expect((await status())?.jobs).toBe(waiting.jobs);
    }, 60_000);

    it('is not used from a folder that other users may enter', async () => {
      await start();
      chmodSync(join(runtime, 'phasor'), 0o755);
      try {
        const r = await job(filterArgs(f('open.sigmf-data')));
        expect(r.code, r.stderr).toBe(0);
        expect(r.stderr).toMatch(/phasor: warning: .*may be entered by other users.*not used/);
        const refused = await job(['standby', 'start']);
        expect(refused.code).toBe(1);
        expect(refused.stderr).toMatch(/may be entered by other users/);
      } finally {
        chmodSync(join(runtime, 'phasor'), 0o700);
      }
    }, 60_000);

    it('a job while it is busy runs in its own process; stop while a job runs lets the job finish', async () => {
      const waiting = await start();
      const dir = tempDir('phasor-standby-stop-');
      try {
        const big = join(dir.dir, 'big.wav');
        writeTestWav(big, noise(3_000_000, 7, 0.5), 48000, 1, 'float32');
        const out = join(dir.dir, 'out.wav');
        const running = job([
          'filter',
          big,
          '-o',
          out,
          '--lowpass',
          '1000',
          '--numtaps',
          '1023',
          '--backend',
          'cpu',
        ]);
        await untilWriting(dir.dir);
        const busy = await status();
        expect(busy?.pid).toBe(waiting.pid);
        expect(busy?.idleUntil).toBe(0);
        // another job meanwhile: in its own process, without a word
        const beside = await job(filterArgs(f('beside.sigmf-data')));
        expect(beside.code, beside.stderr).toBe(0);
        expect(beside.stderr).toBe('');
        const stop = await job(['standby', 'stop']);
        expect(stop.stdout).toMatch(/stopped the standby/);
        const r = await running;
        expect(r.code, r.stderr).toBe(0);
        expect(readdirSync(dir.dir).sort()).toEqual(['big.wav', 'out.wav']);
        await new Promise((r) => setTimeout(r, 500));
        expect(await status()).toBeNull();
      } finally {
        dir.remove();
      }
    }, 60_000);

    for (const how of ['SIGINT', 'SIGKILL'] as const) {
      it(`a client ${how === 'SIGINT' ? 'cancelled with Ctrl-C' : 'killed with -9'} leaves no output`, async () => {
        const waiting = await start();
        const dir = tempDir('phasor-standby-cancel-');
        try {
          const big = join(dir.dir, 'big.wav');
          writeTestWav(big, noise(6_000_000, 5, 0.5), 48000, 1, 'float32');
          const out = join(dir.dir, 'out.wav');
          const child = spawnCli(
            ['filter', big, '-o', out, '--lowpass', '1000', '--numtaps', '2047', '--backend', 'cpu'],
            { env, launcher },
          );
          let stderr = '';
          child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
          // once the standby's job writes its temporary output
          await untilWriting(dir.dir);
          child.kill(how);
          const code = await new Promise<number | null>((r) => child.on('close', (c) => r(c)));
          if (how === 'SIGINT') {
            expect(code).toBe(130);
            expect(stderr).toMatch(/phasor: cancelled/);
          }
          // the standby's job notices its client gone and removes the temporary output
          const gone = Date.now();
          while (readdirSync(dir.dir).length > 1 && Date.now() - gone < 20000) {
            await new Promise((r) => setTimeout(r, 20));
          }
          expect(readdirSync(dir.dir)).toEqual(['big.wav']);
          // it was the standby's job, and the standby runs the next one
          const next = await job(filterArgs(f(`after-${how}.sigmf-data`)));
          expect(next.code, next.stderr).toBe(0);
          const after = await status();
          expect(after?.pid).toBe(waiting.pid);
          expect(after?.jobs).toBe(2);
        } finally {
          dir.remove();
        }
      }, 60_000);
    }
  });

  describe(`a standby started by a job (PHASOR_STANDBY=auto; ${launcher} client)`, () => {
    it('a first job leaves one as it exits; the next runs through it, with the same output', async () => {
      const here = await runCli(filterArgs(f('auto-here.sigmf-data')));
      expect(here.code, here.stderr).toBe(0);
      expect(await status()).toBeNull();
      const first = await job(filterArgs(f('auto-1.sigmf-data')), auto);
      expect(first.code, first.stderr).toBe(0);
      expect(first.stderr).toBe('');
      expect(first.stdout.replace('auto-1.', 'auto-here.')).toBe(here.stdout);
      // started before the job exited: starting or listening now
      expect(standbyFiles()).not.toEqual([]);
      const waiting = await ready();
      expect(waiting.auto).toBe(true);
      expect(waiting.jobs).toBe(0);
      expect(waiting.backend).toMatch(/^(cpu|cuda|webgpu) /);
      const second = await job(filterArgs(f('auto-2.sigmf-data')), auto);
      expect(second.code, second.stderr).toBe(0);
      expect(second.stderr).toBe('');
      expect(second.stdout.replace('auto-2.', 'auto-here.')).toBe(here.stdout);
      for (const name of ['auto-1', 'auto-2']) {
        const bytes = readFileSync(f(`${name}.sigmf-data`));
        expect(bytes.equals(readFileSync(f('auto-here.sigmf-data'))), name).toBe(true);
      }
      // the second ran there, and started none beside it
      const after = await status();
      expect(after?.pid).toBe(waiting.pid);
      expect(after?.jobs).toBe(1);
      const text = await job(['standby', 'status']);
      expect(text.stdout).toMatch(/^standby waiting: pid \d+, .*started after a job/);
    }, 60_000);

    it('none with PHASOR_STANDBY=manual or off, after a job on the CPU, or a job that opens no backend', async () => {
      const runs: Array<[string, NodeJS.ProcessEnv, string[]]> = [
        ['manual', { ...auto, PHASOR_STANDBY: 'manual' }, filterArgs(f('none-manual.sigmf-data'))],
        ['off', { ...auto, PHASOR_STANDBY: 'off' }, filterArgs(f('none-off.sigmf-data'))],
        // the default setting: a job on the CPU leaves none
        ['unset', { PHASOR_STANDBY: undefined }, filterArgs(f('none-default.sigmf-data'))],
        ['auto', { PHASOR_STANDBY: 'auto' }, filterArgs(f('none-auto.sigmf-data'))],
        ['info', auto, ['info', input, '--format', 'cf32', '--rate', '48k', '--json']],
      ];
      for (const [name, extra, args] of runs) {
        const r = await job(args, extra);
        expect(r.code, `${name}: ${r.stderr}`).toBe(0);
        expect(r.stderr, name).toBe('');
        expect(() => JSON.parse(r.stdout) as unknown, name).not.toThrow();
        expect(standbyFiles(), name).toEqual([]);
      }
      await new Promise((r) => setTimeout(r, 300));
      expect(standbyFiles()).toEqual([]);
      expect(await status()).toBeNull();
    }, 60_000);

    it('one of another environment is replaced without a word; standby start replaces it by yours', async () => {
      await job(filterArgs(f('env-1.sigmf-data')), auto);
      const first = await ready();
      const other = { ...auto, PHASOR_CPU_THREADS: '1' };
      const r = await job(filterArgs(f('env-2.sigmf-data')), other);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe('');
      const second = await ready((i) => i.pid !== first.pid);
      expect(second.auto).toBe(true);
      expect(second.backend).toMatch(/1 worker thread/);
      const there = await job(filterArgs(f('env-3.sigmf-data')), other);
      expect(there.code, there.stderr).toBe(0);
      expect(there.stderr).toBe('');
      expect(await status()).toMatchObject({ pid: second.pid, jobs: 1 });
      // the user's own standby, in the same environment, takes its place
      const mine = await job(['standby', 'start', '--json'], other);
      expect(mine.code, mine.stderr).toBe(0);
      const info = JSON.parse(mine.stdout) as Info;
      seen.add(info.pid);
      expect(info.auto).toBe(false);
      expect(info.pid).not.toBe(second.pid);
      const text = await job(['standby', 'status']);
      expect(text.stdout).toMatch(/started by phasor standby start/);
    }, 60_000);

    it('a PHASOR_STANDBY it does not know is a usage error, before the job', async () => {
      const out = f('bad-setting.sigmf-data');
      const r = await job(filterArgs(out), { ...auto, PHASOR_STANDBY: 'on' });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe('phasor: PHASOR_STANDBY must be auto (the default), manual or off, got "on"\n');
      expect(existsSync(out)).toBe(false);
      expect(standbyFiles()).toEqual([]);
    }, 60_000);
  });
}
