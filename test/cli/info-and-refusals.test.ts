import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../support/cli.js';
import { interleave, tones } from '../support/signals.js';
import { writeTestWav } from '../support/wav.js';

const tmp = tempDir();
afterAll(() => tmp.remove());
const f = (name: string) => join(tmp.dir, name);

/** Asserts a refusal: non-zero exit, one line `phasor: <file>: …` on stderr, nothing on stdout, no stack. */
function expectRefusal(
  r: { code: number | null; stdout: string; stderr: string },
  file: string,
  pattern: RegExp,
) {
  expect(r.code).not.toBe(0);
  expect(r.stdout).toBe('');
  const lines = r.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0].startsWith(`phasor: ${file}: `)).toBe(true);
  expect(lines[0]).toMatch(pattern);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

describe('phasor info', () => {
  it('describes a stereo PCM16 WAV as JSON, and nothing else on stdout', async () => {
    const fs = 44100;
    const x = interleave(
      tones(4410, fs, [{ frequency: 1000, amplitude: 0.5 }]),
      tones(4410, fs, [{ frequency: 300, amplitude: 0.25 }]),
    );
    writeTestWav(f('stereo.wav'), x, fs, 2);
    const r = await runCli(['info', f('stereo.wav'), '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      format: 'wav',
      encoding: 'ri16_le',
      sampleRate: 44100,
      channels: 2,
      complex: false,
      samples: 4410,
      duration: 0.1,
    });
  });

  it('reads a two-channel WAV as I/Q with --iq', async () => {
    const r = await runCli(['info', f('stereo.wav'), '--iq', '--center', '433.92M', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      channels: 1,
      complex: true,
      samples: 4410,
      centerFrequency: 433.92e6,
    });
  });

  it('describes a SigMF recording with its centre frequency', async () => {
    const n = 1000;
    const data = new Float32Array(2 * n).map((_, i) => Math.sin(i * 0.01));
    writeFileSync(f('rec.sigmf-data'), Buffer.from(data.buffer));
    writeFileSync(
      f('rec.sigmf-meta'),
      JSON.stringify({
        global: { 'core:datatype': 'cf32_le', 'core:sample_rate': 2.4e6, 'core:version': '1.2.0' },
        captures: [{ 'core:sample_start': 0, 'core:frequency': 96.3e6 }],
        annotations: [{ 'core:sample_start': 10, 'core:sample_count': 100, 'core:label': 'burst' }],
      }),
    );
    const r = await runCli(['info', f('rec.sigmf-meta'), '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      format: 'sigmf',
      encoding: 'cf32_le',
      sampleRate: 2.4e6,
      channels: 1,
      complex: true,
      samples: 1000,
      duration: 1000 / 2.4e6,
      centerFrequency: 96.3e6,
    });
  });

  it('describes a raw cu8 capture given --format, --rate and --center', async () => {
    writeFileSync(f('cap.cu8'), Buffer.from(Uint8Array.from({ length: 4800 }, (_, i) => (i * 37) & 255)));
    const r = await runCli(['info', f('cap.cu8'), '--rate', '2.4M', '--center', '100M', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      format: 'raw',
      complex: true,
      samples: 2400,
      sampleRate: 2.4e6,
      centerFrequency: 1e8,
    });
    const bad = await runCli(['info', f('cap.cu8')]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/--rate/);
  });

  it('prints a readable summary without --json', async () => {
    const r = await runCli(['info', f('stereo.wav')]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/sample rate\s+44100 Hz/);
    expect(r.stdout).toMatch(/channels\s+2 real/);
  });
});

describe('refusals: one line naming the file and the problem, non-zero exit', () => {
  it('refuses an empty file', async () => {
    writeFileSync(f('empty.wav'), Buffer.alloc(0));
    expectRefusal(await runCli(['info', f('empty.wav')]), f('empty.wav'), /empty/i);
  });

  it('refuses a file that is not a WAV', async () => {
    writeFileSync(f('notes.wav'), 'these are my notes, not audio\n'.repeat(10));
    expectRefusal(await runCli(['info', f('notes.wav')]), f('notes.wav'), /RIFF|not a WAV/i);
  });

  it('refuses a µ-law WAV by naming the codec', async () => {
    writeTestWav(f('mulaw.wav'), new Float32Array(800).fill(0.1), 8000, 1, 'mulaw');
    expectRefusal(await runCli(['info', f('mulaw.wav')]), f('mulaw.wav'), /law/i);
  });

  it('refuses malformed SigMF JSON', async () => {
    writeFileSync(f('broken.sigmf-data'), Buffer.alloc(64, 1));
    writeFileSync(f('broken.sigmf-meta'), '{"global": {"core:datatype": "cf32_le", ');
    const r = await runCli(['info', f('broken.sigmf-meta')]);
    expectRefusal(r, f('broken.sigmf-meta'), /JSON/i);
  });

  it('refuses a negative sample rate', async () => {
    writeFileSync(f('neg.sigmf-data'), Buffer.alloc(64, 1));
    writeFileSync(
      f('neg.sigmf-meta'),
      JSON.stringify({
        global: { 'core:datatype': 'ci16_le', 'core:sample_rate': -48000, 'core:version': '1.2.0' },
        captures: [],
        annotations: [],
      }),
    );
    expectRefusal(await runCli(['info', f('neg.sigmf-meta')]), f('neg.sigmf-meta'), /sample_rate/);
  });

  it('reads a truncated WAV up to its end with a warning saying how much is missing', async () => {
    writeTestWav(f('full.wav'), tones(48000, 48000, [{ frequency: 1000, amplitude: 0.5 }]), 48000, 1);
    const { readFileSync } = await import('node:fs');
    const bytes = readFileSync(f('full.wav'));
    writeFileSync(f('cut.wav'), bytes.subarray(0, 44 + 2 * 12000));
    const r = await runCli(['info', f('cut.wav'), '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).samples).toBe(12000);
    expect(r.stderr).toMatch(/truncated/i);
    expect(r.stderr).toMatch(/48000/);
    expect(r.stderr).toMatch(/12000/);
  });

  it('refuses a missing file', async () => {
    expectRefusal(await runCli(['info', f('nope.wav')]), f('nope.wav'), /no such file/);
  });

  it('shows a stack trace only with --debug', async () => {
    const r = await runCli(['info', f('empty.wav'), '--debug']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/\n\s+at /);
  });

  it('refuses an unknown command or option as a usage error (exit 2)', async () => {
    const r = await runCli(['frobnicate']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^phasor: /);
    const r2 = await runCli(['info', f('stereo.wav'), '--bogus']);
    expect(r2.code).toBe(2);
  });

  it('says why a backend asked for by name is unavailable', async () => {
    // a Vulkan driver file that does not exist: no adapter, even on a machine with a GPU
    const r = await runCli(['peaks', f('stereo.wav'), '--backend', 'webgpu'], {
      env: { VK_ICD_FILENAMES: '/nonexistent/phasor-no-driver.json' },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^phasor: backend webgpu is not available: .+/);
  });
});
