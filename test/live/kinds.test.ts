// The source-kind registry: what hello describes, parameter validation, command-line specs, opening each
// kind, and adding a kind without touching anything else.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InvalidArgumentError } from '../../electron/engine/errors.js';
import { pacedSource } from '../../electron/engine/sources/pace.js';
import { createGenerator } from '../../electron/engine/sources/generator.js';
import {
  builtInKinds,
  defineSourceKind,
  SourceKindRegistry,
  sourceKinds,
} from '../../electron/engine/sources/kinds.js';
import { writeTestWav } from '../support/wav.js';

const dir = mkdtempSync(join(tmpdir(), 'phasor-kinds-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('source kinds', () => {
  it('describes generator, mic, browser-mic, file and rtl_tcp, with forms whose defaults pass their own schemas', async () => {
    const kinds = await sourceKinds.describe();
    expect(kinds.map((k) => k.kind)).toEqual(['generator', 'mic', 'browser-mic', 'file', 'rtl_tcp']);
    for (const k of kinds) {
      // The page fills in a captured kind's parameters; the person has nothing to set.
      if (k.capture === undefined) expect(k.fields.length).toBeGreaterThan(0);
      const values: Record<string, unknown> = { kind: k.kind };
      for (const f of k.fields) if (f.default !== undefined) values[f.name] = f.default;
      if (k.kind === 'file') values.path = '/some/file.wav';
      expect(() => sourceKinds.parse(values)).not.toThrow();
      for (const f of k.fields) {
        expect(['number', 'text', 'boolean', 'select', 'device', 'file']).toContain(f.type);
        if (f.type === 'select') expect(f.options?.some((o) => o.value === f.default)).toBe(true);
      }
    }
    const mic = kinds.find((k) => k.kind === 'mic')!;
    expect(mic.fields.find((f) => f.name === 'device')?.type).toBe('device');
  });

  it('fills in defaults and names what is wrong in parameters', () => {
    expect(sourceKinds.parse({ kind: 'generator' })).toMatchObject({
      kind: 'generator',
      sampleRate: 48000,
      frequency: 1000,
      complex: false,
    });
    expect(sourceKinds.parse({ kind: 'mic' })).toEqual({
      kind: 'mic',
      device: '',
      sampleRate: 48000,
      channel: 1,
    });
    expect(() => sourceKinds.parse({ kind: 'generator', frequency: 30000 })).toThrow(
      /frequency.*between 0 and 24000 Hz/,
    );
    expect(() => sourceKinds.parse({ kind: 'generator', sampleRate: 'fast' })).toThrow(InvalidArgumentError);
    expect(() => sourceKinds.parse({ kind: 'mic', channel: 0 })).toThrow(/channel/);
    expect(() => sourceKinds.parse({ kind: 'file' })).toThrow(/path/);
    expect(() => sourceKinds.parse({ kind: 'soapy' })).toThrow(
      /unknown source kind "soapy"; choose one of: generator, mic, browser-mic, file, rtl_tcp/,
    );
    expect(() => sourceKinds.parse(null)).toThrow(/unknown source kind/);
    // Complex generators may have negative tones.
    expect(sourceKinds.parse({ kind: 'generator', complex: true, frequency: -5000 })).toMatchObject({
      frequency: -5000,
    });
  });

  it('reads command-line specs', () => {
    expect(sourceKinds.fromSpec('generator:1.5k')).toMatchObject({ kind: 'generator', frequency: 1500 });
    expect(sourceKinds.fromSpec('generator')).toMatchObject({ kind: 'generator', frequency: 1000 });
    expect(sourceKinds.fromSpec('mic')).toMatchObject({ kind: 'mic', device: '' });
    expect(sourceKinds.fromSpec('mic:Monitor of Null Output')).toMatchObject({
      device: 'Monitor of Null Output',
    });
    expect(sourceKinds.fromSpec('file:/tmp/a:b.wav')).toMatchObject({ kind: 'file', path: '/tmp/a:b.wav' });
    expect(() => sourceKinds.fromSpec('generator:loud')).toThrow(/generator:FREQ/);
    expect(() => sourceKinds.fromSpec('radio')).toThrow(/choose one of/);
  });

  it('opens a file as a looping live source of the chosen channel', async () => {
    const path = join(dir, 'stereo.wav');
    const n = 2000;
    const x = new Float64Array(2 * n);
    for (let i = 0; i < n; i++) {
      x[2 * i] = 0.1;
      x[2 * i + 1] = 0.5 * Math.sin((2 * Math.PI * 1000 * i) / 8000);
    }
    writeTestWav(path, x, 8000, 2, 'float32');
    const src = await sourceKinds.open({ kind: 'file', path, channel: 2 });
    expect(src.channel).toBe(1);
    expect(src.label).toBe('stereo.wav');
    expect(src.info).toMatchObject({ sampleRate: 8000, channels: 2 });
    await src.close();
    await expect(sourceKinds.open({ kind: 'file', path, channel: 3 })).rejects.toThrow(
      /2 channels; channel 3 does not exist/,
    );
    await expect(sourceKinds.open({ kind: 'file', path: join(dir, 'missing.wav') })).rejects.toThrow(
      /no such file/,
    );
  });

  it('takes a new kind as one more entry, nothing else', async () => {
    const extra = defineSourceKind({
      kind: 'test_tone',
      label: 'Test tone',
      fields: [{ name: 'hz', label: 'Frequency', type: 'number', default: 440 }],
      schema: z.object({ kind: z.literal('test_tone'), hz: z.number().positive().default(440) }),
      probe: async () => 'the test tone is resting',
      open: async (p) =>
        pacedSource(createGenerator({ sampleRate: 8000, tones: [{ frequency: p.hz }] }), {
          label: `${p.hz} Hz`,
        }),
      fromSpec: (rest) => ({ hz: Number(rest) }),
    });
    const registry = new SourceKindRegistry([...builtInKinds, extra]);
    const described = await registry.describe();
    expect(described.map((k) => k.kind)).toEqual([
      'generator',
      'mic',
      'browser-mic',
      'file',
      'rtl_tcp',
      'test_tone',
    ]);
    expect(described[5].unavailable).toBe('the test tone is resting');
    expect(registry.fromSpec('test_tone:220')).toEqual({ kind: 'test_tone', hz: 220 });
    await expect(registry.open({ kind: 'test_tone' })).rejects.toThrow(
      /Test tone is not available: the test tone is resting/,
    );
  });

  it('opens the generator paced to real time', async () => {
    const src = await sourceKinds.open({ kind: 'generator', frequency: 2000, sampleRate: 16000 });
    expect(src.label).toBe('generator: tone 2000 Hz');
    let frames = 0;
    for await (const b of src.blocks()) {
      frames += b.frames;
      expect(b.captureTime).toBeGreaterThan(1.5e12);
      if (frames >= 800) break;
    }
    expect(frames).toBe(800); // 10 blocks of 5 ms
    await src.close();
  });
});
