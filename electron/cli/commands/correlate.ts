import type { Command } from 'commander';
import { correlateSources } from '../../engine/pipeline/correlate.js';
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

interface CorrelateCli extends FileOptions {
  top: number;
  channel: number;
}

export function registerCorrelate(program: Command): void {
  addFileOptions(
    program
      .command('correlate')
      .description('normalized cross-correlation of a long signal against a template: best matches first')
      .argument('<signal>', 'the signal (streamed: it may be larger than memory)')
      .argument('<template>', 'the template (read whole)')
      .option('--top <k>', 'how many distinct matches', (v) => parseIntOption(v, '--top', 1), 5)
      .option('--channel <n>', 'channel to use', (v) => parseIntOption(v, '--channel', 0), 0),
  ).action(async (signalPath: string, templatePath: string, opts: CorrelateCli) => {
    const signal = await openInput(signalPath, opts);
    const template = await openInput(templatePath, opts).catch(async (e) => {
      await signal.close();
      throw e;
    });
    const backend = await getBackend(opts, signal, template);
    const progress = new Progress('correlate');
    try {
      const r = await correlateSources(backend, signal, template, {
        top: opts.top,
        channel: opts.channel,
        signal: interrupt.signal,
        onProgress: (d, t) => progress.update(d, t),
      });
      progress.done();
      if (opts.json) return printJson(r.peaks);
      process.stdout.write(
        table(
          ['lag (samples)', 'time (s)', 'score'],
          r.peaks.map((p) => [p.lag, p.time.toFixed(6), p.score.toFixed(4)]),
        ),
      );
    } finally {
      progress.done();
      await signal.close();
      await template.close();
      await backend.dispose();
    }
  });
}
