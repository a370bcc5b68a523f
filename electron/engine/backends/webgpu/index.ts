// The WebGPU backend: probe it, create it (registered in ../registry.ts, after cuda and before cpu).
//
//   const a = await probeWebGpu();        // { available: true, device, details } | { available: false, reason }
//   if (a.available) { const gpu = await createWebGpuBackend(); … await gpu.dispose(); }
//
// Reasons it may be unavailable, in words: the webgpu package (Dawn) is missing, no Vulkan loader, no
// Vulkan driver that offers a WebGPU adapter (without a GPU, SwiftShader's: see device.ts).

import { WebGpuBackend } from './backend.js';
import { openWebGpuDevice } from './device.js';

export { WebGpuBackend, WebGpuDeviceArray, CHUNK_BYTES } from './backend.js';
export { probeWebGpu, WebGpuContext, type WebGpuAvailability, type WebGpuLimits } from './device.js';

/** Creates the WebGPU backend (name 'webgpu'); throws BackendUnavailableError with the reason when it cannot. */
export async function createWebGpuBackend(): Promise<WebGpuBackend> {
  const ctx = await openWebGpuDevice();
  return new WebGpuBackend(ctx);
}
