// The backends the conformance suite checks. A backend joins by adding one entry here; every test in
// conformance.test.ts then runs against it. An entry that cannot run here (no GPU) returns
// { unavailable: reason } from open(): its tests are skipped with that reason, and because `gpu` is set
// their names carry [needs-gpu], the only skip CI accepts.
import type { Backend } from '../../electron/engine/backends/backend.js';
import { createCpuBackend } from '../../electron/engine/backends/cpu/index.js';
import { createCudaBackend, probeCuda } from '../../electron/engine/backends/cuda/index.js';
import { createWebGpuBackend, probeWebGpu } from '../../electron/engine/backends/webgpu/index.js';
import { useSwiftShader } from '../webgpu/gpu.js';

export interface BackendEntry {
  name: string;
  /** Relative L2 error allowed against the float64 references (1e-6 for FP32 backends). */
  tolerance: number;
  open(): Promise<Backend | { unavailable: string }>;
  /** Needs a GPU (tests carry [needs-gpu]); default: every backend whose name does not start with "cpu". */
  gpu?: boolean;
}

export const backends: BackendEntry[] = [
  // Default configuration: single precision (power-of-two transforms in float32 SIMD), small jobs on the
  // calling thread, large ones on the worker pool. Tolerance as the GPU backends'.
  { name: 'cpu', tolerance: 1e-6, open: () => createCpuBackend({ threads: 2 }) },
  // Every job through the worker pool (shared memory, workers' own plans and kernels), so both paths are checked.
  { name: 'cpu-workers', tolerance: 1e-6, open: () => createCpuBackend({ threads: 2, inlineCostLimit: 0 }) },
  // The float64 path (precision 'double', the reference path), inline and on the pool.
  { name: 'cpu-double', tolerance: 1e-6, open: () => createCpuBackend({ threads: 2, precision: 'double' }) },
  {
    name: 'cpu-double-workers',
    tolerance: 1e-6,
    open: () => createCpuBackend({ threads: 2, inlineCostLimit: 0, precision: 'double' }),
  },
  // Our CUDA kernels (issue 3). The tighter 3e-7 for n ≤ 4096 is checked in test/cuda/fft.test.ts.
  {
    name: 'cuda',
    tolerance: 1e-6,
    open: async () => {
      const a = await probeCuda();
      return a.available ? createCudaBackend() : { unavailable: a.reason };
    },
  },
  // The WGSL kernels through Dawn: on a GPU's Vulkan driver, or on SwiftShader's where there is none (CI).
  // Not [needs-gpu]: SwiftShader is a WebGPU adapter on any machine, so CI must run these (an adapter
  // missing there fails the suite instead of skipping it, as test/webgpu/gpu.ts's openWebGpu does).
  {
    name: 'webgpu',
    tolerance: 1e-6,
    gpu: false,
    open: async () => {
      useSwiftShader();
      const a = await probeWebGpu();
      if (!a.available && process.env.CI) throw new Error(`WebGPU must run in CI, but: ${a.reason}`);
      return a.available ? createWebGpuBackend() : { unavailable: a.reason };
    },
  },
];

export function needsGpu(entry: BackendEntry): boolean {
  return entry.gpu ?? !entry.name.startsWith('cpu');
}
