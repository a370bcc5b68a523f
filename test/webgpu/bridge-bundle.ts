// Builds the browser side of the WebGPU bridge for chromium-bridge.test.ts with Vite, as electron-vite
// builds it for the desktop app: the Node-only imports replaced by the stub (bridge/browser-build.ts) and
// shaders/*.wgsl inlined as text (bridge/shader-text.ts). Returns every output file by name, in memory.
import { fileURLToPath } from 'node:url';
import { build, type Rollup } from 'vite';
import { browserStubs } from '../../electron/engine/backends/webgpu/bridge/browser-build.js';

const here = (p: string): string => fileURLToPath(new URL(p, import.meta.url));

export async function buildBridgePage(): Promise<Map<string, string>> {
  const result = await build({
    configFile: false,
    logLevel: 'error',
    root: here('../..'),
    plugins: [browserStubs()],
    build: {
      write: false,
      target: 'es2022',
      minify: false,
      modulePreload: false,
      rolldownOptions: {
        input: {
          page: here('./bridge-page.ts'),
          worker: here('../../electron/engine/backends/webgpu/bridge/worker.ts'),
        },
        output: { format: 'es', entryFileNames: '[name].js', chunkFileNames: '[name]-[hash].js' },
      },
    },
  });
  const outputs = (Array.isArray(result) ? result : [result]) as Rollup.RollupOutput[];
  const files = new Map<string, string>();
  for (const o of outputs)
    for (const f of o.output) files.set(f.fileName, f.type === 'chunk' ? f.code : String(f.source));
  return files;
}
