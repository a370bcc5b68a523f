import type { Command } from 'commander';
import { DEFAULT_FLOOR_DB } from '../../engine/dsp/levels.js';
import { InvalidArgumentError } from '../../engine/errors.js';
import { measureSource, type SourceMeasurement } from '../../engine/pipeline/measure.js';
import { DEFAULT_WINDOW, WELCH_FFT_SIZE_MIN } from '../../engine/protocol/shape.js';
import { addFileOptions } from '../options.js';
import {
  getBackend,
  interrupt,
  keyValues,
  openInput,
  parseIntOption,
  parseNumber,
  parsePair,
  printJson,
  Progress,
  type FileOptions,
} from '../util.js';

interface MeasureCli extends FileOptions {
  start?: number;
  duration?: number;
  band?: [number, number];
  fft?: number;
  window: string;
  channel: number;
}

function seconds(text: string, name: string): number {
  const v = parseNumber(text, name);
  if (v < 0) throw new InvalidArgumentError(`${name} must be ≥ 0 seconds, got "${text}"`);
  return v;
}

const hz = (f: number): string => `${Number(f.toFixed(3))} Hz`;
const dB = (v: number, unit = 'dB'): string => `${v.toFixed(2)} ${unit}`;

/** The measurements for people: one "name  value" line each, the reason where a value is absent. */
export function formatMeasurement(m: SourceMeasurement): string {
  const rows: Array<[string, string]> = [
    ['band', `${hz(m.band[0])} … ${hz(m.band[1])}`],
    ['band power', dB(m.bandPower, 'dBFS')],
  ];
  const obw = m.occupiedBandwidth;
  rows.push([
    'occupied BW',
    obw ? `${hz(obw.width)} (${hz(obw.lower)} … ${hz(obw.upper)})` : `— (${m.missing.occupiedBandwidth})`,
  ]);
  if (m.tone) rows.push(['tone', `${hz(m.tone.frequency)}, ${dB(m.tone.level, 'dBFS')}`]);
  rows.push(['SNR', m.snr !== undefined ? dB(m.snr) : `— (${m.missing.snr})`]);
  if (m.thd) {
    rows.push(['THD', `${m.thd.thdPercent.toPrecision(4)} % (${dB(m.thd.thdDb)})`]);
    rows.push(['THD+N', `${m.thd.thdnPercent.toPrecision(4)} % (${dB(m.thd.thdnDb)})`]);
    for (const h of m.thd.harmonics)
      rows.push([
        `  H${h.order}`,
        `${hz(h.frequency)}, ${h.level > DEFAULT_FLOOR_DB ? dB(h.level, 'dBFS') : 'below the noise'}`,
      ]);
  } else rows.push(['THD', `— (${m.missing.thd})`]);
  rows.push([
    'RBW',
    `${hz(m.rbw)} (${m.window}, ENBW ${m.enbw.toFixed(3)} bins, fft ${m.fft}, ${m.segments} segment${m.segments === 1 ? '' : 's'})`,
  ]);
  return keyValues(rows);
}

export function registerMeasure(program: Command): void {
  addFileOptions(
    program
      .command('measure')
      .description(
        'band power (dBFS), occupied bandwidth (99 %), SNR, THD and THD+N of a band of a recording, from its Welch spectrum',
      )
      .argument('<file>')
      .option('--start <s>', 'first second measured (default 0)', (v) => seconds(v, '--start'))
      .option('--duration <s>', 'seconds measured (default: to the end)', (v) => seconds(v, '--duration'))
      .option(
        '--band <lo:hi>',
        'band in Hz, absolute for I/Q (e.g. 20:20k; default the whole spectrum)',
        (v) => parsePair(v, '--band'),
      )
      .option(
        '--fft <n>',
        `segment length, any n ≥ ${WELCH_FFT_SIZE_MIN} (default: from the length and the band)`,
        (v) => parseIntOption(v, '--fft', WELCH_FFT_SIZE_MIN),
      )
      .option(
        '--window <w>',
        'window: rectangular, hann, hamming, blackman, blackmanharris, flattop, kaiser:BETA',
        DEFAULT_WINDOW,
      )
      .option('--channel <n>', 'channel to measure', (v) => parseIntOption(v, '--channel', 0), 0),
  ).action(async (file: string, opts: MeasureCli) => {
    const source = await openInput(file, opts);
    const progress = new Progress('measure');
    let backend;
    try {
      const fs = source.info.sampleRate;
      const start = Math.round((opts.start ?? 0) * fs);
      const end = opts.duration !== undefined ? start + Math.round(opts.duration * fs) : undefined;
      backend = await getBackend(opts, source);
      const m = await measureSource(backend, source, {
        start,
        ...(end !== undefined ? { end } : {}),
        ...(opts.band ? { fLow: opts.band[0], fHigh: opts.band[1] } : {}),
        ...(opts.fft !== undefined ? { fft: opts.fft } : {}),
        window: opts.window,
        channel: opts.channel,
        signal: interrupt.signal,
        onProgress: (d, t) => progress.update(d, t),
      });
      progress.done();
      if (opts.json) return printJson(m);
      process.stdout.write(formatMeasurement(m));
    } finally {
      progress.done();
      await source.close();
      await backend?.dispose();
    }
  });
}
