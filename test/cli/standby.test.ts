// `phasor standby`: a process kept ready for file jobs. Jobs through it give the same bytes and the same
// exit statuses as jobs run in their own process, one after another in the same process; Ctrl-C and a
// killed client cancel the job and leave nothing behind, and the standby goes on; a standby of another
// environment or in a folder open to others is not used.
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { phasorBin, runCli, tempDir, untilWriting } from '../support/cli.js';
import { connect } from 'node:net';
import { Frame, readFrames, writeFrame } from '../../electron/cli/standby/protocol.js';
import { noise } from '../support/signals.js';
import { writeTestWav } from '../support/wav.js';

const tmp = tempDir('phasor-standby-');
afterAll(() => tmp.remove());
const f = (name: string) => join(tmp.dir, name);

// every standby of this file lives in a runtime folder of its own
const runtime = f('run');
mkdirSync(runtime, { mode: 0o700 });
const env = { XDG_RUNTIME_DIR: runtime, PHASOR_STANDBY: 'on' };
const cli = (args: string[], extra: NodeJS.ProcessEnv = {}) => runCli(args, { env: { ...env, ...extra } });

interface Info {
  pid: number;
  backend: string;
  jobs: number;
  idleUntil: number;
}
async function status(): Promise<Info | null> {
  const r = await cli(['standby', 'status', '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Info | null;
}
async function start(...args: string[]): Promise<Info> {
  const r = await cli(['standby', 'start', '--json', ...args]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Info;
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

afterEach(async () => {
  await cli(['standby', 'stop']);
});

describe('phasor standby', () => {
  it('runs jobs one after another with the same output as their own processes', async () => {
    const first = await start('--idle', '5m');
    expect(first.backend).toMatch(/^(cpu|cuda|webgpu) /);
    expect(first.jobs).toBe(0);
    const here = await runCli(filterArgs(f('here.sigmf-data')));
    expect(here.code, here.stderr).toBe(0);
    for (const name of ['via1', 'via2']) {
      const via = await cli(filterArgs(f(`${name}.sigmf-data`)));
      expect(via.code, via.stderr).toBe(0);
      expect(via.stdout.replace(`${name}.`, 'here.')).toBe(here.stdout);
      expect(readFileSync(f(`${name}.sigmf-data`)).equals(readFileSync(f('here.sigmf-data')))).toBe(true);
    }
    // the same standby ran both
    const after = await status();
    expect(after?.pid).toBe(first.pid);
    expect(after?.jobs).toBe(2);
    // a usage error and a bad input: the same statuses and one-line messages as in a process of their own
    const usage = await cli(['filter', input, '--lowpass', 'x', '-o', f('u.wav')]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/^phasor: .*--lowpass/);
    const missing = await cli(['info', f('nothing.wav')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
    expect(missing.stderr).toContain('nothing.wav');
    expect((await status())?.jobs).toBe(4);
  }, 60_000);

  it('a job of another environment runs in its own process, saying why; start there replaces it', async () => {
    const waiting = await start();
    const r = await cli(filterArgs(f('other.sigmf-data')), { PHASOR_CPU_THREADS: '1' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /^phasor: warning: the standby was not used: its environment differs in PHASOR_CPU_THREADS /,
    );
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect((await status())?.pid).toBe(waiting.pid);
    // the same variable set, and `standby start` in that environment: a new standby takes its jobs
    const other = await cli(['standby', 'start', '--json'], { PHASOR_CPU_THREADS: '1' });
    expect(other.code, other.stderr).toBe(0);
    expect((JSON.parse(other.stdout) as Info).pid).not.toBe(waiting.pid);
    const there = await cli(filterArgs(f('other.sigmf-data')), { PHASOR_CPU_THREADS: '1' });
    expect(there.code, there.stderr).toBe(0);
    expect(there.stderr).toBe('');
  }, 60_000);

  it('stop ends it; --idle ends it after that long without a job', async () => {
    await start();
    const stop = await cli(['standby', 'stop']);
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
        writeFrame(socket, Frame.job, JSON.stringify({ ...request, stdoutIsTTY: false, stderrIsTTY: false }));
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
      const r = await cli(filterArgs(f('open.sigmf-data')));
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/phasor: warning: .*may be entered by other users.*not used/);
      const refused = await cli(['standby', 'start']);
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
      const job = cli([
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
      const beside = await cli(filterArgs(f('beside.sigmf-data')));
      expect(beside.code, beside.stderr).toBe(0);
      expect(beside.stderr).toBe('');
      const stop = await cli(['standby', 'stop']);
      expect(stop.stdout).toMatch(/stopped the standby/);
      const r = await job;
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
        const child = spawn(
          process.execPath,
          [phasorBin, 'filter', big, '-o', out, '--lowpass', '1000', '--numtaps', '2047', '--backend', 'cpu'],
          { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } },
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
        const next = await cli(filterArgs(f(`after-${how}.sigmf-data`)));
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
