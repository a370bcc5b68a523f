import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { parseWindow } from '../../engine/dsp/index.js';
import { InvalidArgumentError, ioError } from '../../engine/errors.js';
import { designTaps, filterSource, parseTaps, type FilterDesign } from '../../engine/pipeline/filter.js';
import { addFileOptions, addSyncOption } from '../options.js';
import {
  getBackend,
  interrupt,
  openInput,
  parseHz,
  parseIntOption,
  parsePair,
  printJson,
  Progress,
  warn,
  type FileOptions,
} from '../util.js';

interface FilterCli extends FileOptions {
  output: string;
  lowpass?: number;
  highpass?: number;
  bandpass?: [number, number];
  bandstop?: [number, number];
  taps?: string;
  numtaps: number;
  window: string;
  causal?: boolean;
  sha512?: boolean;
  sync: boolean;
  encoding?: string;
}

export function registerFilter(program: Command): void {
  addFileOptions(
    addSyncOption(
      program
        .command('filter')
        .description('linear-phase FIR filter (designed like scipy.signal.firwin) applied to a whole file')
        .argument('<input>')
        .requiredOption('-o, --output <file>', 'output file: .wav, or .sigmf-data/.sigmf-meta for SigMF')
        .option('--lowpass <hz>', 'low-pass cutoff', (v) => parseHz(v, '--lowpass'))
        .option('--highpass <hz>', 'high-pass cutoff (needs odd --numtaps)', (v) => parseHz(v, '--highpass'))
        .option('--bandpass <lo:hi>', 'band-pass edges', (v) => parsePair(v, '--bandpass'))
        .option('--bandstop <lo:hi>', 'band-stop edges (needs odd --numtaps)', (v) =>
          parsePair(v, '--bandstop'),
        )
        .option(
          '--taps <file>',
          'taps from a file: numbers separated by spaces/commas/newlines, or a JSON array',
        )
        .option('--numtaps <n>', 'filter length', (v) => parseIntOption(v, '--numtaps', 1), 255)
        .option('--window <w>', 'design window: hamming, hann, blackman, kaiser:BETA, …', 'hamming')
        .option('--causal', 'plain causal filtering (scipy lfilter): output delayed by (numtaps−1)/2')
        .option(
          '--sha512',
          "record the output data's SHA-512 in SigMF metadata (core:sha512; about 2 s per GiB)",
        )
        .option(
          '--encoding <e>',
          "output sample encoding, e.g. ri16_le, rf32_le, cf32_le (default: the input's)",
        ),
    ),
  ).action(async (input: string, opts: FilterCli) => {
    const chosen = (['lowpass', 'highpass', 'bandpass', 'bandstop', 'taps'] as const).filter(
      (k) => opts[k] !== undefined,
    );
    if (chosen.length !== 1) {
      throw new InvalidArgumentError(
        'give exactly one of --lowpass, --highpass, --bandpass, --bandstop, --taps',
      );
    }
    const source = await openInput(input, opts);
    let taps: Float64Array;
    let applied: Record<string, unknown>;
    try {
      if (opts.taps !== undefined) {
        let text: string;
        try {
          text = await readFile(opts.taps, 'utf8');
        } catch (e) {
          throw ioError(opts.taps, e);
        }
        taps = parseTaps(text, opts.taps);
        applied = { filter: 'fir', taps: opts.taps, numtaps: taps.length };
      } else {
        const kind = chosen[0] as FilterDesign['kind'];
        const cutoff = opts[kind] as number | [number, number];
        const design: FilterDesign = {
          kind,
          cutoff,
          numtaps: opts.numtaps,
          window: parseWindow(opts.window),
        };
        taps = designTaps(design, source.info.sampleRate);
        applied = { filter: kind, cutoff, numtaps: opts.numtaps, window: opts.window };
      }
    } catch (e) {
      await source.close();
      throw e;
    }
    applied.causal = !!opts.causal;
    const backend = await getBackend(opts, source);
    const i = source.info;
    const progress = new Progress('filter', i.channels * (i.complex ? 2 : 1) * 4);
    try {
      const r = await filterSource(backend, source, opts.output, taps, {
        causal: !!opts.causal,
        checksum: !!opts.sha512,
        durable: opts.sync,
        applied,
        ...(opts.encoding !== undefined ? { encoding: opts.encoding } : {}),
        signal: interrupt.signal,
        onProgress: (d, t) => progress.update(d, t),
        ...(opts.taps !== undefined ? { alsoRead: [opts.taps] } : {}),
      });
      progress.done();
      if (r.clipped > 0) {
        const total = r.frames * i.channels * (i.complex ? 2 : 1);
        warn({
          file: r.output,
          message: `${r.clipped} of ${total} samples clipped (${((100 * r.clipped) / total).toPrecision(2)}%) converting to ${r.encoding}`,
        });
      }
      if (opts.json) printJson(r);
      else
        process.stdout.write(
          `wrote ${r.output} (${r.frames} frames, ${r.encoding}, ${r.numtaps} taps, ${r.method} on ${r.backend})\n`,
        );
    } finally {
      progress.done();
      await source.close();
      await backend.dispose();
    }
  });
}
