// The CPU backend's arithmetic choices, apart from the backend so that option parsing does not load it.

export type CpuPrecision = 'single' | 'double';
export const cpuPrecisions: readonly CpuPrecision[] = ['single', 'double'];
/** The default: float32 SIMD where the transform sizes allow. */
export const defaultCpuPrecision: CpuPrecision = 'single';
