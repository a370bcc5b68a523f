#!/usr/bin/env node
// Builds the CUDA backend's addon (native/build/cuda/phasor_cuda.node) with CMake and nvcc.
//
//   node native/build.mjs                 build; fail when nvcc or cmake is missing
//   node native/build.mjs --if-available  (npm install) build when nvcc is found, else say so in one line, exit 0
//
// It builds for the GPUs present (native/cuda-archs.mjs): nvidia-smi's compute capabilities, or with no GPU or
// driver one PTX target the driver compiles at first use. PHASOR_CUDA_ARCHS=all builds the full fatbin (for
// packaging); any other PHASOR_CUDA_ARCHS (CMake syntax, e.g. "86-real;90") is used as given.
//   node native/build.mjs --emu           the CPU emulation build (native/build/emu), for development
//   node native/build.mjs --all           also the kernel self-tests (plain programs)
//   node native/build.mjs --print-archs   print the architectures it would build for, and why; build nothing
//   node native/build.mjs --bench         also phasor_cuda_bench.node, the addon for bench/cuda's measurements
//                                         (sweeps, npm run gpu:check's benchmark); with --emu, its emulated twin
//
// A compile error always fails (exit 1), so CI, which has nvcc, fails on it.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { chooseCudaArchs, queryGpus, queryToolkit } from './cuda-archs.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const args = new Set(process.argv.slice(2));
const emu = args.has('--emu');
const ifAvailable = args.has('--if-available');
const all = args.has('--all');
const bench = args.has('--bench');
const printArchs = args.has('--print-archs');

function which(cmd) {
  const r = spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

function skip(why) {
  if (ifAvailable) {
    console.log(
      `phasor: the CUDA backend is not built: ${why}; Phasor runs on WebGPU or the CPU (npm run build:native builds it later)`,
    );
    process.exit(0);
  }
  console.error(`phasor: cannot build the CUDA backend: ${why}`);
  process.exit(1);
}

const nvcc = emu
  ? null
  : [process.env.CUDACXX, which('nvcc'), '/usr/local/cuda/bin/nvcc'].find((p) => p && existsSync(p));
if (!emu && !nvcc) skip('it needs the CUDA toolkit 13 (nvcc), which was not found');
if (printArchs) {
  const choice = chooseCudaArchs({ env: process.env, gpus: queryGpus(), toolkit: queryToolkit(nvcc) });
  console.log(`${choice.archs}: ${choice.reason}`);
  process.exit(0);
}
const cmake = which('cmake');
if (!cmake) skip('it needs cmake (3.20 or newer), which was not found');

// Node's headers: npm_config_nodedir (set by the device recipe), else beside the running node.
const candidates = [
  process.env.npm_config_nodedir && path.join(process.env.npm_config_nodedir, 'include', 'node'),
  path.resolve(path.dirname(process.execPath), '..', 'include', 'node'),
  '/usr/include/node',
  '/usr/local/include/node',
].filter(Boolean);
const nodeInclude = candidates.find((d) => existsSync(path.join(d, 'node_api.h')));
if (!nodeInclude) {
  skip(`it needs Node's headers (node_api.h), not found in ${candidates.join(', ')}; set npm_config_nodedir`);
}
let napiInclude;
try {
  const require = createRequire(import.meta.url);
  napiInclude = path.dirname(require.resolve('node-addon-api/package.json'));
} catch {
  skip('it needs node-addon-api, which is not installed (npm install)');
}

const buildDir = path.join(root, 'native', 'build', emu ? 'emu' : 'cuda');
const jobs = String(os.availableParallelism ? os.availableParallelism() : os.cpus().length);
const generator = which('ninja') ? ['-G', 'Ninja'] : [];
const configure = [
  '-S',
  path.join(root, 'native'),
  '-B',
  buildDir,
  ...generator,
  '-DCMAKE_BUILD_TYPE=Release',
  `-DNODE_INCLUDE_DIR=${nodeInclude}`,
  `-DNAPI_INCLUDE_DIR=${napiInclude}`,
  `-DPHASOR_EMU=${emu ? 'ON' : 'OFF'}`,
  `-DPHASOR_BENCH=${bench ? 'ON' : 'OFF'}`,
];
if (nvcc) configure.push(`-DCMAKE_CUDA_COMPILER=${nvcc}`);
let archs = null;
if (nvcc) {
  const choice = chooseCudaArchs({ env: process.env, gpus: queryGpus(), toolkit: queryToolkit(nvcc) });
  archs = choice.archs;
  configure.push(`-DPHASOR_CUDA_ARCHS=${archs}`);
  console.log(`phasor: building the CUDA addon for ${archs}: ${choice.reason}`);
}

const t0 = Date.now();
function run(argv) {
  const r = spawnSync(cmake, argv, { stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`phasor: the CUDA backend failed to build (cmake ${argv[0]} exited with ${r.status})`);
    process.exit(1);
  }
}
const cache = path.join(buildDir, 'CMakeCache.txt');
const cached = existsSync(cache) ? readFileSync(cache, 'utf8') : '';
// configured again for other Node headers, or when --bench needs the bench addon's target (a build without
// --bench keeps a bench-enabled configuration: it builds phasor_cuda only)
const stale =
  !cached.includes(`NODE_INCLUDE_DIR:PATH=${nodeInclude}`) ||
  (archs !== null && !cached.includes(`PHASOR_CUDA_ARCHS:STRING=${archs}\n`)) ||
  (bench && !/^PHASOR_BENCH:\w+=ON$/m.test(cached));
if (stale) run(configure);
const targets = ['phasor_cuda'];
if (bench) targets.push('phasor_cuda_bench');
if (all) targets.push('phasor_cuda_selftest', 'phasor_cuda_proctest');
run(['--build', buildDir, '-j', jobs, '--target', ...targets]);
const seconds = ((Date.now() - t0) / 1000).toFixed(0);
const built = targets
  .filter((t) => !t.endsWith('test'))
  .map((t) => path.relative(root, path.join(buildDir, `${t}.node`)));
console.log(
  `phasor: built ${built.join(' and ')} in ${seconds} s` +
    (nvcc
      ? ` (${execFileSync(nvcc, ['--version'], { encoding: 'utf8' }).match(/release [0-9.]+/)?.[0] ?? 'nvcc'}, ${archs})`
      : ' (CPU emulation)'),
);
