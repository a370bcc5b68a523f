// The preload of the desktop app's hidden WebGPU window (sandboxed, isolated world, no page script): every
// port the main process sends on GPU_PORT_CHANNEL gets a WebGpuBackend of its own on Chromium's
// navigator.gpu, served to the engine host at the port's other end (engine/backends/webgpu/bridge). The
// bundle embeds shaders/*.wgsl (bridge/shader-text.ts); the Node-only imports are stubbed at build time.

import { ipcRenderer } from 'electron';
import { serveBrowserWebGpu } from '../engine/backends/webgpu/bridge/browser.js';
import type { BridgePort } from '../engine/backends/webgpu/bridge/protocol.js';

// Kept literal, as the app preload's channels are; gpu-window.ts's caller sends on it.
const GPU_PORT_CHANNEL = 'phasor:gpu-port';

interface WebPort {
  postMessage(message: unknown, transfer: ArrayBuffer[]): void;
  onmessage: ((event: { data: unknown }) => void) | null;
}

const nav = (globalThis as unknown as { navigator: { gpu?: GPU; userAgent: string } }).navigator;

ipcRenderer.on(GPU_PORT_CHANNEL, (event) => {
  const port = event.ports[0] as unknown as WebPort | undefined;
  if (!port) return;
  const bridge: BridgePort = { postMessage: (m, transfer) => port.postMessage(m, transfer), onmessage: null };
  port.onmessage = (e) => bridge.onmessage?.({ data: e.data }); // starts the port
  serveBrowserWebGpu(bridge, nav.gpu, nav.userAgent, (err) => console.error('phasor: webgpu bridge:', err));
});
