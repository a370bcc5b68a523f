import type { Command } from 'commander';
import { keyValues, printJson, openInput, type FileOptions } from '../util.js';
import { addFileOptions } from '../options.js';

export function registerInfo(program: Command): void {
  addFileOptions(
    program
      .command('info')
      .description('describe a recording: format, encoding, rate, channels, length, centre frequency')
      .argument('<file>', 'WAV, SigMF (.sigmf-meta/.sigmf-data) or raw IQ file'),
    { backend: false },
  ).action(async (file: string, opts: FileOptions) => {
    const source = await openInput(file, opts);
    try {
      const i = source.info;
      const samples = i.samples ?? 0;
      const result: Record<string, unknown> = {
        format: i.container,
        encoding: i.encoding,
        sampleRate: i.sampleRate,
        channels: i.channels,
        complex: i.complex,
        samples,
        duration: samples / i.sampleRate,
      };
      if (i.centerFrequency !== undefined) result.centerFrequency = i.centerFrequency;
      if (opts.json) return printJson(result);
      const rows: Array<[string, string]> = [
        ['file', file],
        ['format', `${i.container} (${i.encoding})`],
        ['sample rate', `${i.sampleRate} Hz`],
        ['channels', `${i.channels} ${i.complex ? 'complex (I/Q)' : 'real'}`],
        ['samples', `${samples} (${(samples / i.sampleRate).toFixed(3)} s)`],
      ];
      if (i.centerFrequency !== undefined) rows.push(['centre frequency', `${i.centerFrequency} Hz`]);
      if (i.sigmf) rows.push(['annotations', String(i.sigmf.annotations.length)]);
      process.stdout.write(keyValues(rows));
    } finally {
      await source.close();
    }
  });
}
