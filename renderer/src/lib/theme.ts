// Themes: dark, light and high contrast, each a set of CSS custom properties in styles.css
// (`:root[data-theme='…']`). The page's theme is the user's choice, or the system's (prefers-color-scheme,
// prefers-contrast: more, forced-colors) when the choice is "System". Canvases and uPlot read the colours
// through themeColor(), which tracks the theme as a Vue dependency, so what draws from it redraws on a change.
// The contrast helpers (parse, composite, WCAG ratio) serve the theme test.

import { ref } from 'vue';

export type ThemeName = 'dark' | 'light' | 'contrast';
export type ThemeChoice = 'system' | ThemeName;

export const THEME_CHOICES: ReadonlyArray<{ id: ThemeChoice; label: string }> = [
  { id: 'system', label: 'System' },
  { id: 'dark', label: 'Dark' },
  { id: 'light', label: 'Light' },
  { id: 'contrast', label: 'High contrast' },
];

export const THEME_STORAGE_KEY = 'phasor.theme';

/** What the system asks for. */
export interface SystemPreference {
  dark: boolean;
  moreContrast: boolean;
  forcedColors: boolean;
}

export function resolveTheme(choice: ThemeChoice, system: SystemPreference): ThemeName {
  if (choice !== 'system') return choice;
  if (system.moreContrast || system.forcedColors) return 'contrast';
  return system.dark ? 'dark' : 'light';
}

export function isThemeChoice(v: unknown): v is ThemeChoice {
  return THEME_CHOICES.some((c) => c.id === v);
}

/** The theme now on the page; set only by applyTheme (stores/theme.ts). */
export const currentTheme = ref<ThemeName>('dark');
const cache = new Map<string, string>();

/** Puts `name` on the page: the variables switch at once, then everything that read them redraws. */
export function applyTheme(name: ThemeName): void {
  if (typeof document !== 'undefined') document.documentElement.dataset.theme = name;
  cache.clear();
  currentTheme.value = name;
}

/** The value of the theme variable `--name` (e.g. 'plot-bg'); '' outside a page. Reading it inside a
 * computed, a watch or a render makes that one follow the theme. */
export function themeColor(name: string): string {
  void currentTheme.value;
  let v = cache.get(name);
  if (v === undefined) {
    v =
      typeof document === 'undefined'
        ? ''
        : getComputedStyle(document.documentElement).getPropertyValue(`--${name}`).trim();
    cache.set(name, v);
  }
  return v;
}

/** The n-th colour of the charts' palette (wraps). */
export const CHART_PALETTE_SIZE = 8;
export function chartColor(n: number): string {
  return themeColor(`chart-${(n % CHART_PALETTE_SIZE) + 1}`);
}

/** An opaque [r, g, b] (0…255) of a theme colour, for WebGL and pixel buffers. */
export function themeRgb(
  name: string,
  fallback: readonly [number, number, number],
): [number, number, number] {
  const c = parseColor(themeColor(name));
  return c ? [c[0], c[1], c[2]] : [...fallback];
}

export type Rgba = [number, number, number, number];

/** #rgb, #rrggbb, #rrggbbaa, rgb()/rgba() with commas or spaces; null when it is none of those. */
export function parseColor(text: string): Rgba | null {
  const s = text.trim().toLowerCase();
  let m = /^#([0-9a-f]{3}|[0-9a-f]{6}|[0-9a-f]{8})$/.exec(s);
  if (m) {
    const h = m[1].length === 3 ? [...m[1]].map((c) => c + c).join('') : m[1];
    const n = (i: number) => parseInt(h.slice(2 * i, 2 * i + 2), 16);
    return [n(0), n(1), n(2), h.length === 8 ? n(3) / 255 : 1];
  }
  m = /^rgba?\(\s*([\d.]+)[\s,]+([\d.]+)[\s,]+([\d.]+)(?:\s*[,/]\s*([\d.]+%?))?\s*\)$/.exec(s);
  if (m) {
    const a = m[4] === undefined ? 1 : m[4].endsWith('%') ? parseFloat(m[4]) / 100 : parseFloat(m[4]);
    return [Number(m[1]), Number(m[2]), Number(m[3]), a];
  }
  return null;
}

/** `fg` drawn over the opaque `bg`. */
export function composite(fg: Rgba, bg: Rgba): Rgba {
  const a = fg[3];
  return [fg[0] * a + bg[0] * (1 - a), fg[1] * a + bg[1] * (1 - a), fg[2] * a + bg[2] * (1 - a), 1];
}

/** WCAG 2 relative luminance of an opaque colour. */
export function luminance(c: Rgba): number {
  const lin = (v: number) => {
    const s = v / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(c[0]) + 0.7152 * lin(c[1]) + 0.0722 * lin(c[2]);
}

/** WCAG 2 contrast ratio of two opaque colours (1…21). */
export function contrastRatio(a: Rgba, b: Rgba): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/** Text and graphics against the surfaces they are drawn on: [foreground, background, kind]. Text needs
 * 4.5:1 (WCAG AA) in light and dark and 7:1 (AAA) in high contrast; graphics (traces, markers, borders of
 * controls) 3:1, and 4.5:1 in high contrast. A translucent background is laid over --bg first, a
 * translucent foreground over its background. */
export const CONTRAST_PAIRS: ReadonlyArray<readonly [string, string, 'text' | 'graphic']> = [
  ...(['bg', 'panel', 'panel-2', 'field'] as const).flatMap((bg) =>
    (['text', 'text-strong', 'muted', 'faint', 'accent', 'ok', 'warn', 'err'] as const).map(
      (fg) => [fg, bg, 'text'] as const,
    ),
  ),
  ['on-accent', 'accent-dim', 'text'],
  ['err-text', 'err-bg', 'text'],
  ['warn-text', 'warn-bg', 'text'],
  ['on-marker', 'marker', 'text'],
  ['on-warn', 'warn', 'text'],
  ['text', 'overlay-bg', 'text'],
  ['text', 'select-bg', 'text'],
  ['axis-label', 'plot-bg', 'text'],
  ['axis-unit', 'plot-bg', 'text'],
  ['chart-axis', 'plot-bg', 'text'],
  ['marker', 'plot-bg', 'text'],
  ['placed', 'plot-bg', 'text'],
  ['placed-selected', 'plot-bg', 'text'],
  ...(['trace-current', 'trace-average', 'trace-peak', 'trace-min', 'accent', 'border-strong'] as const).map(
    (fg) => [fg, 'plot-bg', 'graphic'] as const,
  ),
  ...Array.from({ length: CHART_PALETTE_SIZE }, (_, i) => [`chart-${i + 1}`, 'plot-bg', 'graphic'] as const),
];

export const CONTRAST_MINIMUM: Record<ThemeName, Record<'text' | 'graphic', number>> = {
  dark: { text: 4.5, graphic: 3 },
  light: { text: 4.5, graphic: 3 },
  contrast: { text: 7, graphic: 4.5 },
};

/** The custom properties of each `:root[data-theme='…']` block of a style sheet. */
export function themeVariables(css: string): Partial<Record<ThemeName, Record<string, string>>> {
  const out: Partial<Record<ThemeName, Record<string, string>>> = {};
  for (const block of css.matchAll(/([^{}]*)\{([^{}]*)\}/g)) {
    const names = [...block[1].matchAll(/\[data-theme='(dark|light|contrast)'\]/g)].map(
      (m) => m[1] as ThemeName,
    );
    if (!names.length) continue;
    const vars: Record<string, string> = {};
    for (const d of block[2].replace(/\/\*[\s\S]*?\*\//g, '').matchAll(/--([\w-]+)\s*:\s*([^;]+);/g))
      vars[d[1]] = d[2].trim();
    for (const n of names) out[n] = { ...out[n], ...vars };
  }
  return out;
}
