// Shared by the CUDA tests: the backend when a CUDA device is here, else the reason to skip (printed).
// PHASOR_CUDA_ADDON may point at the CPU-emulation build (native/build/emu) for development without a GPU.
import { loadAddon } from '../../electron/engine/backends/cuda/addon.js';
import { type CudaBackend, createCudaBackend, probeCuda } from '../../electron/engine/backends/cuda/index.js';

export interface Gpu {
  backend: CudaBackend | null;
  skip: string;
  /** True in the CPU emulation: tests shrink their sizes. */
  emulation: boolean;
}

export async function openGpu(): Promise<Gpu> {
  const a = await probeCuda();
  if (!a.available) return { backend: null, skip: `no CUDA device: ${a.reason}`, emulation: false };
  const backend = await createCudaBackend();
  return { backend, skip: '', emulation: loadAddon().addon?.build.emulation === true };
}
