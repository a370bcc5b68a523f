// `phasor record --source mic`: a known tone played into a private PulseAudio null sink, recorded from its
// monitor to WAV and SigMF, then found by `phasor peaks` at its frequency and level. Needs pulseaudio,
// pulseaudio-utils and audify: without them, the test skips and says what to install (in CI the skip fails
// the run).
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../support/cli.js';
import { startPulse, type PrivatePulse } from '../support/pulse.js';
import { audify, needs, pulseaudio } from '../support/requirements.js';
import { writeTestWav } from '../support/wav.js';

const FS = 48000;
const TONE = 876.5;
const AMPLITUDE = 0.25; // −12.04 dBFS

const required = needs(pulseaudio, audify);

const tmp = tempDir('phasor-record-mic-');
let pulse: PrivatePulse | undefined;
let player: ChildProcess | null = null;

beforeAll(async () => {
  if (required.skip) return;
  pulse = await startPulse('phasor_record', FS);
  const wav = join(pulse.dir, 'tone.wav');
  const n = 30 * FS;
  const x = new Float64Array(n);
  for (let i = 0; i < n; i++) x[i] = AMPLITUDE * Math.sin((2 * Math.PI * TONE * i) / FS);
  writeTestWav(wav, x, FS, 1, 'pcm16');
  player = pulse.play(wav);
  await new Promise((r) => setTimeout(r, 1000));
}, 30000);

afterAll(async () => {
  player?.kill();
  await pulse?.stop();
  tmp.remove();
});

describe('recording the microphone [real device path]', required, () => {
  for (const out of ['mic.wav', 'mic.sigmf-meta']) {
    it(`phasor record --source mic -o ${out}`, async () => {
      const path = join(tmp.dir, out);
      const r = await runCli(['record', '--source', 'mic', '--duration', '2', '-o', path, '--json'], {
        env: pulse!.env,
      });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const rec = JSON.parse(r.stdout) as {
        sampleRate: number;
        frames: number;
        stopped: string;
        datatype: string;
      };
      expect(rec).toMatchObject({
        sampleRate: FS,
        frames: 2 * FS,
        stopped: 'duration reached',
        datatype: 'rf32_le',
      });
      const peaks = await runCli(['peaks', path, '--json', '--count', '1']);
      expect(peaks.code, peaks.stderr).toBe(0);
      const [p] = JSON.parse(peaks.stdout) as Array<{ frequency: number; level: number }>;
      expect(Math.abs(p.frequency - TONE)).toBeLessThan(2);
      // ±3 dB leaves room for a block of silence at the start of the capture.
      expect(Math.abs(p.level - 20 * Math.log10(AMPLITUDE))).toBeLessThan(3);
    }, 30000);
  }
});
