// The extraction fixture (test/fixtures/make_extract_fixtures.py): its inputs written as files, its
// cases, and the comparison of an output with SciPy's.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from '../support/cli.js';
import { writeTestWav } from '../support/wav.js';

export interface ExtractCase {
  name: string;
  source: 'iq' | 'real';
  start: number;
  end: number;
  shift: number;
  lowpass: number | null;
  numtaps: number | null;
  decimate: number;
  frames: number;
  complex: boolean;
  expected_f32_b64: string;
}

export interface ExtractFixture {
  iq: { fs: number; center: number; datetime: string; frames: number; cf32_le_b64: string };
  real: { fs: number; frames: number; f32_le_b64: string };
  cases: ExtractCase[];
}

export const fx = JSON.parse(
  readFileSync(join(root, 'test/fixtures/extract/extract.json'), 'utf8'),
) as ExtractFixture;

function floats(b64: string): Float32Array {
  const b = Buffer.from(b64, 'base64');
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
}

export function expected(c: ExtractCase): Float32Array {
  return floats(c.expected_f32_b64);
}

/** The fixture's I/Q as a SigMF pair (cf32_le, its centre and datetime); returns the .sigmf-meta. */
export function writeIq(dir: string, name = 'iq'): string {
  const data = join(dir, `${name}.sigmf-data`);
  const meta = join(dir, `${name}.sigmf-meta`);
  writeFileSync(data, Buffer.from(fx.iq.cf32_le_b64, 'base64'));
  writeFileSync(
    meta,
    JSON.stringify({
      global: {
        'core:datatype': 'cf32_le',
        'core:sample_rate': fx.iq.fs,
        'core:version': '1.0.0',
        'core:description': 'extract fixture',
      },
      captures: [{ 'core:sample_start': 0, 'core:frequency': fx.iq.center, 'core:datetime': fx.iq.datetime }],
      annotations: [{ 'core:sample_start': 10, 'core:sample_count': 5, 'core:label': 'old' }],
    }),
  );
  return meta;
}

/** The fixture's real samples as a float32 mono WAV. */
export function writeReal(dir: string, name = 'real.wav'): string {
  const path = join(dir, name);
  writeTestWav(path, floats(fx.real.f32_le_b64), fx.real.fs, 1, 'float32');
  return path;
}

/** max |got − ref| / max |ref| over interleaved values. */
export function relError(got: Float32Array, ref: Float32Array): number {
  let num = 0;
  let den = 0;
  for (let i = 0; i < ref.length; i++) {
    num = Math.max(num, Math.abs(got[i] - ref[i]));
    den = Math.max(den, Math.abs(ref[i]));
  }
  return num / den;
}
