// How a browser bundle of the bridge's server is built (electron.vite.config.ts, the tests' esbuild):
// the modules the backend imports only for Node paths are replaced by node-stub.ts, and `?raw` imports
// of shaders/*.wgsl are inlined as text (shader-text.ts). Listed once here for both bundlers.

import { fileURLToPath } from 'node:url';

/** Modules a browser bundle of the WebGPU backend replaces with the stub. */
export const BROWSER_STUBBED = ['node:fs', 'node:path', 'node:url', 'webgpu'] as const;

/** The stub module's file. */
export const browserStubFile = fileURLToPath(new URL('./node-stub.ts', import.meta.url));

/** A Vite plugin that points the WebGPU backend's imports of the stubbed modules at the stub. It rewrites
 * the import specifiers in the backend's own sources, before they are resolved: electron-vite's preload
 * build marks Node's built-ins external before any resolver sees them. */
export function browserStubs(): {
  name: string;
  enforce: 'pre';
  transform(code: string, id: string): string | null;
} {
  const names = BROWSER_STUBBED.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  const specifier = new RegExp(`(\\bfrom\\s*|\\bimport\\s*\\(\\s*)(['"])(?:${names})\\2`, 'g');
  return {
    name: 'phasor-webgpu-browser-stubs',
    enforce: 'pre',
    transform: (code, id) => {
      if (!/[\\/]backends[\\/]webgpu[\\/]/.test(id)) return null;
      const out = code.replace(
        specifier,
        (_m, lead: string, quote: string) => `${lead}${quote}${browserStubFile}${quote}`,
      );
      return out === code ? null : out;
    },
  };
}
