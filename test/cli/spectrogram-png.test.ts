// `phasor spectrogram -o OUT.png` frames the image: frequency and time axes, a colour bar, a title with the
// start time. The data area must be the bare image (--bare) unchanged.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { colormapTable } from '../../electron/engine/output/colormaps.js';
import { drawText, textWidth } from '../../electron/engine/output/font.js';
import { decodePng } from '../../electron/engine/output/image.js';
import { runCli, tempDir } from '../support/cli.js';
import { add, complexTones, noise, tones } from '../support/signals.js';
import { writeTestWav } from '../support/wav.js';

const tmp = tempDir();
afterAll(() => tmp.remove());
const f = (name: string) => join(tmp.dir, name);

type Png = ReturnType<typeof decodePng>;
interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}
const rgb = (img: Png, x: number, y: number) =>
  Array.from(img.data.subarray((y * img.width + x) * 4, (y * img.width + x) * 4 + 3));
const isInk = (img: Png, x: number, y: number) => rgb(img, x, y).every((v) => v === 0);
const isPaper = (img: Png, x: number, y: number) => rgb(img, x, y).every((v) => v === 255);

async function spectrogram(
  input: string,
  out: string,
  extra: string[],
): Promise<{ json: Record<string, unknown>; png: Png }> {
  const r = await runCli(['spectrogram', input, '-o', out, '--json', ...extra]);
  expect(r.code, r.stderr).toBe(0);
  return { json: JSON.parse(r.stdout) as Record<string, unknown>, png: decodePng(readFileSync(out)) };
}

/** Rows (framed image) of the frequency tick marks: the column 3 px left of the frame, inked. */
function tickRows(png: Png, plot: Rect): number[] {
  const out: number[] = [];
  for (let y = plot.y; y < plot.y + plot.height; y++) {
    if (isInk(png, plot.x - 3, y)) out.push(y);
    else expect(isPaper(png, plot.x - 3, y)).toBe(true);
  }
  return out;
}

/** The text drawn with its top-left corner at (x, y) is `text` in the bitmap font (scale 1). */
function expectText(png: Png, text: string, x: number, y: number): void {
  const w = textWidth(text);
  const want = { data: new Uint8Array(w * 7 * 4), width: w, height: 7 };
  drawText(want, text, 0, 0, [0, 0, 0]);
  for (let yy = 0; yy < 7; yy++)
    for (let xx = 0; xx < w; xx++) {
      const ink = want.data[(yy * w + xx) * 4 + 3] === 255;
      expect(ink ? isInk(png, x + xx, y + yy) : isPaper(png, x + xx, y + yy), `${text} (${xx}, ${yy})`).toBe(
        true,
      );
    }
}

describe('phasor spectrogram PNG with axes', () => {
  const fs = 48000;
  const n = 2 * fs;
  writeTestWav(
    f('tones.wav'),
    add(
      tones(n, fs, [
        { frequency: 3000, amplitude: 0.5 },
        { frequency: 12000, amplitude: 0.25 },
      ]),
      noise(n, 3, 1e-3),
    ),
    fs,
    1,
  );

  it('keeps the bare image as its data area and marks 0, 5, 10, 15, 20 kHz where they fall', async () => {
    const bare = await spectrogram(f('tones.wav'), f('bare.png'), ['--width', '600', '--bare']);
    const framed = await spectrogram(f('tones.wav'), f('framed.png'), ['--width', '600']);
    expect(bare.json.plot).toBeUndefined();
    expect([bare.png.width, bare.png.height]).toEqual([600, 513]);
    const plot = framed.json.plot as Rect;
    expect([plot.width, plot.height]).toEqual([600, 513]);
    expect(framed.png.width).toBeGreaterThan(600);
    expect(framed.png.height).toBeGreaterThan(513);
    for (let y = 0; y < plot.height; y++) {
      const a = bare.png.data.subarray(y * 600 * 4, (y + 1) * 600 * 4);
      const o = ((plot.y + y) * framed.png.width + plot.x) * 4;
      expect(Buffer.from(framed.png.data.subarray(o, o + 600 * 4)).equals(Buffer.from(a)), `row ${y}`).toBe(
        true,
      );
    }
    // 513 bins of 46.875 Hz centred on 0 … 24000 Hz: the rows span −23.4375 … 24023.4375 Hz, top down.
    const row = (hz: number) => plot.y + Math.min(512, Math.floor(((24023.4375 - hz) / 24046.875) * 513));
    expect(tickRows(framed.png, plot)).toEqual([20000, 15000, 10000, 5000, 0].map(row));
    // The frame around the data area.
    for (let x = plot.x - 1; x <= plot.x + plot.width; x++) {
      expect(isInk(framed.png, x, plot.y - 1)).toBe(true);
      expect(isInk(framed.png, x, plot.y + plot.height)).toBe(true);
    }
    // A WAV has no start time.
    expectText(framed.png, 'tones.wav  start time unknown  FFT 1024 hann', 6, 6);
  });

  it('draws a colour bar running through the colormap from the top of the range to the bottom', async () => {
    const { json, png } = await spectrogram(f('tones.wav'), f('bar.png'), [
      '--colormap',
      'magma',
      '--range',
      '-90:-10',
    ]);
    const bar = json.colorBar as Rect;
    const lut = colormapTable('magma');
    const indexOf = (c: number[]) => {
      for (let i = 0; i < 256; i++)
        if (lut[3 * i] === c[0] && lut[3 * i + 1] === c[1] && lut[3 * i + 2] === c[2]) return i;
      return -1;
    };
    const idx = Array.from({ length: bar.height }, (_, y) =>
      indexOf(rgb(png, bar.x + (bar.width >> 1), bar.y + y)),
    );
    expect(idx.every((i) => i >= 0)).toBe(true);
    expect(idx[0]).toBeGreaterThanOrEqual(254);
    expect(idx[idx.length - 1]).toBeLessThanOrEqual(1);
    for (let i = 1; i < idx.length; i++) expect(idx[i]).toBeLessThanOrEqual(idx[i - 1]);
    // Framed by ink, with paper beside it.
    expect(isInk(png, bar.x - 1, bar.y + 10)).toBe(true);
    expect(isPaper(png, bar.x - 3, bar.y + 10)).toBe(true);
  });

  it('labels I/Q with absolute frequencies and the SigMF capture start time', async () => {
    const rate = 1e6;
    const centre = 100.05e6;
    const frames = 200000;
    const iq = add(
      complexTones(frames, rate, [{ frequency: 1e5, amplitude: 0.5 }]),
      noise(2 * frames, 5, 1e-3),
    );
    writeFileSync(f('iq.sigmf-data'), Buffer.from(Float32Array.from(iq).buffer));
    writeFileSync(
      f('iq.sigmf-meta'),
      JSON.stringify({
        global: { 'core:datatype': 'cf32_le', 'core:sample_rate': rate, 'core:version': '1.2.0' },
        // The second capture's first sample (frame 100000) was recorded at 07:08:10: frame 0, 0.1 s before.
        captures: [
          { 'core:sample_start': 0, 'core:frequency': centre },
          { 'core:sample_start': 100000, 'core:frequency': centre, 'core:datetime': '2024-05-06T07:08:10Z' },
        ],
      }),
    );
    const { json, png } = await spectrogram(f('iq.sigmf-meta'), f('iq.png'), ['--height', '400']);
    const plot = json.plot as Rect;
    expect(plot.height).toBe(400);
    // 1024 bins of 976.5625 Hz centred on centre − 512 … centre + 511 bins.
    const e0 = centre - 512 * 976.5625 - 488.28125;
    const e1 = centre + 511 * 976.5625 + 488.28125;
    const row = (hz: number) => plot.y + Math.min(399, Math.floor(((e1 - hz) / (e1 - e0)) * 400));
    // Ticks every 200 kHz of absolute frequency: 99.6 … 100.4 MHz (relative ones would sit 50 kHz away).
    const marks = [100.4, 100.2, 100.0, 99.8, 99.6].map((m) => row(m * 1e6));
    expect(tickRows(png, plot)).toEqual(marks);
    expectText(png, 'iq.sigmf-meta  start 2024-05-06T07:08:09.900Z  FFT 1024 hann', 6, 6);
  });
});
