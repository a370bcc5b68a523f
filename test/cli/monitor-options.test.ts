// `phasor monitor`'s source options (shared with `phasor record`): --rate reaches the source, an option
// the kind does not take is refused in one line, --json carries reconnects, and the help names rtl_tcp.
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';

describe('phasor monitor source options', () => {
  it('applies --rate and prints reconnects 0 and no centre for a real source', async () => {
    const r = await runCli([
      'monitor',
      '--source',
      'generator:2000',
      '--rate',
      '96000',
      '--duration',
      '0.3',
      '--peaks',
      '--count',
      '1',
      '--json',
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(j.sampleRate).toBe(96000);
    expect(j.reconnects).toBe(0);
    expect(j).not.toHaveProperty('centerFrequency');
    const peaks = j.peaks as Array<{ frequency: number }>;
    expect(Math.abs(peaks[0].frequency - 2000)).toBeLessThan(1);
  });

  it.each([
    [['--gain', '10'], '--gain does not apply to the generator source'],
    [['--ppm', '3'], '--ppm does not apply to the generator source'],
  ])('refuses %j for the generator in one line', async (extra, message) => {
    const r = await runCli(['monitor', '--source', 'generator', '--duration', '0.2', ...extra]);
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`phasor: ${message}\n`);
  });

  it('names rtl_tcp://HOST:PORT and the tuning options in its help', async () => {
    const r = await runCli(['monitor', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('rtl_tcp://HOST:PORT');
    for (const o of ['--center', '--rate', '--gain', '--ppm']) expect(r.stdout).toContain(o);
  });
});
