// The engine host: the entry of the Electron utility process that runs the engine for every window of
// the desktop app (VS Code's shared-process pattern). The main process forks it (electron/main/engine-
// process.ts), restarts it when it dies, and hands it one MessagePort per window; protocol messages and
// rows go between the window and this process directly, never through the main process. Plain Node
// otherwise: nothing here needs an Electron module, only process.parentPort. WebGPU runs on Chromium's
// navigator.gpu in the main process's hidden window, reached through the bridge (gpu.ts): Dawn's buffer
// readback makes external ArrayBuffers, which Electron's processes refuse.

import { oneLine } from '../engine/errors.js';
import { createEngineConnection, Engine } from '../engine/live/index.js';
import { setAudioWorkerUrl, shutdownAudio } from '../engine/sources/mic.js';
import { EngineConnections, serveParent, type ParentPortLike } from './connections.js';
import { GpuPorts } from './gpu.js';
import type { EngineRequest } from './messages.js';

const parent = (
  process as unknown as { parentPort?: ParentPortLike & { postMessage(message: EngineRequest): void } }
).parentPort;
if (!parent) throw new Error('the engine host runs in an Electron utility process (no parentPort)');

// Workers are separate entries beside this bundle (out/main).
setAudioWorkerUrl(new URL('./mic-worker.js', import.meta.url));
const gpu = new GpuPorts((request) => parent.postMessage(request));
const engine = new Engine({
  cpuWorkerUrl: new URL('./worker.js', import.meta.url),
  replaceBackends: { webgpu: gpu.provider() },
  // A failover (the WebGPU window crashed, a device was lost) is never silent: the main process's stderr.
  onWarning: (warning) => console.error(`phasor: ${oneLine(warning.message)}`),
});

// Each window reads and writes only what its user chose (dialogs and drops, granted by the main process).
const connections = new EngineConnections((send, access) => createEngineConnection(send, { engine, access }));

// Capture must stop before the process goes: the audio library aborts the process when its worker is
// torn down with blocks still queued (see mic-worker.ts). At most 2 s, then exit anyway.
serveParent(
  parent,
  connections,
  () => {
    const timeout = new Promise<void>((resolve) => setTimeout(resolve, 2000));
    void Promise.race([Promise.all([shutdownAudio(), engine.dispose()]), timeout])
      .catch(() => undefined)
      .finally(() => process.exit(0));
  },
  (answer, port) => gpu.answer(answer, port),
);
