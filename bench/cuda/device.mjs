// The CUDA addon and an initialised context on device 0, for the benchmark scripts (run.mjs, sweep.mjs).
// Exits with status 2 and one line when there is no addon or no device: those scripts have nothing to
// measure then. PHASOR_CUDA_ADDON points at another build (the CPU emulation, for --smoke runs).
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** @returns {Promise<{ addon: any, ctx: any, info: any }>} */
export async function openDevice() {
  const addonPath = path.resolve(
    process.env.PHASOR_CUDA_ADDON ?? path.join(root, 'native', 'build', 'cuda', 'phasor_cuda.node'),
  );
  if (!existsSync(addonPath)) {
    console.log(`no CUDA addon at ${addonPath}: build it with npm run build:native`);
    process.exit(2);
  }
  const addon = createRequire(import.meta.url)(addonPath);
  const probe = addon.probe();
  if (!probe.available) {
    console.log(`no CUDA device: ${probe.reason}`);
    process.exit(2);
  }
  const ctx = new addon.Context();
  const info = await ctx.init(0);
  return { addon, ctx, info };
}
