// The `extract` request: the fixture's I/Q band through the protocol (output beside the input, progress,
// the reply the File view opens), web mode's roots for the output, and cancel leaving nothing.
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Backend } from '../../electron/engine/backends/backend.js';
import { createCpuBackend } from '../../electron/engine/backends/cpu/index.js';
import { openSource } from '../../electron/engine/io/index.js';
import { createEngineConnection } from '../../electron/engine/live/connection.js';
import { Engine } from '../../electron/engine/live/engine.js';
import { FileAccess } from '../../electron/engine/offline/access.js';
import type { ExtractResult, FileInfo, ServerMessage } from '../../electron/engine/protocol/messages.js';
import { toFloat32 } from '../../electron/engine/types.js';
import { until } from '../live/helpers.js';
import { expected, fx, relError, writeIq } from '../pipeline/extract-fixture.js';
import { tempDir } from '../support/cli.js';
import { Client, Gate, gatedBackend } from './helpers.js';

let cpu: Backend;
let engine: Engine;
const tmp = tempDir('phasor-offline-extract-');
let iq: string;

beforeAll(async () => {
  cpu = await createCpuBackend({ threads: 0 });
  engine = new Engine({ backend: cpu, progressIntervalMs: 0 });
  iq = writeIq(tmp.dir);
});
afterAll(async () => {
  await engine.dispose();
  await cpu.dispose();
  tmp.remove();
});

describe('extract', () => {
  it('writes the band beside the input, matching SciPy, with progress', async () => {
    const c = new Client(engine);
    const f = await c.ok<FileInfo>('openFile', { path: iq });
    const k = fx.cases.find((x) => x.name === 'iq-shift-lowpass-decimate')!;
    const id = c.send('extract', {
      file: f.file,
      output: 'iq-extract.sigmf-meta',
      start: k.start,
      end: k.end,
      shift: k.shift,
      lowpass: k.lowpass,
      numtaps: k.numtaps,
      decimate: k.decimate,
    });
    const r = await c.reply(id);
    if (!r.ok) throw new Error(r.error.message);
    const res = r.result as ExtractResult;
    expect(res).toMatchObject({
      output: join(tmp.dir, 'iq-extract.sigmf-meta'),
      frames: k.frames,
      sampleRate: fx.iq.fs / k.decimate,
      centerFrequency: fx.iq.center + k.shift,
      complex: true,
      backend: 'cpu',
    });
    const out = await c.ok<FileInfo>('openFile', { path: res.output });
    expect(out).toMatchObject({ sampleRate: 30000, samples: 750, complex: true, centerFrequency: 100.03e6 });
    const source = await openSource(res.output);
    const parts: number[] = [];
    for await (const b of source.blocks()) parts.push(...toFloat32(b.data));
    await source.close();
    expect(relError(Float32Array.from(parts), expected(k))).toBeLessThan(1e-4);
    const p = c.progressOf(id);
    expect(p.length).toBeGreaterThan(0);
    expect(p.every((e) => e.unit === 'frames' && e.total === k.end - k.start)).toBe(true);
    expect((await c.error('extract', { file: f.file, output: 'x.sigmf-meta', decimate: 0 })).code).toBe(
      'bad-request',
    );
    expect((await c.error('extract', { file: f.file, output: 'x.wav' })).message).toMatch(/WAV holds audio/);
    c.conn.close();
  });

  it('writes only inside the client’s roots', async () => {
    const inside = join(tmp.dir, 'root');
    mkdirSync(inside);
    const path = writeIq(inside, 'rooted');
    const out: Array<ServerMessage | ArrayBuffer> = [];
    const conn = createEngineConnection((m) => out.push(m), {
      engine,
      access: new FileAccess([inside]),
    });
    const reply = async (id: number, method: string, params: unknown) => {
      conn.receive({ type: 'request', id, method, params });
      await until(() => out.some((m) => !(m instanceof ArrayBuffer) && m.type === 'reply' && m.id === id));
      return out.find((m) => !(m instanceof ArrayBuffer) && m.type === 'reply' && m.id === id) as {
        ok: boolean;
        result?: { file: number; output: string };
        error?: { message: string };
      };
    };
    const opened = await reply(1, 'openFile', { path });
    const file = opened.result!.file;
    const outside = await reply(2, 'extract', { file, output: join(tmp.dir, 'escaped.sigmf-meta') });
    expect(outside.ok).toBe(false);
    expect(outside.error!.message).toMatch(/outside the folders this client may use/);
    expect(existsSync(join(tmp.dir, 'escaped.sigmf-meta'))).toBe(false);
    const ok = await reply(3, 'extract', { file, output: 'rooted-extract.sigmf-meta', decimate: 2 });
    expect(ok.ok).toBe(true);
    expect(ok.result!.output).toBe(join(inside, 'rooted-extract.sigmf-meta'));
    conn.close();
  });

  it('cancel mid-extraction answers cancelled and leaves no output and no temporary', async () => {
    const gate = new Gate();
    const gated = new Engine({ backend: gatedBackend(cpu, { fir: gate }), progressIntervalMs: 0 });
    const c = new Client(gated);
    const dir = join(tmp.dir, 'cancel');
    mkdirSync(dir);
    const f = await c.ok<FileInfo>('openFile', { path: writeIq(dir, 'c') });
    const id = c.send('extract', { file: f.file, output: 'c-out.sigmf-meta', lowpass: 5000, numtaps: 31 });
    await until(() => gate.reached === 1, 10000, 'the extraction to start');
    expect(await c.request('cancel', { request: id })).toMatchObject({
      ok: true,
      result: { cancelled: true },
    });
    gate.open();
    expect(await c.reply(id)).toMatchObject({ ok: false, error: { code: 'cancelled' } });
    expect(readdirSync(dir).sort()).toEqual(['c.sigmf-data', 'c.sigmf-meta']);
    c.conn.close();
    await gated.dispose();
  });
});
