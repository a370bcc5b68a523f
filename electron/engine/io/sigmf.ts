// SigMF (https://sigmf.org, specification 1.x): what every SigMF reader and writer shares. Parsing and
// validating a .sigmf-meta document is in sigmf-meta.ts, loaded only when a recording is opened.

import type { SigmfMetadata } from '../sources/source.js';
import type { SampleEncoding } from './encoding.js';

export const SIGMF_VERSION = '1.2.0';
// The .sigmf-meta documents Phasor agrees to parse: a real one is kilobytes, a big annotation set megabytes.
// Within these limits `phasor info` of any accepted meta takes under a second of CPU and 200 MB
// (docs/PERFORMANCE.md, "Bounded inputs"); a meta beyond one is refused before it is parsed.
/** Bytes of a .sigmf-meta document. */
export const MAX_META_BYTES = 8 * 1024 * 1024;
/** Nesting of arrays and objects (the root object is depth 1; the SigMF fields sit at 2 and 3). A meta
 * written out indents each level by 2 spaces: this keeps it within ~66 bytes a value beyond its input. */
export const MAX_META_DEPTH = 32;
/** JSON values in the document (objects, arrays, strings, numbers, literals; not member names). */
export const MAX_META_VALUES = 250_000;

export interface SigmfDescription {
  readonly metadata: SigmfMetadata;
  readonly stored: SampleEncoding;
  readonly sampleRate: number;
  readonly channels: number;
  readonly centerFrequency?: number;
  /** Bytes to skip before the samples (core:header_bytes of the first capture). */
  readonly headerBytes: number;
  /** Bytes to ignore after the samples (core:trailing_bytes). */
  readonly trailingBytes: number;
}

/** The .sigmf-meta and .sigmf-data paths of a recording named by either (or by its base name). */
export function sigmfPair(path: string): { meta: string; data: string } {
  const base = path.replace(/\.sigmf(-meta|-data)?$/i, '');
  return { meta: `${base}.sigmf-meta`, data: `${base}.sigmf-data` };
}
