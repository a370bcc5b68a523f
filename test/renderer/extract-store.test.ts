// @vitest-environment happy-dom
// What the Extract panel proposes for a selection: the band's centre as the shift (relative to an I/Q
// file's centre, absolute for audio), half its width as the low-pass, the largest decimation keeping
// 2.5 × the low-pass, and an output beside the input that is SigMF whenever the extract is complex.
import { describe, expect, it } from 'vitest';
import { extractOutputPath, suggestExtract } from '../../renderer/src/stores/extract.js';
import { fileInfo } from './offline-fixtures.js';

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
