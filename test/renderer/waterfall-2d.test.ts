import { describe, expect, it } from 'vitest';
import { colorRow } from '../../renderer/src/gl/waterfall-2d.js';

/** A colormap whose entry k is (k, 255 − k, k ^ 0x55). */
const lut = Uint8Array.from({ length: 1024 }, (_, i) => {
  const k = i >> 2;
  return [k, 255 - k, k ^ 0x55, 255][i & 3];
});

describe('colorRow (the 2D waterfall)', () => {
  it('colours each pixel by the loudest column under it, over the dB range, and the background outside', () => {
    const levels = Float32Array.from([99, -120, -60, -30, 0, 10, -200, NaN]); // row at offset 1
    const start = Int32Array.from([0, 2, 3, -1, 5, 6]);
    const end = Int32Array.from([0, 3, 3, -1, 5, 6]);
    const out = new Uint8ClampedArray(4 * 6 + 8);
    colorRow(levels, 1, start, end, 6, -120, 0, lut, out, 8);
    const px = (i: number) => Array.from(out.subarray(8 + 4 * i, 12 + 4 * i));
    expect(px(0)).toEqual([0, 255, 0x55, 255]); // −120 dB: the first entry
    expect(px(1)).toEqual([255, 0, 255 ^ 0x55, 255]); // max(−30, 0) = 0 dB: the last entry
    expect(px(2)).toEqual([255, 0, 255 ^ 0x55, 255]); // 0 dB
    expect(px(3)).toEqual([11, 14, 19, 255]); // outside the row: the background
    expect(px(4)).toEqual([0, 255, 0x55, 255]); // −200 dB clamps to the first entry
    expect(px(5)).toEqual([0, 255, 0x55, 255]); // no level (NaN): the first entry, not garbage
    expect(Array.from(out.subarray(0, 8))).toEqual([0, 0, 0, 0, 0, 0, 0, 0]); // before outOff untouched
    // Mid-range: −60 dB of [−120, 0] is entry round(127.5) = 128.
    const mid = new Uint8ClampedArray(4);
    colorRow(
      Float32Array.from([-60]),
      0,
      Int32Array.from([0]),
      Int32Array.from([0]),
      1,
      -120,
      0,
      lut,
      mid,
      0,
    );
    expect(Array.from(mid)).toEqual([128, 127, 128 ^ 0x55, 255]);
  });
});
