// electron-vite: the main process, the engine host (the utility process it forks) with the engine and its
// workers as entries of their own, the sandboxed preload (one CommonJS file, no dependencies) and the Vue
// renderer.
//
// out/main/index.js       Electron main (ESM): windows, dialogs, wiring; never loads the engine
// out/main/engine-host.js the engine host, run by utilityProcess.fork (ESM)
// out/main/engine.js      the engine's live API (plain Node: importable without Electron)
// out/main/worker.js      the CPU backend's worker thread
// out/main/mic-worker.js  the audio worker thread (audify stays external: a native addon)
// out/preload/index.cjs   the preload
// out/preload/gpu.cjs     the hidden WebGPU window's preload: the bridge's server and the WebGPU backend,
//                         shaders/*.wgsl inlined, Node-only imports stubbed (webgpu/bridge/browser-build.ts)
// out/renderer/           the page (index.html + assets)

import { resolve } from 'node:path';
import vue from '@vitejs/plugin-vue';
import { defineConfig } from 'electron-vite';
import { browserStubs } from './electron/engine/backends/webgpu/bridge/browser-build.js';

const root = import.meta.dirname;

export default defineConfig({
  main: {
    build: {
      outDir: resolve(root, 'out/main'),
      sourcemap: true,
      rolldownOptions: {
        input: {
          index: resolve(root, 'electron/main/index.ts'),
          'engine-host': resolve(root, 'electron/engine-host/index.ts'),
          engine: resolve(root, 'electron/engine/live/index.ts'),
          worker: resolve(root, 'electron/engine/backends/cpu/worker.ts'),
          'mic-worker': resolve(root, 'electron/engine/sources/mic-worker.ts'),
        },
        external: ['audify'],
        // The registry imports the GPU backends when it first needs them: each in a chunk of its own, so
        // that importing one never runs another entry's code (the engine host's start-up).
        output: {
          codeSplitting: {
            groups: [
              { name: 'backend-cuda', test: /engine[\\/]backends[\\/]cuda[\\/]/ },
              { name: 'backend-webgpu', test: /engine[\\/]backends[\\/]webgpu[\\/]/ },
            ],
          },
        },
      },
    },
  },
  preload: {
    plugins: [browserStubs()],
    build: {
      outDir: resolve(root, 'out/preload'),
      externalizeDeps: false,
      rolldownOptions: {
        input: {
          index: resolve(root, 'electron/preload/index.ts'),
          gpu: resolve(root, 'electron/preload/gpu.ts'),
        },
        // A sandboxed preload must be a single CommonJS script.
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(root, 'renderer'),
    plugins: [vue()],
    build: {
      outDir: resolve(root, 'out/renderer'),
      sourcemap: true,
      rolldownOptions: { input: resolve(root, 'renderer/index.html') },
    },
  },
});
