// The `phasor` command line run in this process (main.ts decides whether a standby runs it instead).
// Exit status 0 on success; 2 for a usage error; 1 for anything else; 130 when cancelled (Ctrl-C).
// Errors print one line `phasor: <file>: <what is wrong>`; a stack trace only with --debug.

import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { formatError, PhasorError } from '../engine/errors.js';
import { removePendingTemporaries } from '../engine/io/temporary.js';
import { readEarly, stopEarlyReads } from '../engine/io/early-reads.js';
import { inputCandidates } from './early.js';
import { STANDBY_COMMANDS, STANDBY_MODE_HELP, standbyMode } from './standby/paths.js';
import { interrupt } from './interrupt.js';

const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

type Register = (program: Command) => void;

/** The commands in help order, each loaded only when it runs (or for the full help): a job does not pay for
 * loading the web server, the benchmarks or the PNG encoder it does not use. */
const COMMANDS: Array<[string, () => Promise<Register>]> = [
  ['info', async () => (await import('./commands/info.js')).registerInfo],
  ['peaks', async () => (await import('./commands/peaks.js')).registerPeaks],
  ['measure', async () => (await import('./commands/measure.js')).registerMeasure],
  ['spectrogram', async () => (await import('./commands/spectrogram.js')).registerSpectrogram],
  ['psd', async () => (await import('./commands/psd.js')).registerPsd],
  ['filter', async () => (await import('./commands/filter.js')).registerFilter],
  ['correlate', async () => (await import('./commands/correlate.js')).registerCorrelate],
  ['extract', async () => (await import('./commands/extract.js')).registerExtract],
  ['bench', async () => (await import('./commands/bench.js')).registerBench],
  ['serve', async () => (await import('./commands/serve.js')).registerServe],
  ['monitor', async () => (await import('./commands/monitor.js')).registerMonitor],
  ['record', async () => (await import('./commands/record.js')).registerRecord],
  ['standby', async () => (await import('./commands/standby.js')).registerStandby],
];

/** The commands that open a compute backend for a file job. */
export const BACKEND_JOBS: ReadonlySet<string> = new Set([
  'peaks',
  'measure',
  'spectrogram',
  'psd',
  'filter',
  'correlate',
  'extract',
]);

/** Loads the commands a standby runs and what they import, so it runs one without loading. */
export async function preloadJobs(): Promise<void> {
  for (const [name, load] of COMMANDS) if (STANDBY_COMMANDS.has(name)) await load();
}

/** Whether a job's arguments leave CUDA as the backend it may run on (--backend auto or cuda, not
 * --precision double). A wrong guess costs nothing but an idle context. */
function mayRunOnCuda(argv: string[]): boolean {
  const value = (name: string): string | undefined => {
    const i = argv.indexOf(name);
    if (i >= 0) return argv[i + 1];
    return argv.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
  };
  const backend = value('--backend') ?? 'auto';
  return (backend === 'auto' || backend === 'cuda') && value('--precision') !== 'double';
}

export function cleanup(): void {
  removePendingTemporaries();
  void stopEarlyReads();
}

/** Ctrl-C or SIGTERM: the first cancels the job (which removes its outputs), the second exits at once. */
export function onSignal(): void {
  if (interrupt.signal.aborted) {
    cleanup();
    process.exit(130);
  }
  interrupt.abort();
}

function exitCodeFor(err: unknown): number {
  if (err instanceof PhasorError) {
    if (err.code === 'cancelled') return 130;
    if (err.code === 'invalid-argument' || err.code === 'backend-unavailable') return 2;
  }
  return 1;
}

/**
 * Runs one command line. `standby` (a standby process, which runs one job after another and handles signals
 * and its exit itself) leaves process-wide handlers alone.
 */
export async function main(argv: string[], options: { standby?: boolean } = {}): Promise<number> {
  const debug = argv.includes('--debug');
  const program = new Command('phasor')
    .description(
      'Phasor: GPU signal workbench — spectra, filtering and correlation of audio and radio recordings',
    )
    .version(pkg.version)
    .option('--debug', 'show stack traces for errors')
    .showHelpAfterError('(run phasor --help for usage)')
    .exitOverride()
    .configureOutput({
      outputError: (str, write) => write(`phasor: ${str.replace(/^error: /, '')}`),
    });
  // The command is the first word that is not an option (the global options take no value).
  const named = argv.find((a) => !a.startsWith('-'));
  const only = COMMANDS.find(([name]) => name === named);
  // a file job asks its standby setting (main.ts, standby/auto.ts): one it does not know is a usage error
  if (named && STANDBY_COMMANDS.has(named) && !options.standby && standbyMode() === undefined) {
    process.stderr.write(`phasor: ${STANDBY_MODE_HELP}, got "${process.env.PHASOR_STANDBY}"\n`);
    return 2;
  }
  // The CUDA driver and context take 0.3–0.5 s to start: begun now on a native thread, they start while the
  // command's modules load and its input opens (which hides 100–150 ms of it on the lent H100).
  if (named && BACKEND_JOBS.has(named)) {
    // the files it names are read into the OS's cache from now, until the job's sources take over
    readEarly(inputCandidates(argv, named));
    if (mayRunOnCuda(argv)) (await import('../engine/backends/cuda/addon.js')).warmCuda();
  }
  for (const [, load] of only ? [only] : COMMANDS) (await load())(program);
  for (const cmd of program.commands) cmd.exitOverride().configureOutput(program.configureOutput());

  if (!options.standby) {
    process.once('exit', cleanup);
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }

  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Commander has already printed its message (usage errors) or the help/version text.
      return err.exitCode === 0 ? 0 : 2;
    }
    process.stderr.write(formatError(err) + '\n');
    if (debug && err instanceof Error && err.stack) process.stderr.write(err.stack + '\n');
    else if (!(err instanceof PhasorError)) {
      process.stderr.write('phasor: (an internal error; run with --debug for details and report it)\n');
    }
    return exitCodeFor(err);
  }
}

/** Runs a command line as this process's job and sets its exit status; a job that ran on CUDA leaves a
 * standby for the next one (standby/auto.ts). */
export async function runHere(argv: string[]): Promise<void> {
  const code = await main(argv);
  cleanup();
  process.exitCode = code;
  // Everything is disposed by now; should anything still hold the event loop, do not hang the shell.
  setTimeout(() => process.exit(code), 2000).unref();
  const named = argv.find((a) => !a.startsWith('-'));
  if (named && BACKEND_JOBS.has(named)) await (await import('./standby/auto.js')).afterJob(argv, code);
}
