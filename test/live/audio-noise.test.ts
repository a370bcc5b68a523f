// The audio worker runs in a child process whose stderr the engine drains: the native audio libraries'
// noise (ALSA, JACK and PulseAudio client messages written to fd 2) never reaches the terminal, a failure
// stays one line, and blocks still arrive whole. The worker is a stand-in (test/support/noisy-audio-worker.mjs)
// that writes ALSA's usual lines to fd 2 on every call, so this runs wherever Node does.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const mic = pathToFileURL('electron/engine/sources/mic.ts').href;
const fake = pathToFileURL('test/support/noisy-audio-worker.mjs').href;
const dir = mkdtempSync(join(tmpdir(), 'phasor-noise-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let scripts = 0;

/** Runs `body` in a fresh Node process (the engine loaded from its sources) and returns what it wrote. */
function runNode(
  body: string,
  prelude = '',
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const code =
    prelude +
    `const { openMicrophone, setAudioWorkerUrl, shutdownAudio } = await import(${JSON.stringify(mic)});\n` +
    `setAudioWorkerUrl(new URL(${JSON.stringify(fake)}));\n${body}\nawait shutdownAudio();`;
  const script = join(dir, `run-${scripts++}.mjs`);
  writeFileSync(script, code);
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', script], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PHASOR_DEBUG: '' },
    });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    p.on('error', reject);
    p.on('exit', (c) => resolve({ code: c, stdout, stderr }));
  });
}

describe('audio library noise', () => {
  it('keeps ALSA’s stderr lines out of a failed open: the error is one line', async () => {
    const r = await runNode(
      `try { await openMicrophone({ device: 'USB', sampleRate: 48000 }); }\n` +
        `catch (e) { process.stderr.write('phasor: ' + e.message + '\\n'); process.exitCode = 1; }`,
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('phasor: no input device "USB" (unplugged?); input devices: "Tone"\n');
  }, 30_000);

  it('streams the blocks through the worker process, in order and whole, with the noise kept out', async () => {
    const r = await runNode(
      `const src = await openMicrophone({ device: 'Tone', sampleRate: 48000 });\n` +
        `const got = [];\n` +
        `for await (const b of src.blocks()) { got.push(...b.data); if (got.length >= 4800) break; }\n` +
        `await src.close();\n` +
        `console.log(JSON.stringify({ rate: src.info.sampleRate, x: got.slice(0, 4800) }));`,
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const { rate, x } = JSON.parse(r.stdout) as { rate: number; x: number[] };
    expect(rate).toBe(48000);
    // The fake's sine, sample for sample (float32), from its first frame: nothing lost or reordered.
    for (let n = 0; n < x.length; n++)
      expect(x[n]).toBe(Math.fround(0.25 * Math.sin((2 * Math.PI * 1000 * n) / 48000)));
  }, 30_000);

  it('in the desktop app (Electron), runs the worker as a thread: its executable cannot run as Node', async () => {
    const r = await runNode(
      `const src = await openMicrophone({ device: 'Tone', sampleRate: 48000 });\n` +
        `const got = [];\n` +
        `for await (const b of src.blocks()) { got.push(...b.data); if (got.length >= 480) break; }\n` +
        `await src.close();\n` +
        `console.log(JSON.stringify({ pid: process.pid, x: got.slice(0, 480) }));`,
      `Object.defineProperty(process.versions, 'electron', { value: '45.0.0' });\n`,
    );
    expect(r.code, r.stderr).toBe(0);
    // the thread shares this process's fd 2: the stand-in's lines are there
    expect(r.stderr).toMatch(/^ALSA lib /m);
    const { x } = JSON.parse(r.stdout) as { x: number[] };
    for (let n = 0; n < x.length; n++)
      expect(x[n]).toBe(Math.fround(0.25 * Math.sin((2 * Math.PI * 1000 * n) / 48000)));
  }, 30_000);
});
