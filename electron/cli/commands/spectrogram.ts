import path from 'node:path';
import { Option, type Command } from 'commander';
import type { Backend } from '../../engine/backends/backend.js';
import { PSD_SCALINGS, scipyFrequencies, type PsdScaling } from '../../engine/dsp/index.js';
import { InvalidArgumentError } from '../../engine/errors.js';
import { recordingStartTime } from '../../engine/io/start-time.js';
import { recordingFiles, refuseOverwritingInputs } from '../../engine/io/identity.js';
import { parseColormap, type ColormapName } from '../../engine/output/colormaps.js';
import { colorize, encodePng } from '../../engine/output/image.js';
import { npyHeader } from '../../engine/output/npy.js';
import { framePlot, spectrogramExtent, type Rect } from '../../engine/output/plot-frame.js';
import { openOutputFile } from '../../engine/output/atomic.js';
import { NpzWriter } from '../../engine/output/npz.js';
import { spectrogramPsdFile } from '../../engine/pipeline/psd.js';
import { hopFor, spectrogramImage, spectrogramRows } from '../../engine/pipeline/spectrogram.js';
import { WriteBehind } from '../../engine/pipeline/stages.js';
import type { SampleSource, SourceInfo } from '../../engine/sources/source.js';
import {
  DEFAULT_DB_RANGE,
  DEFAULT_OVERLAP,
  DEFAULT_WINDOW,
  frameCentreTime,
  frameCount,
  spectrumBins,
} from '../../engine/protocol/shape.js';
import { addFileOptions, addSyncOption } from '../options.js';
import {
  getBackend,
  interrupt,
  openInput,
  parseIntOption,
  parseNumber,
  parsePair,
  printJson,
  Progress,
  type FileOptions,
} from '../util.js';

interface SpectrogramCli extends FileOptions {
  output: string;
  fft: number;
  overlap: number;
  window: string;
  range: [number, number];
  colormap: string;
  width?: number;
  height?: number;
  channel: number;
  scaling?: PsdScaling;
  sync: boolean;
  bare?: boolean;
}

/** The PNG of a spectrogram image: framed (axes, colour bar, title with the start time) unless `bare`. */
function spectrogramPng(
  img: Awaited<ReturnType<typeof spectrogramImage>>,
  info: SourceInfo,
  file: string,
  opts: SpectrogramCli,
  colormap: ColormapName,
): { png: Buffer; plot?: Rect; colorBar?: Rect } {
  const rgba = colorize(img, opts.range, colormap);
  if (opts.bare) return { png: encodePng(rgba, img.width, img.height) };
  const start = recordingStartTime(info);
  const framed = framePlot({
    image: rgba,
    width: img.width,
    height: img.height,
    ...spectrogramExtent({ ...info, fft: opts.fft, hop: img.hop, frames: img.frames }),
    range: opts.range,
    colormap,
    title: [
      path.basename(file),
      start ? `start ${start}` : 'start time unknown',
      `FFT ${opts.fft} ${opts.window}`,
    ].join('  '),
  });
  return {
    png: encodePng(framed.data, framed.width, framed.height),
    plot: framed.plot,
    colorBar: framed.colorBar,
  };
}

export function registerSpectrogram(program: Command): void {
  addFileOptions(
    addSyncOption(
      program
        .command('spectrogram')
        .description(
          'spectrogram of a whole file as a PNG image (time →, frequency ↑), a .npy matrix of dB levels, or ' +
            "an .npz of scipy.signal.spectrogram's f, t and Sxx (linear)",
        )
        .argument('<file>')
        .requiredOption(
          '-o, --output <file>',
          'OUT.png (image), OUT.npy (frames × bins float32 dB matrix) or OUT.npz (f, t, Sxx as SciPy gives them)',
        )
        .option('--fft <n>', 'FFT length, any n ≥ 2', (v) => parseIntOption(v, '--fft', 2), 1024)
        .option(
          '--overlap <f>',
          'fraction of overlap between frames, 0 ≤ f < 1',
          (v) => parseNumber(v, '--overlap'),
          DEFAULT_OVERLAP,
        )
        .option(
          '--window <w>',
          'window (hann, hamming, blackman, blackmanharris, flattop, kaiser:BETA, rectangular)',
          DEFAULT_WINDOW,
        )
        .option('--range <lo:hi>', 'dB range mapped onto the colormap', (v) => parsePair(v, '--range'), [
          ...DEFAULT_DB_RANGE,
        ])
        .option('--colormap <name>', 'viridis, inferno, magma, turbo or gray', 'viridis')
        .option('--width <px>', 'image width (default: frames, at most 1600)', (v) =>
          parseIntOption(v, '--width', 1),
        )
        .option('--height <px>', 'image height (default: bins, at most 800)', (v) =>
          parseIntOption(v, '--height', 1),
        )
        .option('--channel <n>', 'channel to analyse', (v) => parseIntOption(v, '--channel', 0), 0)
        .addOption(
          new Option('--scaling <s>', '.npz only: density (V²/Hz, the default) or spectrum (V²)').choices([
            ...PSD_SCALINGS,
          ]),
        )
        .option('--bare', 'PNG: the image alone, without axes, colour bar and title'),
    ),
  ).action(async (file: string, opts: SpectrogramCli) => {
    const out = opts.output;
    const lower = out.toLowerCase();
    const kind = (['png', 'npy', 'npz'] as const).find((k) => lower.endsWith(`.${k}`));
    if (!kind) throw new InvalidArgumentError(`-o must name a .png, .npy or .npz file, got "${out}"`);
    if (opts.scaling !== undefined && kind !== 'npz') {
      throw new InvalidArgumentError(
        '--scaling applies to an .npz output only (.png and .npy hold dBFS levels)',
      );
    }
    const colormap = parseColormap(opts.colormap);
    if (!(opts.range[0] < opts.range[1]))
      throw new InvalidArgumentError('--range must be LOW:HIGH with LOW < HIGH');
    await refuseOverwritingInputs([out], recordingFiles(file));
    const source = await openInput(file, opts);
    const backend = await getBackend(opts, source);
    const progress = new Progress('spectrogram');
    const common = {
      fft: opts.fft,
      overlap: opts.overlap,
      window: opts.window,
      channel: opts.channel,
      signal: interrupt.signal,
      onProgress: (d: number, t: number | undefined) => progress.update(d, t),
    };
    try {
      let summary: Record<string, unknown>;
      if (kind === 'png') {
        const img = await spectrogramImage(backend, source, {
          ...common,
          ...(opts.width !== undefined ? { width: opts.width } : {}),
          ...(opts.height !== undefined ? { height: opts.height } : {}),
        });
        const { png, plot, colorBar } = spectrogramPng(img, source.info, file, opts, colormap);
        const output = await openOutputFile(out, { durable: opts.sync });
        try {
          await output.write(png);
          await output.commit();
        } catch (e) {
          await output.abort();
          throw e;
        }
        summary = {
          output: out,
          width: img.width,
          height: img.height,
          ...(plot && opts.json ? { plot, colorBar } : {}),
          frames: img.frames,
          bins: img.bins,
          hop: img.hop,
        };
      } else if (kind === 'npz') {
        summary = await writeNpz(backend, source, opts, {
          signal: interrupt.signal,
          onProgress: (d, t) => progress.update(d, t),
        });
      } else {
        const info = source.info;
        const hop = hopFor(opts.fft, opts.overlap);
        const frames = frameCount(info.samples ?? 0, opts.fft, hop);
        const bins = spectrumBins(opts.fft, info.complex);
        if (frames === 0) {
          throw new InvalidArgumentError(
            `${file} holds fewer samples than one FFT frame (${opts.fft}); use a smaller --fft`,
          );
        }
        const f = await openOutputFile(out, { durable: opts.sync });
        // Rows are written while the next block is computed.
        const writes = new WriteBehind((rows: Float32Array) => f.write(rows));
        try {
          await f.write(npyHeader([frames, bins]));
          let written = 0;
          // a block's rows are written while the next block is computed (reuseRows' contract)
          for await (const r of spectrogramRows(backend, source, { ...common, hop, reuseRows: true })) {
            const n = Math.min(r.count, frames - written);
            if (n > 0) await writes.push(r.rows.subarray(0, n * r.width));
            written += n;
          }
          await writes.drain();
          if (written !== frames) throw new Error(`internal: ${written} of ${frames} frames computed`);
          await f.commit();
        } catch (e) {
          await writes.settle();
          await f.abort();
          throw e;
        }
        summary = { output: out, frames, bins, hop };
      }
      progress.done();
      if (opts.json) printJson({ ...summary, backend: backend.name });
      else
        process.stdout.write(
          `wrote ${out} (${Object.entries(summary)
            .filter(([k]) => k !== 'output')
            .map(([k, v]) => `${k} ${v}`)
            .join(', ')})\n`,
        );
    } finally {
      progress.done();
      await source.close();
      await backend.dispose();
    }
  });
}

/**
 * scipy.signal.spectrogram(x, fs, window, nperseg=fft, noverlap=fft − hop, detrend=False, scaling,
 * mode='psd') as an .npz: f (Hz, float64, SciPy's order: FFT order for complex input), t (s, segment
 * centres, float64), Sxx (bins × frames, float32: SciPy's dtype for float32 samples) and, for I/Q with a
 * centre frequency, the scalar center_frequency. Sxx is stored in Fortran order, so the rows the engine
 * computes frame by frame are its columns, written as they come: np.load gives the (bins, frames) array.
 */
async function writeNpz(
  backend: Backend,
  source: SampleSource,
  opts: SpectrogramCli,
  job: { signal: AbortSignal; onProgress: (done: number, total: number | undefined) => void },
): Promise<Record<string, unknown>> {
  const { info } = source;
  const fft = opts.fft;
  const hop = hopFor(fft, opts.overlap);
  const frames = frameCount(info.samples ?? 0, fft, hop);
  const bins = spectrumBins(fft, info.complex);
  if (frames === 0) {
    throw new InvalidArgumentError(
      `${info.path ?? 'the input'} holds fewer samples than one FFT frame (${fft}); use a smaller --fft`,
    );
  }
  const t = new Float64Array(frames);
  for (let i = 0; i < frames; i++) t[i] = frameCentreTime(i, fft, hop, info.sampleRate);
  const npz = await NpzWriter.create(opts.output, { durable: opts.sync });
  try {
    await npz.add('f', scipyFrequencies(fft, info.sampleRate, info.complex));
    await npz.add('t', t);
    if (info.complex && info.centerFrequency !== undefined) {
      await npz.add('center_frequency', Float64Array.of(info.centerFrequency), []);
    }
    const sxx = await npz.begin('Sxx', 'f4', [bins, frames], { fortranOrder: true });
    let written = 0;
    await spectrogramPsdFile(
      backend,
      source,
      {
        nperseg: fft,
        noverlap: fft - hop,
        window: opts.window,
        scaling: opts.scaling ?? 'density',
        channel: opts.channel,
        signal: job.signal,
        onProgress: job.onProgress,
      },
      async (rows, count) => {
        const n = Math.min(count, frames - written);
        if (n > 0) await sxx.write(rows.subarray(0, n * bins));
        written += n;
      },
    );
    if (written !== frames) throw new Error(`internal: ${written} of ${frames} frames computed`);
    await sxx.end();
    await npz.commit();
  } catch (e) {
    await npz.abort();
    throw e;
  }
  return { output: opts.output, frames, bins, hop, noverlap: fft - hop, scaling: opts.scaling ?? 'density' };
}
