// The CUDA backend's public face (the same in every backend folder): probe it, create it (backend.ts), and
// the measured switch point of its FIR filter.
export {
  CudaBackend,
  CudaDeviceArray,
  createCudaBackend,
  probeCuda,
  type CudaAvailability,
  type CudaBackendOptions,
} from './backend.js';
export { CUDA_FIR_DIRECT_MAX_TAPS } from './fir.js';
export type { NativeBenchResult } from './addon.js';
