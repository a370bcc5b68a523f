import type { Command } from 'commander';
import { InvalidArgumentError, PhasorError } from '../../engine/errors.js';
import { runRecord } from '../../engine/record/run.js';
import { addTuningOptions, liveSourceParams, SOURCE_SPECS, type TuningOptions } from '../source-options.js';
import { interrupt, keyValues, parseNumber, printJson, warn } from '../util.js';

interface RecordCli extends TuningOptions {
  source: string;
  duration: number;
  output?: string;
  json?: boolean;
}

export function registerRecord(program: Command): void {
  const command = program
    .command('record')
    .description(
      'record a live source to SigMF (.sigmf-meta) or WAV (.wav, RF64 past 4 GiB), crash-safe; Ctrl-C stops and keeps it',
    )
    .option('--source <spec>', SOURCE_SPECS, 'mic')
    .option('--duration <s>', 'seconds of signal to record', (v) => parseNumber(v, '--duration'), 10)
    .option('-o, --output <file>', 'the recording: NAME.sigmf-meta (SigMF) or NAME.wav (audio)');
  addTuningOptions(command)
    .option('--json', 'print what was written as JSON on stdout (and nothing else there)')
    .action(async (opts: RecordCli) => {
      if (opts.output === undefined)
        throw new InvalidArgumentError('record needs -o FILE (.sigmf-meta or .wav)');
      const source = liveSourceParams(opts.source, opts);
      const r = await runRecord({
        source,
        duration: opts.duration,
        output: opts.output,
        signal: interrupt.signal,
        onWarning: warn,
      });
      if (opts.json) {
        printJson({
          path: r.path,
          files: r.paths,
          frames: r.frames,
          seconds: r.seconds,
          bytes: r.bytes,
          sampleRate: r.sampleRate,
          ...(r.centerFrequency !== undefined ? { centerFrequency: r.centerFrequency } : {}),
          datatype: r.datatype,
          dropped: r.dropped,
          gaps: r.gaps,
          stopped: r.stopped,
        });
      } else {
        process.stdout.write(
          keyValues([
            ['wrote', r.paths.join(', ')],
            ['source', r.source],
            ['sample rate', `${r.sampleRate} Hz`],
            ...(r.centerFrequency !== undefined
              ? [['centre', `${r.centerFrequency} Hz`] as [string, string]]
              : []),
            ['datatype', r.datatype],
            ['signal', `${r.seconds.toFixed(3)} s (${r.frames} frames)`],
            ['bytes', String(r.bytes)],
            ['dropped', `${r.dropped} frames in ${r.gaps} gap${r.gaps === 1 ? '' : 's'}`],
            ['stopped', r.stopped],
          ]),
        );
      }
      // The file is kept and valid either way; a recording cut short by the disk or the source fails.
      if (r.failed)
        throw new PhasorError('io', `the recording stopped early: ${r.stopped}`, { file: r.path });
    });
}
