import { describe, expect, it } from 'vitest';
import { colormapTable } from '../../electron/engine/output/colormaps.js';
import { drawText, glyph, GLYPH_ADVANCE, textWidth } from '../../electron/engine/output/font.js';
import { colorize } from '../../electron/engine/output/image.js';
import {
  FRAME_BACKGROUND,
  FRAME_INK,
  framePlot,
  spectrogramExtent,
} from '../../electron/engine/output/plot-frame.js';

const blank = (width: number, height: number) => ({
  data: new Uint8Array(width * height * 4),
  width,
  height,
});
const inked = (img: { data: Uint8Array; width: number }, x: number, y: number) =>
  img.data[(y * img.width + x) * 4 + 3] === 255;
const rgb = (img: { data: Uint8Array; width: number }, x: number, y: number) => {
  const o = (y * img.width + x) * 4;
  return [img.data[o], img.data[o + 1], img.data[o + 2]];
};

describe('bitmap font', () => {
  it('draws "1-A" as the glyphs written out here, at scale 2, one blank column apart', () => {
    // The expected pixels, written independently of font.ts.
    const expected: Record<string, string[]> = {
      '1': ['..#..', '.##..', '..#..', '..#..', '..#..', '..#..', '.###.'],
      '-': ['.....', '.....', '.....', '#####', '.....', '.....', '.....'],
      A: ['.###.', '#...#', '#...#', '#####', '#...#', '#...#', '#...#'],
    };
    const img = blank(40, 16);
    drawText(img, '1-A', 1, 1, [10, 20, 30], 2);
    expect(textWidth('1-A', 2)).toBe((3 * 6 - 1) * 2);
    for (let y = 0; y < img.height; y++) {
      for (let x = 0; x < img.width; x++) {
        const gx = Math.floor((x - 1) / 2);
        const gy = Math.floor((y - 1) / 2);
        const ch = Math.floor(gx / GLYPH_ADVANCE);
        const col = gx - ch * GLYPH_ADVANCE;
        const want = x >= 1 && y >= 1 && gy < 7 && ch < 3 && col < 5 && expected['1-A'[ch]][gy][col] === '#';
        expect(inked(img, x, y), `(${x}, ${y})`).toBe(want);
        if (want) expect(rgb(img, x, y)).toEqual([10, 20, 30]);
      }
    }
  });

  it('has a distinct glyph for every printable ASCII character and "?" for the rest', () => {
    const seen = new Map<string, string>();
    for (let c = 33; c < 127; c++) {
      const ch = String.fromCharCode(c);
      const key = Array.from(glyph(ch)).join('');
      expect(key).toMatch(/1/);
      expect(seen.get(key), `${ch} looks like ${seen.get(key)}`).toBeUndefined();
      seen.set(key, ch);
    }
    expect(Array.from(glyph('\u00e9'))).toEqual(Array.from(glyph('?')));
    expect(Array.from(glyph(' ')).every((v) => v === 0)).toBe(true);
  });
});

describe('framePlot', () => {
  // A 48 kHz real file, FFT 1024, hop 256, 300 frames drawn into 400 × 513 pixels.
  const fs = 48000;
  const W = 400;
  const H = 513;
  const levels = Float32Array.from({ length: W * H }, (_, i) => -120 + ((i * 7919) % 1200) / 10);
  const image = colorize({ levels, width: W, height: H }, [-120, 0], 'viridis');
  const extent = spectrogramExtent({ sampleRate: fs, complex: false, fft: 1024, hop: 256, frames: 300 });
  const framed = framePlot({
    image,
    width: W,
    height: H,
    ...extent,
    range: [-100, -20],
    colormap: 'viridis',
    title: 'tones.wav  start time unknown',
  });
  const { plot, colorBar } = framed;

  it('puts the image in the data area pixel for pixel, inside a one-pixel frame', () => {
    expect([plot.width, plot.height]).toEqual([W, H]);
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        const o = (y * W + x) * 4;
        const p = ((plot.y + y) * framed.width + plot.x + x) * 4;
        if (
          framed.data[p] !== image[o] ||
          framed.data[p + 1] !== image[o + 1] ||
          framed.data[p + 2] !== image[o + 2]
        )
          throw new Error(`pixel (${x}, ${y}) differs`);
      }
    }
    for (let x = plot.x - 1; x <= plot.x + W; x++) {
      expect(rgb(framed, x, plot.y - 1)).toEqual([...FRAME_INK]);
      expect(rgb(framed, x, plot.y + H)).toEqual([...FRAME_INK]);
    }
    expect(rgb(framed, 0, framed.height - 1)).toEqual([...FRAME_BACKGROUND]);
  });

  it('marks 0, 5, 10, 15 and 20 kHz at the rows those frequencies fall in', () => {
    // Bin centres 0 … 24000 Hz, each bin 46.875 Hz tall: the rows span −23.4375 … 24023.4375 Hz.
    expect(extent.frequency[0]).toBeCloseTo(-23.4375, 9);
    expect(extent.frequency[1]).toBeCloseTo(24023.4375, 9);
    const rowOf = (f: number) => plot.y + Math.min(H - 1, Math.floor(((24023.4375 - f) / 24046.875) * H));
    expect(framed.frequencyTicks.map((t) => t.value)).toEqual([0, 5000, 10000, 15000, 20000]);
    expect(framed.frequencyTicks.map((t) => t.label)).toEqual(['0', '5', '10', '15', '20']);
    const tickRows = new Set(framed.frequencyTicks.map((t) => t.pixel));
    for (const f of [0, 5000, 10000, 15000, 20000]) expect(tickRows.has(rowOf(f))).toBe(true);
    // The column two pixels left of the frame is inked exactly on the tick rows.
    for (let y = plot.y; y < plot.y + H; y++)
      expect(inked(framed, plot.x - 3, y) && rgb(framed, plot.x - 3, y)[0] === 0).toBe(tickRows.has(y));
    expect(framed.texts.some((t) => t.text === 'kHz')).toBe(true);
  });

  it('marks time from the start at the columns those times fall in', () => {
    // Frame f is centred on sample 256 f + 512; 300 frames spread over 400 columns.
    const t0 = (512 - 128) / fs;
    const t1 = (299.5 * 256 + 512) / fs;
    expect(extent.time[0]).toBeCloseTo(t0, 12);
    expect(extent.time[1]).toBeCloseTo(t1, 12);
    expect(framed.timeTicks.map((t) => t.value)).toEqual([0.5, 1, 1.5]);
    const cols = new Set(framed.timeTicks.map((t) => t.pixel));
    for (const t of framed.timeTicks.map((k) => k.value))
      expect(cols.has(plot.x + Math.floor(((t - t0) / (t1 - t0)) * W))).toBe(true);
    const y = plot.y + H + 2;
    for (let x = plot.x; x < plot.x + W; x++) expect(rgb(framed, x, y)[0] === 0).toBe(cols.has(x));
  });

  it('draws a colour bar whose rows follow the colormap from the top level down', () => {
    const lut = colormapTable('viridis');
    let last = 256;
    for (let y = 0; y < colorBar.height; y++) {
      // The level at the row's middle, stored as float32 like an image's levels.
      const v = Math.fround(-20 - ((y + 0.5) / H) * 80);
      const idx = Math.round((v + 100) * (255 / 80));
      for (const x of [colorBar.x, colorBar.x + colorBar.width - 1])
        expect(rgb(framed, x, colorBar.y + y)).toEqual([lut[3 * idx], lut[3 * idx + 1], lut[3 * idx + 2]]);
      expect(idx).toBeLessThanOrEqual(last);
      last = idx;
    }
    expect(last).toBe(0);
    const dB = [-100, -90, -80, -70, -60, -50, -40, -30, -20];
    expect(framed.levelTicks.map((t) => t.value)).toEqual(dB);
    expect(framed.levelTicks.map((t) => t.pixel - plot.y)).toEqual(
      dB.map((v) => Math.min(H - 1, Math.floor(((-20 - v) / 80) * H))),
    );
  });

  it('draws each label with the font where the layout says', () => {
    expect(framed.texts.map((t) => t.text)).toEqual(
      expect.arrayContaining(['tones.wav  start time unknown', 'time (s)', 'dBFS', '20', '-60', '1.0']),
    );
    for (const t of framed.texts) {
      const w = textWidth(t.text, t.scale);
      const want = blank(w, 7 * t.scale);
      drawText(want, t.text, 0, 0, FRAME_INK, t.scale);
      let ink = 0;
      for (let y = 0; y < want.height; y++) {
        for (let x = 0; x < w; x++) {
          if (!inked(want, x, y)) continue;
          ink++;
          expect(rgb(framed, t.x + x, t.y + y), `${t.text} (${x}, ${y})`).toEqual([...FRAME_INK]);
        }
      }
      expect(ink).toBeGreaterThan(0);
    }
  });
});
