// `phasor record` end to end: record → info and peaks for the generator (SigMF and WAV), a recording
// killed with -9 that `phasor info` still opens (with a warning), and a full disk (a small tmpfs) that
// leaves a readable recording whose metadata says "disk full".
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { phasorBin, runCli, spawnCli, tempDir } from '../support/cli.js';
import { onSmallDisk } from '../support/disk.js';
import { needs, smallDisk } from '../support/requirements.js';

const tmp = tempDir('phasor-record-cli-');
afterAll(() => tmp.remove());

interface Peak {
  frequency: number;
  level: number;
}

describe('phasor record → info, peaks', () => {
  for (const out of ['tone.sigmf-meta', 'tone.wav']) {
    it(`generator:1500 to ${out}`, async () => {
      const path = join(tmp.dir, out);
      const r = await runCli([
        'record',
        '--source',
        'generator:1500',
        '--duration',
        '1',
        '-o',
        path,
        '--json',
      ]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const rec = JSON.parse(r.stdout) as Record<string, unknown>;
      expect(rec).toMatchObject({
        path,
        frames: 48000,
        seconds: 1,
        sampleRate: 48000,
        dropped: 0,
        gaps: 0,
        stopped: 'duration reached',
      });
      for (const f of rec.files as string[]) expect(existsSync(f)).toBe(true);
      expect(rec.bytes).toBe((rec.files as string[]).reduce((a, f) => a + statSync(f).size, 0));

      const info = await runCli(['info', path, '--json']);
      expect(info.stderr).toBe('');
      expect(JSON.parse(info.stdout)).toMatchObject({
        sampleRate: 48000,
        samples: 48000,
        encoding: 'rf32_le',
      });
      const peaks = await runCli(['peaks', path, '--json', '--count', '1']);
      expect(peaks.code).toBe(0);
      const [p] = JSON.parse(peaks.stdout) as Peak[];
      expect(Math.abs(p.frequency - 1500)).toBeLessThan(0.5);
      // amplitude 0.5: −6.02 dBFS
      expect(p.level).toBeCloseTo(-6.02, 1);
    }, 30000);
  }

  it('refuses an existing output and an option the source does not take, in one line', async () => {
    const path = join(tmp.dir, 'tone.wav');
    const r = await runCli(['record', '--source', 'generator', '--duration', '1', '-o', path]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`phasor: ${path}: already exists; a recording never replaces a file\n`);
    const p = await runCli(['record', '--source', 'generator', '--ppm', '2', '-o', join(tmp.dir, 'p.wav')]);
    expect(p.code).toBe(2);
    expect(p.stderr).toBe('phasor: --ppm does not apply to the generator source\n');
  });
});

/** Waits until `path` holds at least `bytes` (the recorder is writing), or 30 s. */
async function grown(path: string, bytes: number): Promise<void> {
  const t0 = Date.now();
  while (!(existsSync(path) && statSync(path).size >= bytes) && Date.now() - t0 < 30000) {
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('a recording killed with -9 stays readable', () => {
  for (const [out, data] of [
    ['killed.sigmf-meta', 'killed.sigmf-data'],
    ['killed.wav', 'killed.wav'],
  ]) {
    it(`${out}: phasor info opens it with a warning`, async () => {
      const path = join(tmp.dir, out);
      const child = spawnCli(['record', '--source', 'generator:1000', '--duration', '60', '-o', path]);
      const exited = new Promise((r) => child.on('close', r));
      // A second and a half of 48 kHz float32 written.
      await grown(join(tmp.dir, data), 300_000);
      child.kill('SIGKILL');
      await exited;
      const info = await runCli(['info', path, '--json']);
      expect(info.code, info.stderr).toBe(0);
      expect(info.stderr).toMatch(/^phasor: warning: .*(did not finish|recording that did not finish)/);
      const i = JSON.parse(info.stdout) as { samples: number; sampleRate: number };
      expect(i.sampleRate).toBe(48000);
      expect(i.samples).toBeGreaterThanOrEqual(75000);
      const peaks = await runCli(['peaks', path, '--json', '--count', '1']);
      expect(peaks.code).toBe(0);
      expect(Math.abs((JSON.parse(peaks.stdout) as Peak[])[0].frequency - 1000)).toBeLessThan(1);
    }, 60000);
  }
});

describe('a full disk stops the recording and leaves it readable', needs(smallDisk), () => {
  for (const [name, files] of [
    ['full.sigmf-meta', ['full.sigmf-data', 'full.sigmf-meta']],
    ['full.wav', ['full.wav']],
  ] as const) {
    it(`${name} on a 1 MiB tmpfs: stopped "disk full", whole frames, nothing else left`, () => {
      const disk = join(tmp.dir, `small-${name}`);
      mkdirSync(disk);
      const out = join(disk, name);
      // The record (at 1 MHz real float32: 4 MB/s), then what a reader finds, before the disk goes away.
      const script =
        `"${process.execPath}" "${phasorBin}" record --source generator:1000 --rate 1M --duration 30 -o "${out}" --json; ` +
        `echo "record exit $?"; "${process.execPath}" "${phasorBin}" info "${out}" --json; echo "info exit $?"; ` +
        `echo META; ${name.endsWith('.wav') ? 'true' : `cat "${out}"`}; echo`;
      const r = onSmallDisk(disk, ['sh', '-c', script], '1m');
      expect(r.stderr).toMatch(
        new RegExp(`^phasor: .*${name.replace('.', '\\.')}: the recording stopped early: disk full$`, 'm'),
      );
      // info warns of nothing: the recording was finished
      expect(r.stderr).not.toMatch(/warning/);
      const [recordOut, rest] = r.stdout.split('record exit ');
      expect(rest.startsWith('1')).toBe(true);
      const rec = JSON.parse(recordOut) as { frames: number; stopped: string; bytes: number };
      expect(rec.stopped).toBe('disk full');
      expect(rec.frames).toBeGreaterThan(10000);
      const [infoPart, metaPart] = rest.slice(2).split('META\n');
      const [infoJson, infoExit] = infoPart.split('info exit ');
      expect(infoExit.trim()).toBe('0');
      expect(JSON.parse(infoJson)).toMatchObject({ samples: rec.frames, sampleRate: 1e6 });
      if (name.endsWith('.sigmf-meta')) {
        const meta = JSON.parse(metaPart) as { global: Record<string, unknown> };
        expect(meta.global).toMatchObject({ 'phasor:stopped': 'disk full', 'phasor:recording': false });
      }
      // Only the recording is left (no temporary).
      expect(r.left.sort()).toEqual([...files]);
    }, 60000);
  }
});
