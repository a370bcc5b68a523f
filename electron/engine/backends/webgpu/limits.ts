// What a WebGPU device asks of its adapter, shared by Dawn in Node (device.ts) and the browser's
// navigator.gpu (bridge/browser.ts). A device gets the WebGPU defaults (16 KiB of workgroup memory…)
// unless it asks for more, so it asks for what the adapter has, and for the optional features below where
// the adapter offers them. No Node imports: the browser bundle carries this module as it is.

/** The optional features a device asks for when the adapter has them: GPU timestamps (the device timer)
 * and subgroups (reported in the backend's details; no kernel uses them: the three uses tried measured no
 * faster, docs/PERFORMANCE.md). */
export const WEBGPU_OPTIONAL_FEATURES = ['timestamp-query', 'subgroups'] as const;

/** The adapter limits a device asks for in full, since the kernels plan with them. */
const ADAPTER_LIMITS = [
  'maxComputeWorkgroupStorageSize',
  'maxComputeInvocationsPerWorkgroup',
  'maxComputeWorkgroupSizeX',
  'maxStorageBufferBindingSize',
  'maxBufferSize',
  'maxStorageBuffersPerShaderStage',
] as const;

/** The descriptor of the backend's device on `adapter`: its real limits and the features it has. */
export function deviceDescriptor(adapter: GPUAdapter): GPUDeviceDescriptor {
  const requiredFeatures: GPUFeatureName[] = WEBGPU_OPTIONAL_FEATURES.filter((f) => adapter.features.has(f));
  const requiredLimits: Record<string, number> = {};
  for (const name of ADAPTER_LIMITS) requiredLimits[name] = adapter.limits[name];
  return { requiredFeatures, requiredLimits, label: 'phasor' };
}

/** Input bytes a WebGPU correlator push should carry (Correlator.pushBytes): a push is one submit read
 * back before the next, about 1.3 ms whatever its size (dispatches, the candidates' map and selection),
 * where 4 MiB of input take about 1.2 ms more. A 1 GiB correlation in one process on the lent H100:
 * 591–656 ms in 4 MiB pushes, 367–404 ms in 16 MiB ones (docs/PERFORMANCE.md). The FIR and the
 * spectrogram run their pushes in pieces, two in flight, and gain nothing from larger ones. */
export const WEBGPU_CORRELATOR_PUSH_BYTES = 16 << 20;
