// The engine host: the entry of the Electron utility process that runs the engine for every window of
// the desktop app (VS Code's shared-process pattern). The main process forks it (electron/main/engine-
// process.ts), restarts it when it dies, and hands it one MessagePort per window; protocol messages and
// rows go between the window and this process directly, never through the main process. Plain Node
// otherwise: nothing here needs an Electron module, only process.parentPort.

import { createEngineConnection, Engine } from '../engine/live/index.js';
import { setAudioWorkerUrl, shutdownAudio } from '../engine/sources/mic.js';
import { EngineConnections, serveParent, type ParentPortLike } from './connections.js';

const parent = (process as unknown as { parentPort?: ParentPortLike }).parentPort;
if (!parent) throw new Error('the engine host runs in an Electron utility process (no parentPort)');

// Workers are separate entries beside this bundle (out/main).
setAudioWorkerUrl(new URL('./mic-worker.js', import.meta.url));
const engine = new Engine({
  cpuWorkerUrl: new URL('./worker.js', import.meta.url),
  // Dawn's buffer readback makes external ArrayBuffers, which Electron's processes refuse.
  excludeBackends: {
    webgpu: 'WebGPU does not run in the desktop app’s engine process (use phasor serve, or the CLI)',
  },
});

const connections = new EngineConnections((send) => createEngineConnection(send, { engine }));

// Capture must stop before the process goes: the audio library aborts the process when its worker is
// torn down with blocks still queued (see mic-worker.ts). At most 2 s, then exit anyway.
serveParent(parent, connections, () => {
  const timeout = new Promise<void>((resolve) => setTimeout(resolve, 2000));
  void Promise.race([Promise.all([shutdownAudio(), engine.dispose()]), timeout])
    .catch(() => undefined)
    .finally(() => process.exit(0));
});
