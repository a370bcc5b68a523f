// What a WebGPU device asks of its adapter, shared by Dawn in Node (device.ts) and the browser's
// navigator.gpu (bridge/browser.ts). A device gets the WebGPU defaults (16 KiB of workgroup memory…)
// unless it asks for more, so it asks for what the adapter has, and for the optional features the kernels
// use where the adapter offers them. No Node imports: the browser bundle carries this module as it is.

/** The optional features the kernels use when present: GPU timestamps and subgroup operations. */
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
