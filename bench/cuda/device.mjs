// The CUDA addon and an initialised context on device 0, for the benchmark scripts (run.mjs, sweep.mjs,
// e2e-rounds.mjs, profile.mjs). They load the bench build, native/build/cuda/phasor_cuda_bench.node
// (node native/build.mjs --bench): the shipping addon's kernels, with the measurement-only operations of the
// device timer (cuda/devtimer.h). Exits with status 2 and one line when there is no addon or no device: those
// scripts have nothing to measure then. PHASOR_CUDA_ADDON points at another build (the emulated bench addon,
// native/build/emu/phasor_cuda_bench.node, for --smoke runs).
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * The addon's tuning knobs (cuda/tuning.def, listed by the addon itself) and a setTuning that refuses a name
 * not among them, so that a mistyped variant fails instead of measuring the default.
 * @returns {{ knobs: Map<string, { name: string, type: string, default: unknown, meaning: string }>, tune: (t: object) => Promise<void> }}
 */
export function tuner(addon, ctx) {
  const knobs = new Map(addon.tuningKnobs().map((k) => [k.name, k]));
  const tune = async (t) => {
    for (const name of Object.keys(t))
      if (!knobs.has(name))
        throw new Error(
          `unknown tuning knob ${name} (cuda/tuning.def lists ${[...knobs.keys()].join(', ')})`,
        );
    await ctx.setTuning(t);
  };
  return { knobs, tune };
}

/** The bench addon's path: $PHASOR_CUDA_ADDON, else the bench build's. */
export function benchAddonPath() {
  return path.resolve(
    process.env.PHASOR_CUDA_ADDON ?? path.join(root, 'native', 'build', 'cuda', 'phasor_cuda_bench.node'),
  );
}

/** @returns {Promise<{ addon: any, ctx: any, info: any }>} */
export async function openDevice() {
  const addonPath = benchAddonPath();
  if (!existsSync(addonPath)) {
    console.log(`no CUDA addon at ${addonPath}: build it with node native/build.mjs --bench`);
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
