// Which GPU architectures native/build.mjs compiles the CUDA addon for (CMake's CUDA_ARCHITECTURES syntax).
//
// - PHASOR_CUDA_ARCHS=all: the full fatbin (every architecture Phasor supports), for packaging;
// - PHASOR_CUDA_ARCHS=<list>: that list, as given;
// - else the GPUs present (nvidia-smi's compute capabilities): machine code for each, plus PTX of the highest
//   so that a newer GPU still runs it (the driver compiles PTX at first use);
// - with a toolkit but no GPU or driver: one PTX target, the lowest the toolkit supports, which any
//   supported GPU's driver compiles at first use.
// Building for one architecture instead of five makes `npm install` several times quicker.
import { spawnSync } from 'node:child_process';

/** The full fatbin: SASS for sm_75 … sm_90 and PTX of compute_90 (what npm install built before). */
export const ALL_ARCHS = '75-real;80-real;86-real;89-real;90';
/** The lowest architecture CUDA 13 compiles for (nvcc --list-gpu-arch starts at compute_75). */
export const LOWEST_ARCH = 75;

/** Compute capabilities from `nvidia-smi --query-gpu=compute_cap --format=csv,noheader` ("9.0" -> 90),
 * deduplicated, ascending. Lines that are not a capability (errors) are ignored. */
export function parseComputeCaps(text) {
  const caps = new Set();
  for (const line of String(text).split('\n')) {
    const m = /^\s*(\d+)\.(\d+)\s*$/.exec(line);
    if (m) caps.add(Number(m[1]) * 10 + Number(m[2]));
  }
  return [...caps].sort((a, b) => a - b);
}

/** The virtual architectures a toolkit knows, from `nvcc --list-gpu-arch` ("compute_75" -> 75), ascending. */
export function parseToolkitArchs(text) {
  const archs = new Set();
  for (const m of String(text).matchAll(/compute_(\d+)/g)) archs.add(Number(m[1]));
  return [...archs].sort((a, b) => a - b);
}

/**
 * The choice itself, pure: { archs, reason }.
 *   env:      the environment (PHASOR_CUDA_ARCHS)
 *   gpus:     { caps: number[] } when nvidia-smi answered, else { error: string }
 *   toolkit:  the toolkit's virtual architectures (parseToolkitArchs), [] when unknown
 */
export function chooseCudaArchs({ env = {}, gpus, toolkit = [] }) {
  const asked = (env.PHASOR_CUDA_ARCHS ?? '').trim();
  if (asked === 'all') {
    return { archs: ALL_ARCHS, reason: 'PHASOR_CUDA_ARCHS=all: every supported GPU, for packaging' };
  }
  if (asked !== '') return { archs: asked, reason: 'PHASOR_CUDA_ARCHS' };
  const known = toolkit.filter((a) => a >= LOWEST_ARCH);
  const lowest = known[0] ?? LOWEST_ARCH;
  const highest = known[known.length - 1];
  const caps = gpus?.caps ?? [];
  if (caps.length === 0) {
    const why = gpus?.error ?? 'nvidia-smi listed no GPU';
    return {
      archs: `${lowest}-virtual`,
      reason: `no NVIDIA GPU found (${why}): PTX only, which the driver compiles at first use`,
    };
  }
  const text = caps.map((c) => `${Math.floor(c / 10)}.${c % 10}`).join(', ');
  // machine code for each GPU the toolkit can compile for; older ones cannot run the addon at all
  const real = caps.filter((c) => c >= lowest && (highest === undefined || known.includes(c)));
  const tooOld = caps.filter((c) => c < lowest);
  // PTX of the highest GPU (or of the toolkit's newest architecture for a GPU newer than the toolkit)
  const top = caps[caps.length - 1];
  const ptx = highest !== undefined && top > highest ? highest : Math.max(top, lowest);
  const archs = [...new Set([...real.map((c) => `${c}-real`), `${ptx}-virtual`])].join(';');
  let reason = `the GPUs present (compute capability ${text}, nvidia-smi)`;
  if (tooOld.length > 0) reason += `; CUDA 13 cannot compile for those older than ${lowest / 10}`;
  return { archs, reason };
}

/** Asks nvidia-smi (found on env's PATH) for the GPUs' compute capabilities: { caps } or { error } (one line). */
export function queryGpus(env = process.env) {
  const r = spawnSync('nvidia-smi', ['--query-gpu=compute_cap', '--format=csv,noheader'], {
    encoding: 'utf8',
    timeout: 20000,
    env,
  });
  if (r.error) {
    return { error: r.error.code === 'ENOENT' ? 'nvidia-smi not found' : `nvidia-smi: ${r.error.message}` };
  }
  if (r.status !== 0) {
    const line = `${r.stdout ?? ''}${r.stderr ?? ''}`.trim().split('\n')[0] || `exit status ${r.status}`;
    return { error: `nvidia-smi failed: ${line}` };
  }
  return { caps: parseComputeCaps(r.stdout) };
}

/** The toolkit's virtual architectures, from `<nvcc> --list-gpu-arch` ([] when it does not answer). */
export function queryToolkit(nvcc, env = process.env) {
  const r = spawnSync(nvcc, ['--list-gpu-arch'], { encoding: 'utf8', timeout: 20000, env });
  return r.status === 0 ? parseToolkitArchs(r.stdout) : [];
}
