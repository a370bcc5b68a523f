// A dedicated worker that serves WebGPU backends to the engine: every message { type: 'phasor-webgpu-port' }
// carries a MessagePort, and each port gets a backend of its own on the worker's navigator.gpu. The page
// (the desktop app's hidden window, a test's page) starts it and hands it the ports it is given.
//
//   const worker = new Worker('webgpu-worker.js', { type: 'module' });
//   worker.postMessage({ type: 'phasor-webgpu-port' }, [port]);

import { PORT_MESSAGE, type BridgePort } from './protocol.js';
import { serveBrowserWebGpu } from './browser.js';

interface WorkerScope {
  onmessage: ((event: { data: unknown; ports: readonly BridgePort[] }) => void) | null;
  navigator: { gpu?: GPU; userAgent: string };
}

const scope = globalThis as unknown as WorkerScope;
scope.onmessage = (event) => {
  const m = event.data as { type?: unknown } | null;
  const port = event.ports[0];
  if (m?.type !== PORT_MESSAGE || !port) return;
  serveBrowserWebGpu(port, scope.navigator.gpu, scope.navigator.userAgent, (err) =>
    console.error('phasor webgpu bridge:', err),
  );
};
