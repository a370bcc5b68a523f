// Builds native/wasm/phasor-simd.wasm, the float32 SIMD kernels of the CPU backend, from simd.c with
// clang's WebAssembly target (Debian: apt-get install clang lld). The .wasm is committed, so running Phasor
// needs no clang; test/wasm/build.test.ts rebuilds it where clang is present and checks it is current.
//
//   node native/wasm/build.mjs            writes phasor-simd.wasm
//   node native/wasm/build.mjs --out F    writes F instead (the test's check)

import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));
const outIndex = process.argv.indexOf('--out');
const out = outIndex > 0 ? path.resolve(process.argv[outIndex + 1]) : path.join(here, 'phasor-simd.wasm');

export const exportsList = [
  'fft_batch',
  'rfft_batch',
  'irfft_batch',
  'cmul',
  'power',
  'window',
  '__heap_base',
];

const args = [
  '--target=wasm32',
  '-O3',
  '-msimd128',
  '-mbulk-memory',
  '-nostdlib',
  '-ffreestanding',
  '-fno-builtin',
  // Reproducible output: no paths or producer strings in the binary.
  '-g0',
  '-Wall',
  '-Werror',
  '-Wl,--no-entry',
  '-Wl,--strip-all',
  '-Wl,--export=__heap_base',
  ...exportsList.filter((e) => e !== '__heap_base').map((e) => `-Wl,--export=${e}`),
  '-Wl,--initial-memory=1048576',
  '-Wl,--max-memory=2147483648',
  '-Wl,-z,stack-size=65536',
  '-Wl,--stack-first',
  '-o',
  out,
  'simd.c',
];
execFileSync(process.env.CLANG ?? 'clang', args, { cwd: here, stdio: 'inherit' });
console.log(`wrote ${path.relative(process.cwd(), out) || out}`);
