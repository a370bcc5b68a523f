// How a browser bundle of the bridge's server is built (electron.vite.config.ts, the tests' esbuild):
// the modules the backend imports only for Node paths are replaced by node-stub.ts, and `?raw` imports
// of shaders/*.wgsl are inlined as text (shader-text.ts). Listed once here for both bundlers.

import { fileURLToPath } from 'node:url';

/** Modules a browser bundle of the WebGPU backend replaces with the stub. */
export const BROWSER_STUBBED = ['node:fs', 'node:path', 'node:url', 'webgpu'] as const;

/** The stub module's file. */
export const browserStubFile = fileURLToPath(new URL('./node-stub.ts', import.meta.url));

/** Vite/rolldown aliases: each stubbed module → the stub. */
export function browserAliases(): Array<{ find: RegExp; replacement: string }> {
  return BROWSER_STUBBED.map((name) => ({ find: new RegExp(`^${name}$`), replacement: browserStubFile }));
}
