// Opening a WebGPU device in Node through Dawn (the `webgpu` npm package), with the adapter's real limits.
//
//   const p = await probeWebGpu();              // { available: true, device, details } | { available: false, reason }
//   const ctx = await openWebGpuDevice();        // throws BackendUnavailableError with the reason
//   …; ctx.check();                              // throws BackendFailedError once the device is lost or failed
//   ctx.destroy();
//
// A device gets the WebGPU defaults (16 KiB of workgroup memory…) unless it asks for more, so it asks for
// what the adapter has. The object create([]) returns stays referenced by the context: once collected,
// Dawn aborts in its work-done callbacks. A lost device or an uncaptured error (out of memory, a
// validation error from a driver) makes the context failed: every later call throws BackendFailedError,
// which the failover answers by moving the work to the next backend.

import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type * as WebGpuModule from 'webgpu';
import { BackendFailedError, BackendUnavailableError } from '../../errors.js';
import { deviceDescriptor } from './limits.js';

export type WebGpuAvailability =
  | { available: true; device: string; details: Record<string, string | number>; autoSkip?: string }
  | { available: false; reason: string };

/** The limits the kernels plan with (the device's, as granted). */
export interface WebGpuLimits {
  workgroupStorage: number;
  invocations: number;
  workgroupSizeX: number;
  storageBinding: number;
  bufferSize: number;
  workgroupsPerDimension: number;
  storageOffsetAlignment: number;
}

/** The largest buffer this backend asks for, below the adapter's limit: larger ones were seen to fail
 * without a word on a real GPU. */
export const WEBGPU_MAX_BUFFER_BYTES = 512 * 1024 * 1024;

/** Bytes of a piece of a batch call (input, output and scratch each): small enough that two pieces in
 * flight overlap the host's copies with the GPU's work, large enough that a submit's fixed cost is small. */
export const PIECE_BYTES = 8 * 1024 * 1024;

/** The same in a browser, where every piece's buffer mapping is a round trip to the GPU process: on the
 * lent H100, a 2^24-point FFT from worker arrays took 240 / 96 / 66 ms with pieces of 8 / 32 / 64 MiB
 * (Dawn in Node: 33–43 ms at any of them). */
export const BROWSER_PIECE_BYTES = 64 * 1024 * 1024;

const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';

type Module = typeof WebGpuModule;
let loaded: { module?: Module; reason?: string } | undefined;

async function loadModule(): Promise<{ module?: Module; reason?: string }> {
  if (loaded) return loaded;
  try {
    loaded = { module: (await import('webgpu')) as Module };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    loaded = { reason: `the webgpu package (Dawn for Node) could not be loaded: ${message}` };
  }
  return loaded;
}

function vulkanLoaderFound(): boolean {
  const dirs = [
    ...(process.env.LD_LIBRARY_PATH ?? '').split(':').filter(Boolean),
    '/usr/lib/x86_64-linux-gnu',
    '/usr/lib/aarch64-linux-gnu',
    '/usr/lib64',
    '/usr/lib',
    '/lib/x86_64-linux-gnu',
    '/usr/local/lib',
  ];
  return dirs.some((d) => existsSync(path.join(d, 'libvulkan.so.1')));
}

/** Why there is no adapter, in words a person can act on. */
function noAdapterReason(): string {
  const base = 'no WebGPU adapter was found';
  if (process.platform !== 'linux') return `${base} (no GPU driver that Dawn can use)`;
  if (!vulkanLoaderFound()) return `${base}: the Vulkan loader (libvulkan.so.1) is not installed`;
  const icd = process.env.VK_ICD_FILENAMES;
  if (icd !== undefined) return `${base}: the Vulkan driver named by VK_ICD_FILENAMES (${icd}) offers none`;
  const hint = existsSync(SWIFTSHADER_ICD)
    ? `; without a GPU, VK_ICD_FILENAMES=${SWIFTSHADER_ICD} selects SwiftShader`
    : '';
  return `${base}: no Vulkan driver supports WebGPU${hint}`;
}

/**
 * On Linux, why no GPU can be there, before Dawn is loaded: without the Vulkan loader, or without a GPU
 * device node (a DRM render node or an NVIDIA device), the only Vulkan devices are software ones, which
 * are slower than the CPU backend and whose drivers print to stderr while Dawn probes them. A driver named
 * in VK_ICD_FILENAMES / VK_DRIVER_FILES is tried if its file exists (SwiftShader in the tests).
 */
export function noGpuReason(devDir = '/dev'): string | undefined {
  if (process.platform !== 'linux') return undefined;
  for (const name of ['VK_ICD_FILENAMES', 'VK_DRIVER_FILES']) {
    const named = process.env[name];
    if (named === undefined) continue;
    if (named.split(':').some((f) => f !== '' && existsSync(f))) return undefined;
    return `no WebGPU adapter was found: the Vulkan driver named by ${name} (${named}) does not exist`;
  }
  if (!vulkanLoaderFound())
    return 'no WebGPU adapter was found: the Vulkan loader (libvulkan.so.1) is not installed';
  let nodes: string[];
  try {
    nodes = readdirSync(devDir);
    const dri = path.join(devDir, 'dri');
    if (existsSync(dri)) nodes = nodes.concat(readdirSync(dri));
  } catch {
    return undefined; // cannot tell: let Dawn look
  }
  if (nodes.some((n) => /^(renderD\d+|nvidia\d+)$/.test(n))) return undefined;
  const hint = existsSync(SWIFTSHADER_ICD)
    ? `; VK_ICD_FILENAMES=${SWIFTSHADER_ICD} selects SwiftShader (a software GPU) if you want it`
    : '';
  return `no WebGPU adapter was found: this machine has no GPU device (no ${devDir}/dri/renderD* or ${devDir}/nvidia*)${hint}`;
}

/** Dawn's instance options. PHASOR_DAWN_FLAGS adds to them, space-separated, for diagnosing the kernels
 * on a driver (e.g. `enable-dawn-features=dump_shaders`); a toggle list named twice is joined, not replaced. */
export function dawnFlags(extra = process.env.PHASOR_DAWN_FLAGS ?? ''): string[] {
  // GPU timestamps at the driver's resolution (Dawn rounds them to 65.5 µs by default, as browsers do);
  // no zero-fill of workgroup memory: every kernel writes its workgroup memory before reading it, and
  // the fill costs a pass and a barrier per workgroup (and seconds of compile time on SwiftShader);
  // no index clamps on every buffer and workgroup access (robustness guards a browser against untrusted
  // shaders; these are the engine's own, indexed within their bindings): 9–13 % of the FIR and
  // correlation kernels on the lent H100 (docs/PERFORMANCE.md)
  const flags = new Map<string, string[]>([
    ['disable-dawn-features', ['timestamp_quantization']],
    ['enable-dawn-features', ['disable_workgroup_init', 'disable_robustness']],
  ]);
  for (const flag of extra.split(/\s+/).filter(Boolean)) {
    const eq = flag.indexOf('=');
    const [key, value] = eq < 0 ? [flag, ''] : [flag.slice(0, eq), flag.slice(eq + 1)];
    const toggles = key.endsWith('-dawn-features') ? value.split(',').filter(Boolean) : [value];
    const known = key.endsWith('-dawn-features') ? (flags.get(key) ?? []) : [];
    flags.set(key, [...new Set([...known, ...toggles])]);
  }
  return [...flags].map(([key, values]) => (values.join(',') === '' ? key : `${key}=${values.join(',')}`));
}

async function requestAdapter(): Promise<{ gpu?: GPU; adapter?: GPUAdapter; reason?: string }> {
  const none = noGpuReason();
  if (none !== undefined) return { reason: none };
  const load = await loadModule();
  if (!load.module) return { reason: load.reason };
  try {
    const gpu = load.module.create(dawnFlags());
    const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
    if (!adapter) return { reason: noAdapterReason() };
    return { gpu, adapter };
  } catch (err) {
    return {
      reason: `the WebGPU adapter request failed: ${err instanceof Error ? err.message : String(err)}`,
    };
  }
}

function adapterName(adapter: GPUAdapter): string {
  const info = adapter.info;
  const parts = [info.description || info.device || info.architecture || 'WebGPU adapter'];
  if (info.vendor && !parts[0].toLowerCase().includes(info.vendor.toLowerCase())) parts.unshift(info.vendor);
  return `${parts.join(' ')} (WebGPU, Dawn)`;
}

function adapterDetails(adapter: GPUAdapter): Record<string, string | number> {
  const info = adapter.info;
  const l = adapter.limits;
  return {
    vendor: info.vendor,
    architecture: info.architecture,
    api: 'Vulkan, Dawn (webgpu npm package)',
    workgroupStorage: l.maxComputeWorkgroupStorageSize,
    invocations: l.maxComputeInvocationsPerWorkgroup,
    maxBuffer: l.maxBufferSize,
    subgroups: adapter.features.has('subgroups') ? 'yes' : 'no',
    timestampQuery: adapter.features.has('timestamp-query') ? 'yes' : 'no',
  };
}

/** A usable adapter's probe, remembered: asking again does not start Dawn and the Vulkan driver again. */
let probed: WebGpuAvailability | undefined;
/** The probe's instance and adapter, kept for the first device opened after it (an adapter opens one). */
let spare: { gpu: GPU; adapter: GPUAdapter } | undefined;

/** Whether WebGPU can run here, and why not. Never throws. */
export async function probeWebGpu(): Promise<WebGpuAvailability> {
  if (probed) return probed;
  const r = await requestAdapter();
  if (!r.adapter || !r.gpu) return { available: false, reason: r.reason ?? 'unknown reason' };
  const found: WebGpuAvailability = {
    available: true,
    device: adapterName(r.adapter),
    details: adapterDetails(r.adapter),
  };
  if (r.adapter.info.isFallbackAdapter) {
    found.autoSkip = 'a software adapter, slower than the CPU backend: --backend webgpu asks for it';
  }
  probed = found;
  spare = { gpu: r.gpu, adapter: r.adapter };
  return found;
}

export class WebGpuContext {
  /** The object create([]) returned: referenced for the device's lifetime (see above). */
  readonly gpu: GPU;
  readonly adapter: GPUAdapter;
  readonly device: GPUDevice;
  readonly limits: WebGpuLimits;
  readonly timestamps: boolean;
  readonly subgroups: boolean;
  readonly name: string;
  readonly details: Record<string, string | number>;
  /** Bytes of a piece of a batch call: PIECE_BYTES unless the opener says otherwise (BROWSER_PIECE_BYTES). */
  readonly pieceBytes: number;
  /** Output bytes of one piece of a processor call, whose pieces run two in flight: twice pieceBytes, at
   * most 32 MiB (16 MiB in Node). On the lent H200, whole calls in pieces of 8 to 32 MiB ran as fast as in
   * one (the FIR) or faster (the spectrogram), in 4 MiB pieces slower (bench/processors.ts --pieces).
   * Tests set it small to run many pieces. */
  processorPieceBytes: number;
  private failure: BackendFailedError | undefined;
  private destroyed = false;

  constructor(gpu: GPU, adapter: GPUAdapter, device: GPUDevice, options: { pieceBytes?: number } = {}) {
    this.gpu = gpu;
    this.pieceBytes = options.pieceBytes ?? PIECE_BYTES;
    this.processorPieceBytes = Math.min(2 * this.pieceBytes, 32 << 20);
    this.adapter = adapter;
    this.device = device;
    const l = device.limits;
    this.limits = {
      workgroupStorage: l.maxComputeWorkgroupStorageSize,
      invocations: l.maxComputeInvocationsPerWorkgroup,
      workgroupSizeX: l.maxComputeWorkgroupSizeX,
      storageBinding: Math.min(l.maxStorageBufferBindingSize, WEBGPU_MAX_BUFFER_BYTES),
      bufferSize: Math.min(l.maxBufferSize, WEBGPU_MAX_BUFFER_BYTES),
      workgroupsPerDimension: l.maxComputeWorkgroupsPerDimension,
      storageOffsetAlignment: l.minStorageBufferOffsetAlignment,
    };
    this.timestamps = device.features.has('timestamp-query');
    this.subgroups = device.features.has('subgroups');
    this.name = adapterName(adapter);
    this.details = adapterDetails(adapter);
    void device.lost.then((info) => {
      if (!this.destroyed) this.fail(`the device was lost (${info.reason}): ${info.message}`);
    });
    device.onuncapturederror = (event: GPUUncapturedErrorEvent) => {
      this.fail(`${event.error.constructor.name}: ${event.error.message}`);
    };
  }

  /** Marks the device failed: every later call throws. */
  fail(message: string, cause?: unknown): BackendFailedError {
    this.failure ??= new BackendFailedError('webgpu', message, { sticky: true, cause });
    return this.failure;
  }

  get failed(): boolean {
    return this.failure !== undefined;
  }

  /** Throws the failure once the device is lost or failed. */
  check(): void {
    if (this.failure) throw this.failure;
  }

  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.device.destroy();
  }
}

/** Opens the adapter's device with its real limits and the features the kernels use. */
export async function openWebGpuDevice(): Promise<WebGpuContext> {
  const r: { gpu?: GPU; adapter?: GPUAdapter; reason?: string } = spare ?? (await requestAdapter());
  spare = undefined;
  if (!r.adapter || !r.gpu) throw new BackendUnavailableError('webgpu', r.reason ?? 'unknown reason');
  const a = r.adapter;
  try {
    const device = await a.requestDevice(deviceDescriptor(a));
    return new WebGpuContext(r.gpu, a, device);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new BackendUnavailableError('webgpu', `the WebGPU device could not be opened: ${message}`);
  }
}
