import { Option, type Command } from 'commander';
import {
  formatWindow,
  parseWindow,
  PSD_AVERAGES,
  PSD_DEFAULT_NPERSEG,
  PSD_DEFAULT_WINDOW,
  PSD_DETRENDS,
  PSD_SCALINGS,
  type Detrend,
  type PsdAverage,
  type PsdResult,
  type PsdScaling,
} from '../../engine/dsp/index.js';
import { InvalidArgumentError } from '../../engine/errors.js';
import { recordingFiles, refuseOverwritingInputs } from '../../engine/io/identity.js';
import { openOutputFile } from '../../engine/output/atomic.js';
import { analyzePsd } from '../../engine/pipeline/psd.js';
import { WELCH_FFT_SIZE_MIN } from '../../engine/protocol/shape.js';
import { addFileOptions, addSyncOption } from '../options.js';
import {
  getBackend,
  interrupt,
  openInput,
  parseIntOption,
  printJson,
  Progress,
  type FileOptions,
} from '../util.js';

interface PsdCli extends FileOptions {
  output?: string;
  nperseg?: number;
  noverlap?: number;
  window: string;
  scaling: PsdScaling;
  detrend: Detrend;
  average: PsdAverage;
  channel: number;
  sync: boolean;
}

/** The SciPy call a result equals, for the CSV's comment and the summary. */
function scipyCall(r: PsdResult, window: string): string {
  const w = parseWindow(window);
  const win =
    w.name === 'kaiser' ? `('kaiser', ${w.beta})` : `'${w.name === 'rectangular' ? 'boxcar' : w.name}'`;
  const detrend = r.detrend === 'none' ? 'False' : `'${r.detrend}'`;
  return (
    `scipy.signal.welch(x, fs=${r.sampleRate}, window=${win}, nperseg=${r.nperseg}, noverlap=${r.noverlap}, ` +
    `detrend=${detrend}, scaling='${r.scaling}', average='${r.average}')`
  );
}

/** CSV: a header line, '#' comment lines (what it equals, units), then one `frequency,psd` line a bin
 * (shortest round-trip decimals): pandas.read_csv(path, comment='#'), numpy.loadtxt(path, delimiter=',',
 * skiprows=1) and numpy.genfromtxt(path, delimiter=',', names=True) read it. */
export function psdCsv(r: PsdResult, file: string, window: string): string {
  const unit = r.scaling === 'density' ? 'V2_per_Hz' : 'V2';
  const freq =
    r.centerFrequency !== undefined
      ? `absolute: the centre ${r.centerFrequency} Hz plus the offset`
      : r.complex
        ? 'relative to the centre'
        : 'from 0 to fs/2';
  const lines = [
    `frequency_hz,psd_${unit}`,
    `# phasor psd ${file.replace(/[\r\n]/g, ' ')}`,
    `# equals ${scipyCall(r, window)}${r.complex ? ' after numpy.fft.fftshift' : ''}`,
    `# ${r.segments} segment${r.segments === 1 ? '' : 's'}; frequency in Hz (${freq}); psd in ${r.units}`,
  ];
  for (let k = 0; k < r.psd.length; k++) lines.push(`${r.frequencies[k]},${r.psd[k]}`);
  return lines.join('\n') + '\n';
}

export function registerPsd(program: Command): void {
  addFileOptions(
    addSyncOption(
      program
        .command('psd')
        .description(
          'power spectral density of one channel as scipy.signal.welch computes it (linear units, V²/Hz or V²)',
        )
        .argument('<file>')
        .option('-o, --output <file>', 'write the spectrum to OUT.csv (frequency_hz, psd)')
        .option(
          '--nperseg <n>',
          `segment length, n ≥ ${WELCH_FFT_SIZE_MIN} (default ${PSD_DEFAULT_NPERSEG}, or the signal's length when shorter)`,
          (v) => parseIntOption(v, '--nperseg', WELCH_FFT_SIZE_MIN),
        )
        .option('--noverlap <m>', 'samples shared by neighbouring segments (default nperseg/2)', (v) =>
          parseIntOption(v, '--noverlap', 0),
        )
        .option(
          '--window <w>',
          'periodic window: hann, hamming, blackman, blackmanharris, flattop, kaiser:BETA, rectangular',
          PSD_DEFAULT_WINDOW,
        )
        .addOption(
          new Option('--scaling <s>', 'density (V²/Hz) or spectrum (V²)')
            .choices([...PSD_SCALINGS])
            .default('density'),
        )
        .addOption(
          new Option('--detrend <d>', 'per segment: subtract the mean, a least-squares line, or nothing')
            .choices([...PSD_DETRENDS])
            .default('constant'),
        )
        .addOption(
          new Option('--average <a>', 'average of the segments (median: divided by its bias, as SciPy does)')
            .choices([...PSD_AVERAGES])
            .default('mean'),
        )
        .option('--channel <n>', 'channel to analyse', (v) => parseIntOption(v, '--channel', 0), 0),
    ),
  ).action(async (file: string, opts: PsdCli) => {
    const out = opts.output;
    if (out !== undefined && !out.toLowerCase().endsWith('.csv')) {
      throw new InvalidArgumentError(`-o must name a .csv file, got "${out}"`);
    }
    const window = formatWindow(parseWindow(opts.window));
    if (out !== undefined) await refuseOverwritingInputs([out], recordingFiles(file));
    const source = await openInput(file, opts);
    const backend = await getBackend(opts, source);
    const progress = new Progress('psd');
    try {
      const r = await analyzePsd(backend, source, {
        ...(opts.nperseg !== undefined ? { nperseg: opts.nperseg } : {}),
        ...(opts.noverlap !== undefined ? { noverlap: opts.noverlap } : {}),
        window,
        scaling: opts.scaling,
        detrend: opts.detrend,
        average: opts.average,
        channel: opts.channel,
        signal: interrupt.signal,
        onProgress: (d, t) => progress.update(d, t),
      });
      progress.done();
      if (out !== undefined) {
        const f = await openOutputFile(out, { durable: opts.sync });
        try {
          await f.write(Buffer.from(psdCsv(r, file, window), 'utf8'));
          await f.commit();
        } catch (e) {
          await f.abort();
          throw e;
        }
      }
      if (opts.json) {
        return printJson({
          frequencies: Array.from(r.frequencies),
          psd: Array.from(r.psd),
          units: r.units,
          scaling: r.scaling,
          detrend: r.detrend,
          average: r.average,
          window,
          nperseg: r.nperseg,
          noverlap: r.noverlap,
          segments: r.segments,
          sampleRate: r.sampleRate,
          ...(r.centerFrequency !== undefined ? { centerFrequency: r.centerFrequency } : {}),
          binWidth: r.binWidth,
          enbw: r.enbw,
          backend: backend.name,
        });
      }
      let peak = 0;
      for (let k = 1; k < r.psd.length; k++) if (r.psd[k] > r.psd[peak]) peak = k;
      const lines = [
        `${r.segments} segment${r.segments === 1 ? '' : 's'} of ${r.nperseg} (noverlap ${r.noverlap}, ${window}), ` +
          `bin width ${r.binWidth.toPrecision(4)} Hz, ENBW ${r.enbw.toPrecision(4)} Hz`,
        `strongest bin ${r.frequencies[peak]} Hz: ${r.psd[peak].toPrecision(4)} ${r.units} ` +
          `(${(10 * Math.log10(r.psd[peak])).toFixed(1)} dB)`,
      ];
      if (out !== undefined) lines.push(`wrote ${out} (${r.psd.length} bins)`);
      process.stdout.write(lines.join('\n') + '\n');
      process.stderr.write(
        `${r.scaling}, detrend ${r.detrend}, average ${r.average}, backend ${backend.name}\n`,
      );
    } finally {
      progress.done();
      await source.close();
      await backend.dispose();
    }
  });
}
