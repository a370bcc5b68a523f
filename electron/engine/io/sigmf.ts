// SigMF (https://sigmf.org, specification 1.x): what every SigMF reader and writer shares. Parsing and
// validating a .sigmf-meta document is in sigmf-meta.ts, loaded only when a recording is opened.

import type { SigmfMetadata } from '../sources/source.js';
import type { SampleEncoding } from './encoding.js';

export const SIGMF_VERSION = '1.2.0';
/** The .sigmf-meta documents Phasor agrees to parse (a real one is kilobytes; big annotation sets, megabytes). */
export const MAX_META_BYTES = 256 * 1024 * 1024;

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
