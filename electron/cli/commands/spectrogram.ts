import type { Command } from 'commander';
import { InvalidArgumentError } from '../../engine/errors.js';
import { recordingFiles, refuseOverwritingInputs } from '../../engine/io/identity.js';
import { parseColormap } from '../../engine/output/colormaps.js';
import { colorize, encodePng } from '../../engine/output/image.js';
import { npyHeader } from '../../engine/output/npy.js';
import { openOutputFile } from '../../engine/output/atomic.js';
import { hopFor, spectrogramImage, spectrogramRows } from '../../engine/pipeline/spectrogram.js';
import { WriteBehind } from '../../engine/pipeline/stages.js';
import {
  DEFAULT_DB_RANGE,
  DEFAULT_OVERLAP,
  DEFAULT_WINDOW,
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
  sync: boolean;
}

export function registerSpectrogram(program: Command): void {
  addFileOptions(
    addSyncOption(
      program
        .command('spectrogram')
        .description(
          'spectrogram of a whole file as a PNG image (time →, frequency ↑) or a .npy matrix of dB levels',
        )
        .argument('<file>')
        .requiredOption('-o, --output <file>', 'OUT.png (image) or OUT.npy (frames × bins float32 dB matrix)')
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
        .option('--channel <n>', 'channel to analyse', (v) => parseIntOption(v, '--channel', 0), 0),
    ),
  ).action(async (file: string, opts: SpectrogramCli) => {
    const out = opts.output;
    const kind = out.toLowerCase().endsWith('.png')
      ? 'png'
      : out.toLowerCase().endsWith('.npy')
        ? 'npy'
        : null;
    if (!kind) throw new InvalidArgumentError(`-o must name a .png or .npy file, got "${out}"`);
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
        const file = await openOutputFile(out, { durable: opts.sync });
        try {
          await file.write(encodePng(colorize(img, opts.range, colormap), img.width, img.height));
          await file.commit();
        } catch (e) {
          await file.abort();
          throw e;
        }
        summary = {
          output: out,
          width: img.width,
          height: img.height,
          frames: img.frames,
          bins: img.bins,
          hop: img.hop,
        };
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
