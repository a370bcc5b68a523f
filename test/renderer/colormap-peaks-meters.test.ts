// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { colormapTable } from '../../electron/engine/output/colormaps.js';
import { colormapNames, colormapRgba, isColormap, nextColormap } from '../../renderer/src/lib/colormap.js';
import { peakLabel } from '../../renderer/src/lib/peaks.js';
import { RateMeter, ValueRing } from '../../renderer/src/lib/meters.js';
import { FrameLoop } from '../../renderer/src/lib/frame-loop.js';
import { shortcutFor } from '../../renderer/src/lib/shortcuts.js';

describe('colormap lookup texture data', () => {
  it('is the engine table widened to opaque RGBA, 256 entries, for every colormap', () => {
    for (const name of colormapNames) {
      const rgba = colormapRgba(name);
      const rgb = colormapTable(name);
      expect(rgba.length).toBe(1024);
      for (let i = 0; i < 256; i++) {
        expect([rgba[4 * i], rgba[4 * i + 1], rgba[4 * i + 2], rgba[4 * i + 3]]).toEqual([
          rgb[3 * i],
          rgb[3 * i + 1],
          rgb[3 * i + 2],
          255,
        ]);
      }
    }
  });

  it('has viridis run from #440154 to #fde725 and gray as a ramp', () => {
    const v = colormapRgba('viridis');
    expect(Array.from(v.slice(0, 3))).toEqual([0x44, 0x01, 0x54]);
    expect(Array.from(v.slice(1020, 1023))).toEqual([0xfd, 0xe7, 0x25]);
    const g = colormapRgba('gray');
    expect(Array.from(g.slice(4 * 200, 4 * 200 + 4))).toEqual([200, 200, 200, 255]);
  });

  it('cycles through the five colormaps', () => {
    const seen: string[] = [];
    let c: (typeof colormapNames)[number] = colormapNames[0];
    for (let i = 0; i < 5; i++) {
      seen.push(c);
      c = nextColormap(c);
    }
    expect(seen).toEqual(['viridis', 'inferno', 'magma', 'turbo', 'gray']);
    expect(c).toBe('viridis');
    expect(isColormap('turbo')).toBe(true);
    expect(isColormap('jet')).toBe(false);
  });
});

describe('peak marker labels', () => {
  it('writes the frequency to a tenth of a bin and the level to 0.01 dB', () => {
    // FFT 2048 at 48 kHz: 23.4 Hz bins → 2.3 Hz → three decimals in kHz.
    expect(peakLabel(1000.00003, -6.020599, 48000 / 2048, 24000)).toBe('1.000 kHz  −6.02 dB');
    expect(peakLabel(1007.8125, -6.6, 48000 / 2048, 24000)).toBe('1.008 kHz  −6.60 dB');
    // FFT 65536: 0.73 Hz bins → 0.07 Hz → five decimals in kHz.
    expect(peakLabel(3000.0012, -20.004, 48000 / 65536, 24000)).toBe('3.00000 kHz  −20.00 dB');
    // I/Q around 433.92 MHz, 46.9 Hz bins: Hz digits in MHz.
    expect(peakLabel(433.9251234e6, -0.004, 2.4e6 / 51200, 435e6)).toBe('433.925123 MHz  0.00 dB');
    expect(peakLabel(250, 3.01, 48000 / 256, 24000)).toBe('0.25 kHz  3.01 dB');
  });
});

describe('meters', () => {
  it('keeps the last N values and interpolates quantiles like numpy', () => {
    const r = new ValueRing(4);
    for (let i = 1; i <= 10; i++) r.push(i * i);
    expect(r.values()).toEqual([49, 64, 81, 100]);
    expect(r.total).toBe(10);
    // numpy.quantile([49, 64, 81, 100], 0.5) = 72.5; 0.99 → 81 + 0.97·19 = 99.43
    expect(r.quantile(0.5)).toBeCloseTo(72.5, 12);
    expect(r.quantile(0.99)).toBeCloseTo(99.43, 12);
    r.reset();
    expect(Number.isNaN(r.quantile(0.5))).toBe(true);
  });

  it('measures a rate over complete windows and falls to 0 when events stop', () => {
    const m = new RateMeter(1000);
    let updated = false;
    for (let t = 0; t <= 1000; t += 20) updated = m.tick(t) || updated;
    expect(updated).toBe(true);
    expect(m.rate).toBe(50);
    expect(m.update(2500)).toBe(true);
    expect(m.rate).toBe(0);
  });

  it('counts the frames in which something drew', () => {
    const queue: FrameRequestCallback[] = [];
    const rates: number[] = [];
    let drawn = 0;
    const loop = new FrameLoop(
      (fps) => rates.push(fps),
      () => drawn++,
      (cb) => queue.push(cb),
      () => {},
    );
    let frame = 0;
    const remove = loop.add(() => frame++ % 2 === 0);
    for (let t = 0; t <= 1000; t += 10) queue.shift()!(t);
    expect(drawn).toBe(51);
    expect(loop.framesDrawn).toBe(51);
    expect(rates).toEqual([50]);
    remove();
    expect(queue.length).toBe(1); // the last frame's request stays, then stops
    queue.shift()!(1010);
    expect(queue.length).toBe(0);
  });
});

describe('keyboard shortcuts', () => {
  it('maps keys to actions outside form fields only', () => {
    expect(shortcutFor({ key: ' ' })).toBe('pause');
    expect(shortcutFor({ key: '+' })).toBe('zoomIn');
    expect(shortcutFor({ key: '-' })).toBe('zoomOut');
    expect(shortcutFor({ key: 'c' })).toBe('colormap');
    expect(shortcutFor({ key: 's' })).toBe('snapshot');
    expect(shortcutFor({ key: '?' })).toBe('help');
    expect(shortcutFor({ key: 'Escape' })).toBe('closeHelp');
    expect(shortcutFor({ key: 's', ctrlKey: true })).toBe(null);
    expect(shortcutFor({ key: 'x' })).toBe(null);
    expect(shortcutFor({ key: ' ', target: { tagName: 'INPUT', type: 'text' } })).toBe(null);
    expect(shortcutFor({ key: 'c', target: { tagName: 'SELECT' } })).toBe(null);
    expect(shortcutFor({ key: ' ', target: { tagName: 'INPUT', type: 'checkbox' } })).toBe('pause');
    expect(shortcutFor({ key: 'Escape', target: { tagName: 'INPUT', type: 'text' } })).toBe('closeHelp');
  });
});
