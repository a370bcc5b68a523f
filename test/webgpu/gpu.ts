// Shared by the WebGPU tests: Dawn on the adapter found here. Without a GPU, SwiftShader's Vulkan driver
// (Debian's chromium package ships it) is selected when VK_ICD_FILENAMES is unset. Under CI (CI=true) a
// missing adapter fails the tests instead of skipping them: CI installs SwiftShader.
import { existsSync } from 'node:fs';
import { afterAll } from 'vitest';
import {
  createWebGpuBackend,
  probeWebGpu,
  type WebGpuBackend,
} from '../../electron/engine/backends/webgpu/index.js';
import { relL2, toF64 } from '../conformance/util.js';
import { missingNote, needs, webgpuAdapter } from '../support/requirements.js';

export const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';

export function useSwiftShader(): void {
  if (process.env.VK_ICD_FILENAMES === undefined && existsSync(SWIFTSHADER_ICD)) {
    process.env.VK_ICD_FILENAMES = SWIFTSHADER_ICD;
  }
}

export interface Gpu {
  backend: WebGpuBackend | null;
  skip: string;
}

let missing = '';

export async function openWebGpu(): Promise<Gpu> {
  useSwiftShader();
  const a = await probeWebGpu();
  if (!a.available) {
    if (process.env.CI) throw new Error(`WebGPU must run in CI, but: ${a.reason}`);
    missing = a.reason;
    return { backend: null, skip: missingNote(webgpuAdapter(false, a.reason)) };
  }
  return { backend: await createWebGpuBackend(), skip: '' };
}

/** Suite or test options: skipped, with the note naming what to install, when openWebGpu found no adapter. */
export function needsWebGpu(b: unknown): ReturnType<typeof needs> {
  return needs(webgpuAdapter(b !== null && b !== undefined, missing));
}

/** Relative L2 error allowed against float64 (the accuracy target). */
export function tolerance(n: number): number {
  return n <= 4096 ? 3e-7 : 1e-6;
}

/** The worst relative L2 error of `rows` rows of `got` against reference(row input). */
export function worstRowError(
  got: Float32Array,
  input: Float32Array,
  rows: number,
  reference: (row: Float64Array) => Float64Array,
): number {
  const inRow = input.length / rows;
  const outRow = got.length / rows;
  let worst = 0;
  for (let r = 0; r < rows; r++) {
    const ref = reference(toF64(input.subarray(r * inRow, (r + 1) * inRow)));
    worst = Math.max(worst, relL2(got.subarray(r * outRow, (r + 1) * outRow), ref));
  }
  return worst;
}

/** Opens the backend for a test file (disposed after it) and a list of measured errors printed at its end. */
export async function webgpuSuite(): Promise<{ b: WebGpuBackend | null; errors: string[] }> {
  const gpu = await openWebGpu();
  const b = gpu.backend;
  const errors: string[] = [];
  afterAll(async () => {
    console.log(`relative L2 against float64:\n${errors.join('\n')}`);
    await b?.dispose();
  });
  return { b, errors };
}
