// The CPU backend's public face (the same in every backend folder): create it (backend.ts), and the
// measured switch points of its processors.
export {
  cpuBackendPool,
  cpuBackendPrecision,
  cpuPrecisions,
  createCpuBackend,
  type CpuBackendOptions,
  type CpuPrecision,
} from './backend.js';
export { CORR_DIRECT_MAX_LENGTH } from './correlator.js';
export { FIR_DIRECT_MAX_TAPS } from './fir.js';
export { INLINE_COST_LIMIT } from './executor.js';
