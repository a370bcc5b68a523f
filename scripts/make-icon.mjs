#!/usr/bin/env node
// Draws resources/icon.png (512×512): a rounded tile holding a little waterfall — a bright tone line and
// a chirp over a noise floor, in viridis. Run once; the PNG is committed (electron-builder makes the
// .ico/.icns from it).
import { writeFileSync } from 'node:fs';
import { interpolateViridis } from 'd3-scale-chromatic';
import { PNG } from 'pngjs';

const N = 512;
const png = new PNG({ width: N, height: N });
const rgb = (t) => {
  // d3 gives "#rrggbb".
  const hex = interpolateViridis(Math.max(0, Math.min(1, t)));
  return [1, 3, 5].map((k) => parseInt(hex.slice(k, k + 2), 16));
};
let seed = 7;
const rand = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
// The noise floor in cells of 8×4 pixels, like bins × rows.
const cells = Array.from({ length: (N / 8) * (N / 4) }, () => rand());
const margin = 24;
const radius = 96;
for (let y = 0; y < N; y++) {
  for (let x = 0; x < N; x++) {
    const i = (y * N + x) * 4;
    // Rounded-square mask with a 1.5 px soft edge.
    const cx = Math.max(margin + radius - x, 0, x - (N - margin - radius));
    const cy = Math.max(margin + radius - y, 0, y - (N - margin - radius));
    const d = Math.hypot(cx, cy) - radius;
    const inside = Math.max(0, Math.min(1, 0.5 - d / 1.5));
    const u = (x - margin) / (N - 2 * margin);
    const v = (y - margin) / (N - 2 * margin);
    let level = 0.12 + 0.1 * cells[(y >> 2) * (N / 8) + (x >> 3)];
    level += 0.85 * Math.exp(-(((u - 0.3) / 0.012) ** 2));
    level += 0.4 * Math.exp(-(((u - 0.3) / 0.05) ** 2));
    const chirp = 0.55 + 0.3 * v * v;
    level += 0.7 * Math.exp(-(((u - chirp) / 0.015) ** 2));
    const [r, g, b] = rgb(level);
    png.data[i] = r;
    png.data[i + 1] = g;
    png.data[i + 2] = b;
    png.data[i + 3] = Math.round(255 * inside);
  }
}
writeFileSync(new URL('../resources/icon.png', import.meta.url), PNG.sync.write(png));
