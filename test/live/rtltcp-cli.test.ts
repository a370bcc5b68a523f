// `phasor record --source rtl_tcp://HOST:PORT` end to end (the built CLI, bin/phasor.js → dist/) against the
// fake rtl_tcp server: the file holds the bytes the server sent, unchanged; a closed port is one line.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { startFakeRtlTcp } from '../support/fake-rtltcp.js';

const dir = mkdtempSync(join(tmpdir(), 'phasor-rtltcp-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('phasor record from rtl_tcp', () => {
  it('records the cu8 bytes as the server sent them, with the settings given on the command line', async () => {
    const fake = await startFakeRtlTcp({ centerFrequency: 100e6, sampleRate: 1_024_000 });
    try {
      const out = join(dir, 'take.sigmf-meta');
      const r = await runCli([
        'record',
        '--source',
        `rtl_tcp://127.0.0.1:${fake.port}`,
        '--center',
        '100M',
        '--rate',
        '1.024M',
        '--ppm',
        '-7',
        '--gain',
        '30',
        '--duration',
        '1',
        '-o',
        out,
        '--json',
      ]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({
        datatype: 'cu8',
        sampleRate: 1_024_000,
        centerFrequency: 100e6,
        frames: 1_024_000,
      });
      expect(fake.commands.find((c) => c.cmd === 0x05)?.signed).toBe(-7);
      expect(fake.commands.find((c) => c.cmd === 0x04)?.value).toBe(297); // 30 dB → the R820T's 29.7
      const data = readFileSync(join(dir, 'take.sigmf-data'));
      const cycle = fake.cycle();
      expect(data.length).toBe(2 * 1_024_000);
      let same = true;
      for (let i = 0; i < data.length && same; i++) same = data[i] === cycle[i % cycle.length];
      expect(same).toBe(true);

      // The recording opens as what it is, and the carrier reads at its absolute frequency.
      const info = await runCli(['info', out, '--json']);
      expect(info.stderr).toBe('');
      expect(JSON.parse(info.stdout)).toMatchObject({
        format: 'sigmf',
        encoding: 'cu8',
        complex: true,
        sampleRate: 1_024_000,
        samples: 1_024_000,
        centerFrequency: 100e6,
      });
      const peaks = await runCli(['peaks', out, '--json', '--count', '1']);
      expect(peaks.code).toBe(0);
      const [peak] = JSON.parse(peaks.stdout) as Array<{ frequency: number; level: number }>;
      expect(Math.abs(peak.frequency - fake.carrier)).toBeLessThan(2);
      expect(peak.level).toBeGreaterThan(-10);
    } finally {
      await fake.close();
    }
  });

  it('says in one line when nothing listens on the port', async () => {
    const fake = await startFakeRtlTcp();
    const port = fake.port;
    await fake.close();
    const r = await runCli([
      'record',
      '--source',
      `rtl_tcp://127.0.0.1:${port}`,
      '--duration',
      '1',
      '-o',
      join(dir, 'no.sigmf-meta'),
    ]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toBe(`phasor: rtl_tcp://127.0.0.1:${port}: connection refused\n`);
  });
});
