import type { Command } from 'commander';
import { InvalidArgumentError, PhasorError } from '../../engine/errors.js';
import { runRecord } from '../../engine/record/run.js';
import { sourceKinds } from '../../engine/sources/kinds.js';
import type { SourceParams } from '../../engine/protocol/messages.js';
import { interrupt, keyValues, parseHz, parseNumber, printJson, warn } from '../util.js';

interface RecordCli {
  source: string;
  duration: number;
  output?: string;
  center?: number;
  rate?: number;
  gain?: string;
  ppm?: number;
  json?: boolean;
}

/**
 * The source's parameters from --source and the tuning options given (--center, --rate, --gain, --ppm),
 * checked against the kind's own fields: an option the kind does not take is refused, not ignored.
 */
export function recordSourceParams(
  spec: string,
  extra: { center?: number; rate?: number; gain?: string; ppm?: number },
): SourceParams {
  const params: Record<string, unknown> = { ...sourceKinds.fromSpec(spec) };
  const kind = sourceKinds.get(params.kind);
  const given: Array<[string, string, unknown]> = [];
  if (extra.center !== undefined) given.push(['--center', 'centerFrequency', extra.center]);
  if (extra.rate !== undefined) given.push(['--rate', 'sampleRate', extra.rate]);
  if (extra.gain !== undefined) {
    const g = extra.gain.trim().toLowerCase();
    given.push(['--gain', 'gain', g === 'auto' ? 'auto' : parseNumber(g, '--gain')]);
  }
  if (extra.ppm !== undefined) given.push(['--ppm', 'ppm', extra.ppm]);
  for (const [option, field, value] of given) {
    if (!kind.fields.some((f) => f.name === field)) {
      throw new InvalidArgumentError(`${option} does not apply to the ${kind.kind} source`);
    }
    params[field] = value;
  }
  return kind.parse(params);
}

export function registerRecord(program: Command): void {
  program
    .command('record')
    .description(
      'record a live source to SigMF (.sigmf-meta) or WAV (.wav, RF64 past 4 GiB), crash-safe; Ctrl-C stops and keeps it',
    )
    .option('--source <spec>', 'mic[:DEVICE], generator[:FREQ], rtl_tcp://HOST:PORT, file:PATH', 'mic')
    .option('--duration <s>', 'seconds of signal to record', (v) => parseNumber(v, '--duration'), 10)
    .option('-o, --output <file>', 'the recording: NAME.sigmf-meta (SigMF) or NAME.wav (audio)')
    .option('--center <hz>', 'centre frequency (rtl_tcp, a complex generator)', (v) => parseHz(v, '--center'))
    .option('--rate <hz>', 'sample rate', (v) => parseHz(v, '--rate'))
    .option('--gain <db>', "tuner gain in dB, or 'auto' (rtl_tcp)")
    .option('--ppm <p>', 'frequency correction in ppm (rtl_tcp)', (v) => parseNumber(v, '--ppm'))
    .option('--json', 'print what was written as JSON on stdout (and nothing else there)')
    .action(async (opts: RecordCli) => {
      if (opts.output === undefined)
        throw new InvalidArgumentError('record needs -o FILE (.sigmf-meta or .wav)');
      const source = recordSourceParams(opts.source, opts);
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
