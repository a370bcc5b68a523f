// The committed native/wasm/phasor-simd.wasm is what native/wasm/simd.c compiles to: rebuilt here with
// clang (Debian: apt-get install clang lld) and compared byte for byte. Without clang the test is skipped
// with the reason, which CI refuses (test/support/skip-guard.ts), so CI always checks it.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { clangWasm, needs } from '../support/requirements.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('native/wasm build', () => {
  it('the committed phasor-simd.wasm is current (clang, wasm-ld present)', needs(clangWasm), () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'phasor-wasm-'));
    try {
      const out = path.join(dir, 'phasor-simd.wasm');
      execFileSync(process.execPath, [path.join(root, 'native/wasm/build.mjs'), '--out', out], {
        stdio: 'pipe',
      });
      const fresh = readFileSync(out);
      const committed = readFileSync(path.join(root, 'native/wasm/phasor-simd.wasm'));
      expect(
        fresh.equals(committed),
        'native/wasm/phasor-simd.wasm is out of date with simd.c: run `node native/wasm/build.mjs` and commit it',
      ).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
