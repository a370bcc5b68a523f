// The CUDA backend: probe it, create it.
//
//   const a = await probeCuda();        // { available: true, device, details } | { available: false, reason }
//   if (a.available) { const cuda = await createCudaBackend(); … await cuda.dispose(); }
//
// Reasons it may be unavailable, in words: the addon was not built (no CUDA toolkit when Phasor was
// installed), no NVIDIA driver, no CUDA device, a driver too old for the CUDA 13 runtime built in.

import { BackendUnavailableError } from '../../errors.js';
import type { Backend } from '../backend.js';
import { loadAddon } from './addon.js';
import { CudaBackend } from './backend.js';

export { CudaBackend, CudaDeviceArray, CUDA_MAX_FFT } from './backend.js';
export { CUDA_FIR_DIRECT_MAX_TAPS } from './processors.js';
export type { NativeBenchResult } from './addon.js';

export type CudaAvailability =
  | { available: true; device: string; details: Record<string, string | number> }
  | { available: false; reason: string };

export interface CudaBackendOptions {
  /** CUDA device number (default 0). */
  device?: number;
}

/** Whether the CUDA backend can run here, and why not. Never throws. */
export async function probeCuda(options: CudaBackendOptions = {}): Promise<CudaAvailability> {
  const load = loadAddon();
  if (!load.addon) return { available: false, reason: load.reason };
  try {
    const p = load.addon.probe(options.device ?? 0);
    if (!p.available) return { available: false, reason: p.reason ?? 'unknown reason' };
    return {
      available: true,
      device: p.device ?? 'CUDA device',
      details: { ...(p.details ?? {}), addon: load.path },
    };
  } catch (err) {
    return {
      available: false,
      reason: `the CUDA probe failed: ${err instanceof Error ? err.message : String(err)}`,
    };
  }
}

/** Creates the CUDA backend (name 'cuda'); throws BackendUnavailableError with the reason when it cannot. */
export async function createCudaBackend(options: CudaBackendOptions = {}): Promise<Backend & CudaBackend> {
  const probe = await probeCuda(options);
  if (!probe.available) throw new BackendUnavailableError('cuda', probe.reason);
  const addon = loadAddon().addon!;
  const ctx = new addon.Context();
  try {
    const info = await ctx.init(options.device ?? 0);
    return new CudaBackend(addon, ctx, info.device, { ...info.details, addon: String(probe.details.addon) });
  } catch (err) {
    await ctx.dispose().catch(() => undefined);
    const message = err instanceof Error ? err.message : String(err);
    throw new BackendUnavailableError('cuda', `the CUDA device could not be opened: ${message}`);
  }
}
