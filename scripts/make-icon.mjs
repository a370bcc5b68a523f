#!/usr/bin/env node
// Draws the app icon, resources/icons/NxN.png at every size a desktop asks for: a rounded tile holding a
// little waterfall — a bright tone line and a chirp over a noise floor, in viridis. Each size is drawn from
// the same picture (not scaled from another PNG), 4×4 samples a pixel, so small sizes stay clean. Run it
// after changing the picture; the PNGs are committed. electron-builder takes the folder for Linux and makes
// the Windows .ico and the macOS .icns from the 1024 px one (electron-builder.yml).
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { interpolateViridis } from 'd3-scale-chromatic';
import { PNG } from 'pngjs';

export const ICON_SIZES = [16, 24, 32, 48, 64, 128, 256, 512, 1024];

const viridis = (t) => {
  // d3 gives "#rrggbb".
  const hex = interpolateViridis(Math.max(0, Math.min(1, t)));
  return [1, 3, 5].map((k) => parseInt(hex.slice(k, k + 2), 16));
};

// The picture in unit coordinates (0..1 across the icon), as drawn at 512 px when it was designed.
const MARGIN = 24 / 512;
const RADIUS = 96 / 512;
const COLS = 64; // noise cells of 8×4 px at 512 px, like bins × rows
const ROWS = 128;
let seed = 7;
const rand = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
const cells = Array.from({ length: COLS * ROWS }, () => rand());

/** The colour and coverage (0 outside the tile, 1 inside) at a point (x, y in 0..1); `edge` is the width of
 * the soft edge in the same units. */
function sample(x, y, edge) {
  const cx = Math.max(MARGIN + RADIUS - x, 0, x - (1 - MARGIN - RADIUS));
  const cy = Math.max(MARGIN + RADIUS - y, 0, y - (1 - MARGIN - RADIUS));
  const d = Math.hypot(cx, cy) - RADIUS;
  const inside = Math.max(0, Math.min(1, 0.5 - d / edge));
  const u = (x - MARGIN) / (1 - 2 * MARGIN);
  const v = (y - MARGIN) / (1 - 2 * MARGIN);
  const col = Math.min(COLS - 1, Math.max(0, Math.floor(x * COLS)));
  const row = Math.min(ROWS - 1, Math.max(0, Math.floor(y * ROWS)));
  let level = 0.12 + 0.1 * cells[row * COLS + col];
  level += 0.85 * Math.exp(-(((u - 0.3) / 0.012) ** 2));
  level += 0.4 * Math.exp(-(((u - 0.3) / 0.05) ** 2));
  const chirp = 0.55 + 0.3 * v * v;
  level += 0.7 * Math.exp(-(((u - chirp) / 0.015) ** 2));
  return [viridis(level), inside];
}

/** The icon at `size` × `size` pixels, RGBA, not premultiplied. */
export function drawIcon(size) {
  const png = new PNG({ width: size, height: size });
  const S = 4;
  // The tile's soft edge stays about 1.5 px wide at every size.
  const edge = 1.5 / size;
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      // Averaged with coverage as weight (premultiplied), so the edge does not darken.
      let r = 0;
      let g = 0;
      let b = 0;
      let a = 0;
      for (let sy = 0; sy < S; sy++) {
        for (let sx = 0; sx < S; sx++) {
          const [[cr, cg, cb], cover] = sample(
            (px + (sx + 0.5) / S) / size,
            (py + (sy + 0.5) / S) / size,
            edge,
          );
          r += cr * cover;
          g += cg * cover;
          b += cb * cover;
          a += cover;
        }
      }
      const i = (py * size + px) * 4;
      png.data[i] = a > 0 ? Math.round(r / a) : 0;
      png.data[i + 1] = a > 0 ? Math.round(g / a) : 0;
      png.data[i + 2] = a > 0 ? Math.round(b / a) : 0;
      png.data[i + 3] = Math.round((255 * a) / (S * S));
    }
  }
  return png;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = new URL('../resources/icons/', import.meta.url);
  mkdirSync(dir, { recursive: true });
  for (const size of ICON_SIZES) {
    writeFileSync(new URL(`${size}x${size}.png`, dir), PNG.sync.write(drawIcon(size)));
  }
}
