// The three themes of renderer/src/styles.css: every text/background pair lib/theme.ts names meets WCAG AA
// (4.5:1) in light and dark and AAA (7:1) in high contrast, graphics 3:1 (4.5:1); and the choice resolves
// from the system's preferences as the browser reports them.
/// <reference types="node" />
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  CONTRAST_MINIMUM,
  CONTRAST_PAIRS,
  composite,
  contrastRatio,
  parseColor,
  resolveTheme,
  themeVariables,
  type Rgba,
  type ThemeName,
} from '../../renderer/src/lib/theme.js';

const css = readFileSync(new URL('../../renderer/src/styles.css', import.meta.url), 'utf8');
const themes = themeVariables(css);
const NAMES: ThemeName[] = ['dark', 'light', 'contrast'];

function color(vars: Record<string, string>, name: string): Rgba {
  const v = vars[name];
  if (v === undefined) throw new Error(`--${name} is not defined`);
  const c = parseColor(v);
  if (!c) throw new Error(`--${name}: ${v} is not a colour`);
  return c;
}

describe('theme colours', () => {
  it('parses colours and computes WCAG ratios', () => {
    expect(parseColor('#fff')).toEqual([255, 255, 255, 1]);
    expect(parseColor('rgba(255, 107, 107, 0.5)')).toEqual([255, 107, 107, 0.5]);
    expect(parseColor('rgb(11 14 19 / 70%)')).toEqual([11, 14, 19, 0.7]);
    expect(parseColor('blue')).toBeNull();
    // the extremes and a pair quoted by WebAIM's checker (#767676 on white: 4.54:1)
    expect(contrastRatio([0, 0, 0, 1], [255, 255, 255, 1])).toBeCloseTo(21, 6);
    expect(contrastRatio([0x76, 0x76, 0x76, 1], [255, 255, 255, 1])).toBeCloseTo(4.54, 2);
    expect(composite([255, 255, 255, 0.5], [0, 0, 0, 1])).toEqual([127.5, 127.5, 127.5, 1]);
  });

  it('leaves colours to the themes: no component or module outside styles.css writes one', () => {
    // Colours computed from data (colormaps, a theme's background handed to a canvas) are built with
    // template strings, never written as literals; a literal here would stay the same in every theme.
    const dir = new URL('../../renderer/src/', import.meta.url);
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter(
      (f) => /\.(vue|ts)$/.test(f) && f !== 'lib/theme.ts',
    );
    expect(files.length).toBeGreaterThan(40);
    // (`#abc` but not a private field: `this.#acc`, `#acc = …`)
    const literal = /(?<![\w.])#[0-9a-fA-F]{3,8}\b(?![-\w]|\s*[=.(])|\brgba?\(\s*\d|\bhsla?\(\s*\d/;
    const offenders = files.flatMap((f) =>
      readFileSync(new URL(f, dir), 'utf8')
        .split('\n')
        .map((line, i) => ({ line, at: `${f}:${i + 1}` }))
        .filter(({ line }) => literal.test(line) && !/^\s*(\/\/|\*|<!--)/.test(line))
        .map(({ at, line }) => `${at}: ${line.trim()}`),
    );
    expect(offenders).toEqual([]);
  });

  it('defines the same variables in every theme', () => {
    const dark = Object.keys(themes.dark ?? {}).sort();
    expect(dark.length).toBeGreaterThan(40);
    for (const n of NAMES) expect(Object.keys(themes[n] ?? {}).sort(), n).toEqual(dark);
  });

  for (const n of NAMES) {
    it(`${n}: text and graphics contrast with what they are drawn on`, () => {
      const vars = themes[n]!;
      const bg = color(vars, 'bg');
      const failures: string[] = [];
      for (const [fgName, bgName, kind] of CONTRAST_PAIRS) {
        const under = composite(color(vars, bgName), bg);
        const ratio = contrastRatio(composite(color(vars, fgName), under), under);
        const min = CONTRAST_MINIMUM[n][kind];
        if (ratio < min) failures.push(`--${fgName} on --${bgName}: ${ratio.toFixed(2)} < ${min}`);
      }
      expect(failures).toEqual([]);
    });
  }

  it('follows the system unless the user chose', () => {
    const sys = (dark: boolean, moreContrast = false, forcedColors = false) => ({
      dark,
      moreContrast,
      forcedColors,
    });
    expect(resolveTheme('system', sys(true))).toBe('dark');
    expect(resolveTheme('system', sys(false))).toBe('light');
    expect(resolveTheme('system', sys(false, true))).toBe('contrast');
    expect(resolveTheme('system', sys(true, false, true))).toBe('contrast');
    expect(resolveTheme('light', sys(true, true))).toBe('light');
    expect(resolveTheme('dark', sys(false))).toBe('dark');
  });
});
