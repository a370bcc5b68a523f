import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Command } from 'commander';
import { InvalidArgumentError, PhasorError } from '../../engine/errors.js';
import { askStandby } from '../standby/client.js';
import {
  environmentDigest,
  jobEnvironment,
  logFile,
  privateDirProblem,
  standbySocket,
  startingStandby,
  stoppedFile,
} from '../standby/paths.js';
import { Frame, type StandbyInfo } from '../standby/protocol.js';
import { DEFAULT_IDLE_MS, startStandby } from '../standby/launch.js';
import { printJson } from '../util.js';

/** "90", "90s", "15m", "2h", "500ms" → ms. */
export function parseDuration(text: string, name: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|min|h)?\s*$/.exec(text);
  if (!m) throw new InvalidArgumentError(`${name} must be a duration such as 90s, 15m or 2h, got "${text}"`);
  const unit = { ms: 1, s: 1000, m: 60_000, min: 60_000, h: 3_600_000 }[m[2] ?? 's'] ?? 1000;
  const ms = Number(m[1]) * unit;
  if (!(ms >= 1000 && ms <= 7 * 24 * 3_600_000))
    throw new InvalidArgumentError(`${name} must be from 1 s to 7 days, got "${text}"`);
  return ms;
}

function describe(info: StandbyInfo): string {
  const minutes = Math.max(0, (info.idleUntil - Date.now()) / 60_000);
  const when = info.idleUntil ? `exits after ${minutes.toFixed(1)} more min without a job` : 'running a job';
  const by = info.auto ? 'started after a job (PHASOR_STANDBY=auto)' : 'started by phasor standby start';
  return `pid ${info.pid}, backend ${info.backend}, ${by}, ${info.jobs} jobs run, ${info.rssMiB} MiB resident; ${when}`;
}

function lastLogLine(path: string): string {
  try {
    const lines = readFileSync(logFile(path), 'utf8').trim().split('\n');
    return lines[lines.length - 1] ?? '';
  } catch {
    return '';
  }
}

export function registerStandby(program: Command): void {
  const standby = program
    .command('standby')
    .description(
      'keep a process ready for file jobs (Node and the GPU started): info, peaks, spectrogram, filter and ' +
        'correlate run there, without waiting 0.3–0.5 s for Node and the GPU driver',
    );
  standby
    .command('start')
    .description(
      'start a standby process and wait until it is ready (file jobs on CUDA start one themselves unless ' +
        'PHASOR_STANDBY=manual or off)',
    )
    .option('--idle <time>', 'exit after this long without a job (90s, 15m, 2h)', (v) =>
      parseDuration(v, '--idle'),
    )
    .option('--json', 'print the standby as JSON')
    .action(async (opts: { idle?: number; json?: boolean }) => {
      const path = standbySocket();
      const problem = privateDirProblem(dirname(path), true);
      if (problem) throw new PhasorError('io', `${dirname(path)} ${problem}; no standby can wait there`);
      rmSync(stoppedFile(path), { force: true });
      // one that is starting is waited for: it may be one a job started
      const starting = startingStandby(path);
      let info =
        (await askStandby(path)) ?? (starting !== undefined ? await untilReady(path, starting) : undefined);
      if (info && (info.auto || info.env !== environmentDigest(jobEnvironment(process.env)))) {
        // one for another environment would refuse this one's jobs, and one a job started has not the
        // --idle asked here: either gives way to a new one
        await askStandby(path, Frame.stop, {
          why: `replaced by \`phasor standby start\`${info.auto ? '' : ' in another environment'}`,
        });
        info = undefined;
      }
      if (!info) {
        info = await untilReady(path, startStandby(opts.idle ?? DEFAULT_IDLE_MS, path, Date.now()));
        if (!info) {
          const why = lastLogLine(path);
          throw new PhasorError(
            'io',
            `the standby did not start${why ? `: ${why}` : ''} (log: ${logFile(path)})`,
          );
        }
      }
      if (opts.json) return printJson(info);
      process.stdout.write(`standby ready: ${describe(info)}\n`);
    });
  standby
    .command('stop')
    .description('stop the waiting standby (a job it is running finishes)')
    .action(async () => {
      const path = standbySocket();
      if (privateDirProblem(dirname(path), false) === 'does not exist') {
        process.stdout.write('no standby is waiting\n');
        return;
      }
      // a standby starting now sees this and exits instead of listening
      writeFileSync(stoppedFile(path), '', { mode: 0o600 });
      const info = await askStandby(path, Frame.stop);
      process.stdout.write(info ? `stopped the standby (pid ${info.pid})\n` : 'no standby is waiting\n');
    });
  standby
    .command('status')
    .description('whether a standby is waiting, its backend and how long it stays')
    .option('--json', 'print JSON: the standby, or null')
    .action(async (opts: { json?: boolean }) => {
      const path = standbySocket();
      const info = await askStandby(path);
      if (opts.json) return printJson(info ?? null);
      const pid = info ? undefined : startingStandby(path);
      process.stdout.write(
        info
          ? `standby waiting: ${describe(info)}\n`
          : pid
            ? `a standby is starting (pid ${pid})\n`
            : 'no standby is waiting\n',
      );
    });
}

/** The standby once it listens (up to 60 s), or undefined when the process `pid` ended without. */
async function untilReady(path: string, pid: number | undefined): Promise<StandbyInfo | undefined> {
  const deadline = Date.now() + 60_000;
  let info: StandbyInfo | undefined;
  while (!info && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    info = await askStandby(path);
    if (!info && pid !== undefined && !alive(pid) && !startingStandby(path)) break;
  }
  return info;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
