// The WGSL kernels of the top-level shaders/ folder, read at run time, and their size variants.
//
// Each kernel family is one .wgsl file. Lines ending in `//!` declare the constants a variant sets:
//   const L: u32 = 1024u; //! points of one transform
// variant(source, { L: 4096 }) rewrites those declarations' values, so every size comes from one source
// (the defaults keep the file valid WGSL by itself). A constant a variant does not name keeps its default.
// In a browser (the desktop app's Chromium WebGPU, bridge/) there is no file system: the page's bundle
// embeds the same files and hands them over with provideShaderSources before the first kernel is built.

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export type ShaderFamily =
  | 'fft_pow2'
  | 'fft_mixed'
  | 'bluestein'
  | 'real'
  | 'samples'
  | 'spectrogram'
  | 'fir'
  | 'correlate'
  | 'unfused';
export type ShaderConstants = Record<string, number | boolean>;

/** Every kernel family, one file shaders/<family>.wgsl each. */
export const SHADER_FAMILIES: readonly ShaderFamily[] = [
  'fft_pow2',
  'fft_mixed',
  'bluestein',
  'real',
  'samples',
  'spectrogram',
  'fir',
  'correlate',
  'unfused',
];

let shaderDir: string | undefined;
const sources = new Map<ShaderFamily, string>();

/** The shaders/ folder: the first one above this module (source tree, or dist/ beside the sources). */
export function findShaderDir(): string | undefined {
  if (shaderDir !== undefined) return shaderDir;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let up = 0; up < 8; up++) {
    const candidate = path.join(dir, 'shaders');
    if (existsSync(path.join(candidate, 'fft_pow2.wgsl'))) return (shaderDir = candidate);
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return undefined;
}

/** Gives the kernels' sources where they cannot be read from shaders/ (a browser bundle embeds them). */
export function provideShaderSources(given: Readonly<Record<ShaderFamily, string>>): void {
  for (const family of SHADER_FAMILIES) {
    if (typeof given[family] !== 'string') throw new Error(`the WGSL kernel ${family}.wgsl is missing`);
    sources.set(family, given[family]);
  }
}

export function shaderSource(family: ShaderFamily): string {
  let text = sources.get(family);
  if (text === undefined) {
    const dir = findShaderDir();
    if (dir === undefined)
      throw new Error('the WGSL kernels (shaders/*.wgsl) were not found beside the engine');
    text = readFileSync(path.join(dir, `${family}.wgsl`), 'utf8');
    sources.set(family, text);
  }
  return text;
}

function literal(value: number | boolean, type: string): string {
  if (typeof value === 'boolean') return String(value);
  if (type === 'u32') {
    if (!Number.isInteger(value) || value < 0 || value > 0xffffffff)
      throw new Error(`bad u32 constant ${value}`);
    return `${value}u`;
  }
  if (type === 'i32') return `${Math.trunc(value)}i`;
  const s = String(value);
  return /[.eE]/.test(s) ? s : `${s}.0`;
}

/** The source with the marked constants set; throws when a named constant is not declared. */
export function variant(source: string, constants: ShaderConstants): string {
  const seen = new Set<string>();
  const out = source.replace(
    /^const (\w+): (\w+) = [^;]+;(\s*\/\/!)/gm,
    (line, name: string, type: string, mark: string) => {
      if (!(name in constants)) return line;
      seen.add(name);
      return `const ${name}: ${type} = ${literal(constants[name], type)};${mark}`;
    },
  );
  for (const name of Object.keys(constants)) {
    if (!seen.has(name)) throw new Error(`the kernel has no constant ${name} to set`);
  }
  return out;
}
