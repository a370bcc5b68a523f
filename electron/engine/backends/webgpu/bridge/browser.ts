// The bridge's server in a browser (the desktop app's hidden window, a test's page or worker): the same
// WebGpuBackend as in Node, on the browser's navigator.gpu instead of Dawn.
//
//   serveBrowserWebGpu(port, navigator.gpu);      // one backend per port, until the engine disposes it
//
// The device asks for the adapter's real limits and the features the kernels use (limits.ts), as for
// Dawn; the backend's device and details say which adapter runs (vendor, architecture, description, API).

import { BackendUnavailableError } from '../../../errors.js';
import { WebGpuBackend } from '../backend.js';
import { BROWSER_PIECE_BYTES, WebGpuContext } from '../device.js';
import { WEBGPU_FIR_DIRECT_MAX_TAPS } from '../fir.js';
import { deviceDescriptor } from '../limits.js';
import type { BridgePort } from './protocol.js';
import { serveBackend } from './server.js';
import './shader-text.js';

/** The browser that runs WebGPU and the graphics API under it (Chromium's on each platform), from its
 * user agent: navigator.gpu does not say which API it uses. */
export function browserApi(userAgent: string): { browser: string; api: string } {
  const electron = /Electron\/([\d.]+)/.exec(userAgent);
  const chromium = /Chrom(?:e|ium)\/(\d+)/.exec(userAgent);
  const browser = electron ? `Electron ${electron[1]}` : chromium ? `Chromium ${chromium[1]}` : 'a browser';
  const api = /Windows/.test(userAgent) ? 'D3D12' : /Mac OS X|Macintosh/.test(userAgent) ? 'Metal' : 'Vulkan';
  return { browser, api };
}

/** A person-readable name of the adapter (vendor, description, architecture, browser, API), and the facts
 * a benchmark shows about it. */
export function describeAdapter(
  adapter: GPUAdapter,
  userAgent: string,
): { name: string; details: Record<string, string | number> } {
  const info = adapter.info;
  let name = info.description || info.device || info.architecture || 'WebGPU adapter';
  if (info.vendor && !name.toLowerCase().includes(info.vendor.toLowerCase())) name = `${info.vendor} ${name}`;
  // The status bar shows this name alone: it says the architecture too.
  if (info.architecture && !name.toLowerCase().includes(info.architecture.toLowerCase()))
    name = `${name}, ${info.architecture}`;
  const { browser, api } = browserApi(userAgent);
  const l = adapter.limits;
  return {
    name: `${name} (WebGPU, ${browser}, ${api})`,
    details: {
      vendor: info.vendor,
      architecture: info.architecture,
      description: info.description,
      api: `${api}, ${browser} WebGPU (navigator.gpu)`,
      workgroupStorage: l.maxComputeWorkgroupStorageSize,
      invocations: l.maxComputeInvocationsPerWorkgroup,
      maxBuffer: l.maxBufferSize,
      subgroups: adapter.features.has('subgroups') ? 'yes' : 'no',
      timestampQuery: adapter.features.has('timestamp-query') ? 'yes' : 'no',
      // A software adapter (SwiftShader) is slower than the CPU backend: `auto` passes over it.
      software: info.isFallbackAdapter || /swiftshader/i.test(info.architecture) ? 'yes' : 'no',
    },
  };
}

/** Opens the browser's adapter with its real limits; throws BackendUnavailableError saying why not. */
export async function openBrowserWebGpu(gpu: GPU | undefined, userAgent: string): Promise<WebGpuBackend> {
  if (!gpu) {
    throw new BackendUnavailableError(
      'webgpu',
      'this browser has no navigator.gpu (on Linux, Chromium needs --enable-unsafe-webgpu and Vulkan)',
    );
  }
  const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  if (!adapter) throw new BackendUnavailableError('webgpu', 'the browser found no WebGPU adapter');
  let device: GPUDevice;
  try {
    device = await adapter.requestDevice(deviceDescriptor(adapter));
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new BackendUnavailableError('webgpu', `the WebGPU device could not be opened: ${message}`);
  }
  const ctx = new WebGpuContext(gpu, adapter, device, { pieceBytes: BROWSER_PIECE_BYTES });
  // The context names a Dawn adapter; here it is the browser's.
  const described = describeAdapter(adapter, userAgent);
  const named = ctx as { name: string; details: Record<string, string | number> };
  named.name = described.name;
  named.details = described.details;
  return new WebGpuBackend(ctx);
}

/** Serves one WebGPU backend on the browser's navigator.gpu to the engine at the other end of `port`. */
export function serveBrowserWebGpu(
  port: BridgePort,
  gpu: GPU | undefined,
  userAgent: string,
  onError?: (err: unknown) => void,
): void {
  serveBackend(port, () => openBrowserWebGpu(gpu, userAgent), {
    firDirectMaxTaps: WEBGPU_FIR_DIRECT_MAX_TAPS,
    ...(onError ? { onError } : {}),
  });
}
