import type { Command } from 'commander';
import { analyzePeaks } from '../../engine/pipeline/peaks.js';
import { DEFAULT_WINDOW, WELCH_FFT_SIZE_MIN } from '../../engine/protocol/shape.js';
import { addFileOptions } from '../options.js';
import {
  getBackend,
  interrupt,
  openInput,
  parseIntOption,
  printJson,
  Progress,
  table,
  type FileOptions,
} from '../util.js';

interface PeaksCli extends FileOptions {
  fft?: number;
  window: string;
  count: number;
}

export function registerPeaks(program: Command): void {
  addFileOptions(
    program
      .command('peaks')
      .description(
        'the strongest distinct peaks of the Welch-averaged spectrum (frequency in Hz, level in dBFS)',
      )
      .argument('<file>')
      .option(
        '--fft <n>',
        `segment length, any n ≥ ${WELCH_FFT_SIZE_MIN} (default: bins narrower than 1 Hz)`,
        (v) => parseIntOption(v, '--fft', WELCH_FFT_SIZE_MIN),
      )
      .option(
        '--window <w>',
        'window: rectangular, hann, hamming, blackman, blackmanharris, flattop, kaiser:BETA',
        DEFAULT_WINDOW,
      )
      .option('--count <k>', 'how many peaks', (v) => parseIntOption(v, '--count', 1), 5),
  ).action(async (file: string, opts: PeaksCli) => {
    const source = await openInput(file, opts);
    const backend = await getBackend(opts, source);
    const progress = new Progress('peaks');
    try {
      const r = await analyzePeaks(backend, source, {
        ...(opts.fft !== undefined ? { fft: opts.fft } : {}),
        window: opts.window,
        count: opts.count,
        signal: interrupt.signal,
        onProgress: (d, t) => progress.update(d, t),
      });
      progress.done();
      if (opts.json) return printJson(r.peaks);
      process.stdout.write(
        table(
          ['frequency (Hz)', 'level (dBFS)'],
          r.peaks.map((p) => [p.frequency.toFixed(3), p.level.toFixed(2)]),
        ),
      );
      process.stderr.write(
        `fft ${r.fft}, ${r.segments} segment${r.segments === 1 ? '' : 's'} averaged, bin width ${r.binWidth.toPrecision(4)} Hz, backend ${backend.name}\n`,
      );
    } finally {
      progress.done();
      await source.close();
      await backend.dispose();
    }
  });
}
