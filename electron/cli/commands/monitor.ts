import type { Command } from 'commander';
import { sourceKinds } from '../../engine/sources/kinds.js';
import { runMonitor } from '../../engine/live/monitor.js';
import { DEFAULT_FFT, FFT_SIZE_MIN } from '../../engine/protocol/shape.js';
import { addTuningOptions, liveSourceParams, SOURCE_SPECS, type TuningOptions } from '../source-options.js';
import { interrupt, keyValues, parseIntOption, parseNumber, printJson, table, warn } from '../util.js';

interface MonitorCli extends TuningOptions {
  source: string;
  duration: number;
  fft?: number;
  peaks?: boolean;
  count: number;
  json?: boolean;
  listDevices?: boolean;
}

export function registerMonitor(program: Command): void {
  const command = program
    .command('monitor')
    .description(
      'the live pipeline without a window: capture from a source for a while, print counts and peaks',
    )
    .option(
      '--source <spec>',
      `${SOURCE_SPECS} (DEVICE: a name, part of one, or an id from --list-devices)`,
      'mic',
    )
    .option('--duration <s>', 'seconds of signal to take', (v) => parseNumber(v, '--duration'), 5)
    .option(
      '--fft <n>',
      `FFT size, any n ≥ ${FFT_SIZE_MIN} (default ${DEFAULT_FFT} for the rows; bins under 1 Hz for --peaks)`,
      (v) => parseIntOption(v, '--fft', FFT_SIZE_MIN),
    )
    .option('--peaks', 'report the strongest peaks of the averaged spectrum (frequency in Hz, level in dBFS)')
    .option('--count <k>', 'how many peaks', (v) => parseIntOption(v, '--count', 1), 5);
  addTuningOptions(command)
    .option('--list-devices', 'list the audio input devices and exit')
    .option('--json', 'print machine-readable JSON on stdout (and nothing else there)')
    .action(async (opts: MonitorCli) => {
      if (opts.listDevices) {
        const devices = await sourceKinds.listDevices('mic');
        if (opts.json) return printJson(devices);
        process.stdout.write(
          devices.length === 0
            ? 'no audio input device found\n'
            : table(
                ['device', 'channels', 'preferred rate (Hz)', 'default'],
                devices.map((d) => [d.name, d.channels, d.preferredSampleRate, d.isDefault ? 'yes' : '']),
              ),
        );
        return;
      }
      const source = liveSourceParams(opts.source, opts);
      const r = await runMonitor({
        source,
        duration: opts.duration,
        ...(opts.fft !== undefined ? { fft: opts.fft } : {}),
        peaks: opts.peaks ? opts.count : 0,
        signal: interrupt.signal,
        onWarning: warn,
      });
      if (opts.json) {
        printJson({
          blocks: r.blocks,
          dropped: r.dropped,
          reconnects: r.reconnects,
          sampleRate: r.sampleRate,
          ...(r.centerFrequency !== undefined ? { centerFrequency: r.centerFrequency } : {}),
          ...(r.peaks ? { peaks: r.peaks } : {}),
          rows: r.rows,
          frames: r.frames,
          ...(r.fft !== undefined ? { fft: r.fft } : {}),
          backend: r.backend,
          source: r.source,
        });
        return;
      }
      process.stdout.write(
        keyValues([
          ['source', r.source],
          ['sample rate', `${r.sampleRate} Hz`],
          ...(r.centerFrequency !== undefined
            ? [['centre', `${r.centerFrequency} Hz`] as [string, string]]
            : []),
          ['signal', `${(r.frames / r.sampleRate).toFixed(3)} s`],
          ['blocks', String(r.blocks)],
          ['dropped blocks', String(r.dropped)],
          ['reconnects', String(r.reconnects)],
          ['rows', String(r.rows)],
          ['backend', r.backend],
        ]),
      );
      if (r.peaks) {
        process.stdout.write(
          '\n' +
            table(
              ['frequency (Hz)', 'level (dBFS)'],
              r.peaks.map((p) => [p.frequency.toFixed(3), p.level.toFixed(2)]),
            ),
        );
      }
    });
}
