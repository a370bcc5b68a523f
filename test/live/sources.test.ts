// Live sources: real-time pacing computed from the frame count (no drift, skipping when far behind),
// looping file playback, and the microphone source on a fake audio library (blocks, overruns counted,
// a stalled or failing device reported as an error).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PhasorError } from '../../electron/engine/errors.js';
import { openSource } from '../../electron/engine/io/index.js';
import type { LiveBlock } from '../../electron/engine/sources/live-source.js';
import { pacedSource } from '../../electron/engine/sources/pace.js';
import { createGenerator } from '../../electron/engine/sources/generator.js';
import { micFrameSize, openMicrophone } from '../../electron/engine/sources/mic.js';
import { writeTestWav } from '../support/wav.js';
import { FakeDriver, until } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'phasor-live-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A fake clock: sleeping advances it exactly. */
function fakeClock(): {
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  t: number;
  slept: number[];
} {
  const c = {
    t: 1000,
    slept: [] as number[],
    now: () => c.t,
    sleep: async (ms: number) => {
      c.slept.push(ms);
      c.t += ms;
    },
  };
  return c;
}

describe('paced sources', () => {
  it('release each block when the clock reaches its last sample, from the frame count (no drift)', async () => {
    const clock = fakeClock();
    const gen = createGenerator({ sampleRate: 44100, tones: [{ frequency: 440 }] });
    const src = pacedSource(gen, { label: 'g', now: clock.now, sleep: clock.sleep });
    let n = 0;
    let frames = 0;
    for await (const b of src.blocks()) {
      expect(b.start).toBe(frames);
      frames += b.frames;
      // 5 ms at 44.1 kHz is 220.5 frames: 221 per block, so the due time is not a whole number of ms.
      expect(b.frames).toBe(221);
      expect(clock.t - 1000).toBeCloseTo((frames / 44100) * 1000, 9);
      if (++n === 4000) break; // 20 s of signal
    }
    expect(src.droppedBlocks).toBe(0);
    expect(clock.t - 1000).toBeCloseTo((4000 * 221 * 1000) / 44100, 6);
  });

  it('jumps to the present (the blocks in between counted as dropped) when the consumer falls too far behind', async () => {
    const clock = fakeClock();
    const gen = createGenerator({ sampleRate: 48000, tones: [{ frequency: 440 }] });
    const src = pacedSource(gen, {
      label: 'g',
      now: clock.now,
      sleep: clock.sleep,
      maxLagMs: 250,
      warmupSeconds: 0,
    });
    const seen: LiveBlock[] = [];
    for await (const b of src.blocks()) {
      seen.push(b);
      if (seen.length === 2) clock.t += 400; // the consumer stalls for 400 ms after block 1 (due at 10 ms)
      if (seen.length === 3) break;
    }
    // At 410 ms the present is frame 410 × 48 = 19680: the 19200 frames after block 1 are skipped
    // (80 blocks of 240), and the next block starts there, with the generator's samples of that frame.
    expect(src.droppedBlocks).toBe(80);
    expect(seen[2].start).toBe(19680);
    const direct = createGenerator({ sampleRate: 48000, tones: [{ frequency: 440 }] });
    for await (const b of direct.blocks({ start: 19680, blockFrames: 240 })) {
      expect(Array.from(seen[2].data as Float32Array)).toEqual(Array.from(b.data as Float32Array));
      break;
    }
  });

  it('starts its clock once the consumer has taken the first block through (warm-up is not a stall)', async () => {
    const clock = fakeClock();
    const gen = createGenerator({ sampleRate: 48000, tones: [{ frequency: 440 }] });
    const src = pacedSource(gen, { label: 'g', now: clock.now, sleep: clock.sleep, maxLagMs: 250 });
    const seen: LiveBlock[] = [];
    const at: number[] = [];
    for await (const b of src.blocks()) {
      seen.push(b);
      at.push(clock.t);
      if (seen.length === 1) clock.t += 900; // the pipeline's first call (backend start-up, JIT)
      if (seen.length === 6) break;
    }
    // Nothing skipped or counted: the stream runs on frame by frame, each block 5 ms after the one before.
    expect(src.droppedBlocks).toBe(0);
    expect(seen.map((b) => b.start)).toEqual([0, 240, 480, 720, 960, 1200]);
    expect(at.slice(1).map((t) => t - 1000)).toEqual([910, 915, 920, 925, 930]);
  });

  it('moves its clock over stalls in the first 2 s of stream, and counts them as drops after', async () => {
    const clock = fakeClock();
    const gen = createGenerator({ sampleRate: 48000, tones: [{ frequency: 440 }] });
    const src = pacedSource(gen, { label: 'g', now: clock.now, sleep: clock.sleep, maxLagMs: 250 });
    const starts: number[] = [];
    for await (const b of src.blocks()) {
      starts.push(b.start);
      // 5 ms blocks: block 100 is at 0.5 s (the first peak search, a page mounting), block 500 at 2.5 s.
      if (starts.length === 100 || starts.length === 500) clock.t += 400;
      if (starts.length === 502) break;
    }
    // The stall at 0.5 s skipped nothing: frame by frame up to the stall at 2.5 s.
    expect(starts.slice(0, 500)).toEqual(Array.from({ length: 500 }, (_, i) => i * 240));
    // The one at 2.5 s is a real overrun: 400 ms (80 blocks) skipped and counted, as without a warm-up.
    expect(src.droppedBlocks).toBe(80);
    expect(starts[500] - starts[499]).toBe(81 * 240);
  });

  it('jumps within a looping file', async () => {
    const path = join(dir, 'ramp.wav');
    const n = 8000;
    writeTestWav(
      path,
      new Float64Array(n).map((_, i) => i / n),
      8000,
      1,
      'float32',
    );
    const clock = fakeClock();
    const src = pacedSource(await openSource(path), {
      label: 'ramp',
      loop: true,
      now: clock.now,
      sleep: clock.sleep,
      warmupSeconds: 0,
    });
    const seen: LiveBlock[] = [];
    for await (const b of src.blocks()) {
      seen.push(b);
      if (seen.length === 2) clock.t += 2500; // the consumer stalls 2.5 s after block 1 (40 frames, due at 10 ms)
      if (seen.length === 3) break;
    }
    // The present is 2.51 s = frame 20080 of the stream; 20000 frames skipped (500 blocks of 40); the file
    // has 8000 frames, so the stream's frame 20080 is the file's frame 4080.
    expect(src.droppedBlocks).toBe(500);
    expect(seen[2].start).toBe(20080);
    expect((seen[2].data as Float32Array)[0]).toBe(Math.fround(4080 / n));
    await src.close();
  });

  it('loops a file endlessly, the stream frame index running on', async () => {
    const path = join(dir, 'short.wav');
    const n = 1000;
    const x = new Float64Array(n);
    for (let i = 0; i < n; i++) x[i] = 0.5 * Math.sin((2 * Math.PI * 1000 * i) / 8000) + 0.001 * (i % 7);
    writeTestWav(path, x, 8000, 1, 'float32');
    const clock = fakeClock();
    const src = pacedSource(await openSource(path), {
      label: 'short.wav',
      loop: true,
      now: clock.now,
      sleep: clock.sleep,
    });
    expect(src.info.samples).toBeUndefined();
    const all: number[] = [];
    for await (const b of src.blocks()) {
      expect(b.start).toBe(all.length);
      all.push(...(b.data as Float32Array));
      if (all.length >= 3 * n + 100) break;
    }
    await src.close();
    for (let i = 0; i < 3 * n; i++) expect(all[i]).toBe(Math.fround(x[i % n]));
  });

  it('ends with the file when not looping', async () => {
    const path = join(dir, 'once.wav');
    writeTestWav(
      path,
      new Float64Array(500).map((_, i) => Math.sin(i / 3) * 0.3),
      8000,
      1,
    );
    const clock = fakeClock();
    const src = pacedSource(await openSource(path), {
      label: 'once.wav',
      now: clock.now,
      sleep: clock.sleep,
    });
    let frames = 0;
    for await (const b of src.blocks()) frames += b.frames;
    expect(frames).toBe(500);
    await src.close();
  });
});

describe('microphone source (fake audio library)', () => {
  it('asks for about 5 ms blocks of the chosen channel and yields them in order', async () => {
    const driver = new FakeDriver();
    const mic = await openMicrophone({ driver, device: 'Test', sampleRate: 48000, channel: 1 });
    expect(driver.request).toEqual({ device: 'Test', sampleRate: 48000, channel: 1, frameSize: 256 });
    expect(micFrameSize(44100)).toBe(256);
    expect(micFrameSize(8000)).toBe(64);
    expect(micFrameSize(192000)).toBe(1024);
    expect(mic.info).toMatchObject({ sampleRate: 48000, channels: 1, complex: false });
    expect(mic.label).toBe('Test Mic');
    for (let k = 0; k < 3; k++) driver.handlers!.data(new Float32Array(256).fill(k / 10), 1e12 + k);
    const got: LiveBlock[] = [];
    for await (const b of mic.blocks()) {
      got.push(b);
      if (got.length === 3) break;
    }
    expect(got.map((b) => b.start)).toEqual([0, 256, 512]);
    expect(got.map((b) => b.captureTime)).toEqual([1e12, 1e12 + 1, 1e12 + 2]);
    expect((got[2].data as Float32Array)[0]).toBeCloseTo(0.2, 7);
    await mic.close();
    expect(driver.closed).toBe(1);
  });

  it('drops the oldest blocks (counted) when nobody reads, keeping memory bounded', async () => {
    const driver = new FakeDriver();
    const mic = await openMicrophone({ driver, sampleRate: 48000, maxQueueSeconds: 0.01 });
    // The queue holds max(4 blocks, 10 ms) = 1024 frames: 10 blocks of 256 leave the newest 4.
    for (let k = 0; k < 10; k++) driver.handlers!.data(new Float32Array(256).fill(k), 0);
    expect(mic.droppedBlocks).toBe(6);
    const starts: number[] = [];
    for await (const b of mic.blocks()) {
      starts.push(b.start);
      if (starts.length === 4) break;
    }
    expect(starts).toEqual([1536, 1792, 2048, 2304]);
    await mic.close();
  });

  it('reports a device that stops delivering as unplugged, and a stream error with its message', async () => {
    const driver = new FakeDriver();
    const mic = await openMicrophone({ driver, sampleRate: 48000, stallTimeoutMs: 150 });
    driver.handlers!.data(new Float32Array(256), 0);
    let error: unknown;
    try {
      for await (const _b of mic.blocks()) {
        // keep reading until the source gives up
      }
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(PhasorError);
    expect((error as PhasorError).code).toBe('io');
    expect((error as PhasorError).message).toMatch(/Test Mic.*unplugged/);
    expect(driver.closed).toBe(1);

    const d2 = new FakeDriver();
    const m2 = await openMicrophone({ driver: d2, sampleRate: 48000 });
    const it2 = m2.blocks()[Symbol.asyncIterator]();
    const next = it2.next();
    d2.handlers!.error('RtApiPulse::callbackEvent: audio read error, Connection terminated.');
    await expect(next).rejects.toThrow(/Test Mic.*Connection terminated/);
    await m2.close();
  });

  it('says when no audio ever arrives', async () => {
    const driver = new FakeDriver();
    const mic = await openMicrophone({
      driver,
      sampleRate: 48000,
      startupTimeoutMs: 100,
      stallTimeoutMs: 300,
    });
    await expect(
      (async () => {
        for await (const _b of mic.blocks()) {
          // nothing arrives
        }
      })(),
    ).rejects.toThrow(/no audio arrived/);
  });

  it('refuses bad arguments and passes the library’s refusal on', async () => {
    await expect(openMicrophone({ driver: new FakeDriver(), sampleRate: -5 })).rejects.toThrow(/sample rate/);
    await expect(openMicrophone({ driver: new FakeDriver(), channel: 1.5 })).rejects.toThrow(/channel/);
    const d = new FakeDriver();
    d.failOpen = 'no input device "USB" (unplugged?)';
    await expect(openMicrophone({ driver: d })).rejects.toThrow(/unplugged/);
  });

  it('stops waiting when the consumer aborts', async () => {
    const driver = new FakeDriver();
    const mic = await openMicrophone({ driver, sampleRate: 48000 });
    const ac = new AbortController();
    let done = false;
    const reading = (async () => {
      for await (const _b of mic.blocks({ signal: ac.signal })) {
        // none
      }
      done = true;
    })();
    ac.abort();
    await reading;
    await until(() => done, 1000, 'the reader to stop');
    await mic.close();
  });
});
