// Types of native/cuda-archs.mjs, for the tests.
export declare const ALL_ARCHS: string;
export declare const LOWEST_ARCH: number;
export interface GpuQuery {
  caps?: number[];
  error?: string;
}
export declare function parseComputeCaps(text: string): number[];
export declare function parseToolkitArchs(text: string): number[];
export declare function chooseCudaArchs(input: {
  env?: Record<string, string | undefined>;
  gpus: GpuQuery;
  toolkit?: number[];
}): { archs: string; reason: string };
export declare function queryGpus(env?: NodeJS.ProcessEnv): GpuQuery;
export declare function queryToolkit(nvcc: string, env?: NodeJS.ProcessEnv): number[];
