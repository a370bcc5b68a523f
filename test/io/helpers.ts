// Shared helpers of the I/O tests: temporary folders, hand-built WAV bytes (independent of the writer),
// reading a whole source.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReadOptions, SampleSource } from '../../electron/engine/sources/source.js';
import { isRawSamples } from '../../electron/engine/types.js';

export function makeTempDir(tag: string): {
  dir: string;
  file: (name: string) => string;
  cleanup: () => void;
} {
  const dir = mkdtempSync(join(tmpdir(), `phasor-io-${tag}-`));
  return {
    dir,
    file: (name) => join(dir, name),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export interface WavSpec {
  tag?: number;
  channels: number;
  sampleRate: number;
  bits: number;
  blockAlign?: number;
  data: Uint8Array;
  /** Overrides the data chunk's size field. */
  dataSize?: number;
  /** Chunks inserted between fmt and data. */
  extraChunks?: Uint8Array[];
  /** WAVE_FORMAT_EXTENSIBLE with this sub-format code and valid bits. */
  extensible?: { subFormat: number; validBits: number };
  magic?: string;
  riffSize?: number;
}

export function ascii(s: string): Uint8Array {
  return Uint8Array.from(s, (c) => c.charCodeAt(0));
}

export function chunk(id: string, body: Uint8Array, sizeField = body.length): Uint8Array {
  const out = new Uint8Array(8 + body.length + (body.length % 2));
  out.set(ascii(id), 0);
  new DataView(out.buffer).setUint32(4, sizeField, true);
  out.set(body, 8);
  return out;
}

export function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

export function fmtBody(spec: WavSpec): Uint8Array {
  const ext = spec.extensible;
  const body = new Uint8Array(ext ? 40 : 16);
  const dv = new DataView(body.buffer);
  const blockAlign = spec.blockAlign ?? spec.channels * Math.ceil(spec.bits / 8);
  dv.setUint16(0, ext ? 0xfffe : (spec.tag ?? 1), true);
  dv.setUint16(2, spec.channels, true);
  dv.setUint32(4, spec.sampleRate, true);
  dv.setUint32(8, spec.sampleRate * blockAlign, true);
  dv.setUint16(12, blockAlign, true);
  dv.setUint16(14, spec.bits, true);
  if (ext) {
    dv.setUint16(16, 22, true);
    dv.setUint16(18, ext.validBits, true);
    dv.setUint32(20, 0, true);
    dv.setUint16(24, ext.subFormat, true);
    body.set([0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xaa, 0x00, 0x38, 0x9b, 0x71], 26);
  }
  return body;
}

/** A WAV file built byte by byte (RIFF, fmt, optional chunks, data). */
export function buildWav(spec: WavSpec): Uint8Array {
  const body = concat([
    ascii('WAVE'),
    chunk('fmt ', fmtBody(spec)),
    ...(spec.extraChunks ?? []),
    chunk('data', spec.data, spec.dataSize ?? spec.data.length),
  ]);
  const head = new Uint8Array(8);
  head.set(ascii(spec.magic ?? 'RIFF'), 0);
  new DataView(head.buffer).setUint32(4, spec.riffSize ?? body.length, true);
  return concat([head, body]);
}

export function writeBytes(path: string, bytes: Uint8Array): string {
  writeFileSync(path, bytes);
  return path;
}

/** Reads every block of a source into one Float32Array (decoding raw blocks). */
export async function readAll(source: SampleSource, options: ReadOptions = {}): Promise<Float32Array> {
  const parts: Float32Array[] = [];
  for await (const b of source.blocks(options)) {
    if (isRawSamples(b.data)) {
      const { data, offset, scale } = b.data;
      const f = new Float32Array(data.length);
      for (let i = 0; i < data.length; i++) f[i] = (data[i] - offset) * scale;
      parts.push(f);
    } else parts.push(b.data);
  }
  const out = new Float32Array(parts.reduce((a, p) => a + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** A deterministic pseudo-random sequence for test data (not the generator under test). */
export function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

/** Exact element-wise equality of two float arrays, reported at the first difference (vitest's toEqual
 * is slow on large typed arrays). */
export function firstDifference(a: ArrayLike<number>, b: ArrayLike<number>): string | undefined {
  if (a.length !== b.length) return `lengths differ: ${a.length} vs ${b.length}`;
  for (let i = 0; i < a.length; i++) {
    if (!Object.is(a[i], b[i])) return `at ${i}: ${a[i]} vs ${b[i]}`;
  }
  return undefined;
}
