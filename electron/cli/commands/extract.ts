import type { Command } from 'commander';
import { InvalidArgumentError } from '../../engine/errors.js';
import { extractSource } from '../../engine/pipeline/extract.js';
import { EXTRACT_NUMTAPS } from '../../engine/protocol/extract.js';
import { addFileOptions, addSyncOption } from '../options.js';
import {
  getBackend,
  interrupt,
  keyValues,
  openInput,
  parseHz,
  parseIntOption,
  parseNumber,
  printJson,
  Progress,
  warn,
  type FileOptions,
} from '../util.js';

interface ExtractCli extends FileOptions {
  output: string;
  start?: number;
  duration?: number;
  shift?: number;
  lowpass?: number;
  numtaps: number;
  decimate: number;
  sync: boolean;
}

function parseSeconds(text: string, name: string): number {
  const v = parseNumber(text, name);
  if (v < 0) throw new InvalidArgumentError(`${name} must be a number of seconds ≥ 0, got "${text}"`);
  return v;
}

export function registerExtract(program: Command): void {
  addFileOptions(
    addSyncOption(
      program
        .command('extract')
        .description(
          'extract a time range to a new file: shifted by --shift, low-passed (firwin), every --decimate-th sample',
        )
        .argument('<input>')
        .requiredOption(
          '-o, --output <file>',
          'output file: .sigmf-meta/.sigmf-data (cf32_le, or rf32_le), or .wav for an unshifted real input',
        )
        .option('--start <s>', 'start of the range (seconds from the start of the file)', (v) =>
          parseSeconds(v, '--start'),
        )
        .option('--duration <s>', 'length of the range (seconds; default: to the end)', (v) =>
          parseSeconds(v, '--duration'),
        )
        .option(
          '--shift <hz>',
          'frequency moved to 0 Hz (relative to the centre of I/Q; a real input becomes complex)',
          (v) => parseHz(v, '--shift'),
        )
        .option('--lowpass <hz>', 'low-pass cutoff after the shift (firwin, delay-compensated)', (v) =>
          parseHz(v, '--lowpass'),
        )
        .option(
          '--numtaps <n>',
          'low-pass filter length',
          (v) => parseIntOption(v, '--numtaps', 1),
          EXTRACT_NUMTAPS,
        )
        .option('--decimate <k>', 'keep every k-th sample', (v) => parseIntOption(v, '--decimate', 1), 1),
    ),
  ).action(async (input: string, opts: ExtractCli) => {
    const source = await openInput(input, opts);
    const fs = source.info.sampleRate;
    const start = Math.round((opts.start ?? 0) * fs);
    const end = opts.duration !== undefined ? start + Math.round(opts.duration * fs) : undefined;
    const backend = await getBackend(opts, source);
    const i = source.info;
    const progress = new Progress('extract', i.channels * (i.complex ? 2 : 1) * 4);
    try {
      const r = await extractSource(backend, source, opts.output, {
        start,
        ...(end !== undefined ? { end } : {}),
        ...(opts.shift !== undefined ? { shift: opts.shift } : {}),
        ...(opts.lowpass !== undefined ? { lowpass: opts.lowpass, numtaps: opts.numtaps } : {}),
        decimate: opts.decimate,
        durable: opts.sync,
        signal: interrupt.signal,
        onProgress: (d, t) => progress.update(d, t),
        onWarning: warn,
      });
      progress.done();
      if (opts.json) printJson(r);
      else
        process.stdout.write(
          keyValues([
            ['output', r.output],
            ['frames', `${r.frames} (${r.complex ? 'complex' : 'real'}, ${r.encoding})`],
            ['rate', `${r.sampleRate} Hz`],
            ...(r.centerFrequency !== undefined
              ? ([['centre', `${r.centerFrequency} Hz`]] as Array<[string, string]>)
              : []),
            ['seconds', `${r.duration} (from ${r.start / fs} s of the input)`],
            ...(r.datetime !== undefined ? ([['datetime', r.datetime]] as Array<[string, string]>) : []),
            ['backend', r.backend],
          ]),
        );
    } finally {
      progress.done();
      await source.close();
      await backend.dispose();
    }
  });
}
