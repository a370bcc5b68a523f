// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { colormapTable } from '../../electron/engine/output/colormaps.js';
import { colormapNames, colormapRgba, isColormap, nextColormap } from '../../renderer/src/lib/colormap.js';
import { PeakFinder, parabolicOffset } from '../../renderer/src/lib/peaks.js';
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

describe('peak markers', () => {
  /** A noise floor near −90 dB with parabolic lobes (in dB) whose vertices are known exactly. */
  function spectrum(width: number, lobes: Array<{ c: number; level: number }>): Float32Array {
    let s = 12345;
    const v = new Float32Array(width);
    for (let i = 0; i < width; i++) {
      s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
      v[i] = -90 + 4 * (s / 4294967296 - 0.5);
    }
    for (const { c, level } of lobes) {
      for (let i = Math.ceil(c - 3); i <= Math.floor(c + 3); i++) {
        v[i] = Math.max(v[i], level - 6 * (i - c) * (i - c));
      }
    }
    return v;
  }

  it('finds the tones strongest first, at their fractional columns', () => {
    const lobes = [
      { c: 100.3, level: -20 },
      { c: 400.75, level: -6 },
      { c: 800.5, level: -40 },
    ];
    const v = spectrum(1024, lobes);
    const f = new PeakFinder({ maxPeaks: 6, radius: 4, prominence: 10 });
    const n = f.find(v, 1024);
    expect(n).toBe(3);
    const expected = [lobes[1], lobes[0], lobes[2]];
    for (let i = 0; i < 3; i++) {
      // A parabola through three samples of a parabola gives its vertex (float32 levels: ~1e-4 column).
      expect(f.peaks[i].column).toBeCloseTo(expected[i].c, 3);
    }
  });

  it('leaves peaks on their column when columns are maxima of several bins', () => {
    const v = spectrum(1024, [{ c: 400.75, level: -6 }]);
    const f = new PeakFinder({ maxPeaks: 6, radius: 4, prominence: 10 });
    f.refine = false;
    expect(f.find(v, 1024)).toBe(1);
    expect(f.peaks[0].column).toBe(401);
  });

  it('keeps one marker per lobe and none on the noise', () => {
    const v = spectrum(512, [
      { c: 200, level: -10 },
      { c: 203, level: -12 },
    ]);
    const f = new PeakFinder({ maxPeaks: 6, radius: 4, prominence: 10 });
    expect(f.find(v, 512)).toBe(1);
    expect(f.find(spectrum(512, []), 512)).toBe(0);
  });

  it('offsets by the vertex of the parabola through three points', () => {
    // y = −(x − 0.3)²: at −1, 0, 1 → −1.69, −0.09, −0.49
    expect(parabolicOffset([-1.69, -0.09, -0.49], 1, 3)).toBeCloseTo(0.3, 12);
    expect(parabolicOffset([1, 2, 3], 0, 3)).toBe(0);
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
