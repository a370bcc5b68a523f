// The CPU backend's arithmetic choices, apart from the backend so that option parsing does not load it.

export type CpuPrecision = 'single' | 'double';
export const cpuPrecisions: readonly CpuPrecision[] = ['single', 'double'];
