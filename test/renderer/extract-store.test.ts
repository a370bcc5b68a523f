// @vitest-environment happy-dom
// What the Extract panel proposes for a selection: the band's centre as the shift (relative to an I/Q
// file's centre, absolute for audio), half its width as the low-pass, the largest decimation keeping
// 2.5 × the low-pass, and an output beside the input that is SigMF whenever the extract is complex; the
// store sends the selection's frames and opens the extract when it is written.
import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it } from 'vitest';
import type { ExtractResult } from '../../electron/engine/protocol/messages.js';
import { useConnectionStore } from '../../renderer/src/stores/connection.js';
import { extractOutputPath, suggestExtract, useExtractStore } from '../../renderer/src/stores/extract.js';
import { useFilesStore } from '../../renderer/src/stores/files.js';
import { FakeConnection, settle } from './fake-connection.js';
import { fileInfo } from './offline-fixtures.js';

beforeEach(() => {
  localStorage.clear();
  setActivePinia(createPinia());
});

describe('the Extract panel’s suggestions', () => {
  const iq = fileInfo({
    path: '/data/rec.sigmf-meta',
    name: 'rec.sigmf-meta',
    container: 'sigmf',
    encoding: 'cf32_le',
    complex: true,
    sampleRate: 2.4e6,
    centerFrequency: 100e6,
  });

  it('shifts an I/Q band relative to the file’s centre and decimates to 2.5 × its half width', () => {
    const s = suggestExtract(iq, { t0: 0.1, t1: 0.2, f0: 100.2e6, f1: 100.3e6 });
    expect(s.shift).toBeCloseTo(250e3, 3);
    expect(s.lowpass).toBeCloseTo(50e3, 3);
    // floor(2.4 MHz / 125 kHz) = 19: 126.3 kHz ≥ 125 kHz, K = 20 would give 120 kHz
    expect(s.decimate).toBe(19);
    expect(extractOutputPath(iq, s.shift)).toBe('/data/rec-extract.sigmf-meta');
  });

  it('proposes the plain selection when no band is selected', () => {
    expect(suggestExtract(iq, { t0: 0, t1: 1 })).toMatchObject({ shift: 0, lowpass: '', decimate: 1 });
  });

  it('shifts audio by the band’s absolute centre, and keeps an unshifted WAV a WAV', () => {
    const wav = fileInfo({ sampleRate: 48000 });
    const s = suggestExtract(wav, { t0: 0, t1: 1, f0: 1000, f1: 3000 });
    expect(s).toMatchObject({ shift: 2000, lowpass: 1000, decimate: 19 });
    expect(extractOutputPath(wav, s.shift)).toBe('/data/tones-extract.sigmf-meta');
    expect(extractOutputPath(wav, 0)).toBe('/data/tones-extract.wav');
  });
});

describe('the extract store', () => {
  it('sends the selection in frames with the form, then shows the new file', async () => {
    const conn = new FakeConnection();
    await useConnectionStore().attach(conn);
    await settle();
    const source = fileInfo({
      path: '/data/rec.sigmf-meta',
      name: 'rec.sigmf-meta',
      container: 'sigmf',
      complex: true,
      sampleRate: 1e6,
      samples: 4e6,
      duration: 4,
      centerFrequency: 433e6,
    });
    const result = fileInfo({ path: '/data/rec-extract.sigmf-meta', name: 'rec-extract.sigmf-meta' });
    conn.handle('openFile', (p) => (p.path === source.path ? source : result));
    let sent: unknown = null;
    conn.handle('extract', (p) => {
      sent = p;
      return { output: result.path, frames: 100 } as ExtractResult;
    });
    const files = useFilesStore();
    await files.open(source.path);
    files.setSelection({ t0: 1.5, t1: 2.5, f0: 433.1e6, f1: 433.2e6 });
    const extract = useExtractStore();
    extract.start();
    expect(extract.open).toBe(true);
    expect(extract.form).toMatchObject({ decimate: 8, output: '/data/rec-extract.sigmf-meta' });
    expect(extract.form.shift).toBeCloseTo(150e3, 3);
    expect(extract.form.lowpass).toBeCloseTo(50e3, 3);
    extract.form.decimate = 0;
    expect(await extract.run()).toBeNull();
    expect(extract.error).toBe('the decimation must be a whole number ≥ 1');
    expect(sent).toBeNull();
    extract.form.decimate = 10;
    await extract.run();
    expect(sent).toMatchObject({
      file: source.file,
      output: '/data/rec-extract.sigmf-meta',
      start: 1_500_000,
      end: 2_500_000,
      numtaps: 255,
      decimate: 10,
    });
    expect(files.current?.path).toBe(result.path);
  });
});
