// SigMF metadata: validation of a .sigmf-meta document and what the reader needs from it. The metadata
// is kept exactly as read so writers can carry it over.

import { z } from 'zod';
import { CorruptFileError, UnsupportedFormatError } from '../errors.js';
import type { SigmfMetadata } from '../sources/source.js';
import { parseEncodingDetailed } from './encoding.js';
import type { SigmfDescription } from './sigmf.js';

const nonNegativeInt = z.number().int().nonnegative();

const captureSchema = z.looseObject({
  'core:sample_start': nonNegativeInt.optional(),
  'core:frequency': z.number().optional(),
  'core:header_bytes': nonNegativeInt.optional(),
});

const globalSchema = z.looseObject({
  'core:datatype': z.string(),
  'core:sample_rate': z.number().optional(),
  'core:num_channels': z.number().int().min(1).optional(),
  'core:trailing_bytes': nonNegativeInt.optional(),
  'core:metadata_only': z.boolean().optional(),
  'core:version': z.string().optional(),
});

const metaSchema = z.looseObject({
  global: globalSchema,
  captures: z.array(captureSchema).optional(),
  annotations: z.array(z.looseObject({})).optional(),
});

function issuePath(path: ReadonlyArray<PropertyKey>): string {
  return path
    .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
    .join('')
    .replace(/^\./, '');
}

/**
 * Parses and validates a .sigmf-meta document. `metaPath` names the file in errors; `fallbackRate` stands
 * in for a missing core:sample_rate.
 */
export function parseSigmfMeta(text: string, metaPath: string, fallbackRate?: number): SigmfDescription {
  let json: unknown;
  try {
    json = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new CorruptFileError(metaPath, `malformed SigMF metadata: not valid JSON (${why})`, err);
  }
  const parsed = metaSchema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 3)
      .map((i) => `${issuePath(i.path) || 'document'}: ${i.message}`)
      .join('; ');
    throw new CorruptFileError(metaPath, `invalid SigMF metadata: ${issues}`);
  }
  const raw = json as { global: Record<string, unknown>; captures?: unknown[]; annotations?: unknown[] };
  const metadata: SigmfMetadata = {
    global: raw.global,
    captures: (raw.captures ?? []) as Array<Record<string, unknown>>,
    annotations: (raw.annotations ?? []) as Array<Record<string, unknown>>,
  };
  const g = parsed.data.global;
  if (g['core:metadata_only'] === true) {
    throw new UnsupportedFormatError(
      metaPath,
      'this SigMF recording is metadata only (core:metadata_only): it has no samples',
    );
  }
  const datatype = g['core:datatype'];
  const enc = parseEncodingDetailed(datatype);
  if (!enc.ok) {
    if (enc.reason === 'endianness') {
      throw new CorruptFileError(
        metaPath,
        `core:datatype '${datatype}' needs a byte order suffix (_le or _be)`,
      );
    }
    throw new UnsupportedFormatError(
      metaPath,
      `core:datatype '${datatype}' is not supported; Phasor reads (c|r)(f64|f32|i32|i16|i8|u32|u16|u8)(_le|_be)`,
    );
  }
  let sampleRate = g['core:sample_rate'];
  if (sampleRate === undefined) {
    if (fallbackRate === undefined) {
      throw new CorruptFileError(metaPath, 'core:sample_rate is missing; pass --rate (sample rate in Hz)');
    }
    sampleRate = fallbackRate;
  }
  if (!Number.isFinite(sampleRate) || sampleRate <= 0) {
    throw new CorruptFileError(metaPath, `core:sample_rate must be a positive number, got ${sampleRate}`);
  }
  const channels = g['core:num_channels'] ?? 1;
  if (channels > 65535)
    throw new UnsupportedFormatError(metaPath, `core:num_channels ${channels} is more than 65535`);
  const captures = parsed.data.captures ?? [];
  for (let i = 1; i < captures.length; i++) {
    if ((captures[i]['core:header_bytes'] ?? 0) > 0) {
      throw new UnsupportedFormatError(
        metaPath,
        `captures[${i}] has core:header_bytes: headers inside the data are not supported (only before the first capture)`,
      );
    }
  }
  const first = captures[0];
  const freq = first?.['core:frequency'];
  return {
    metadata,
    stored: enc.encoding,
    sampleRate,
    channels,
    centerFrequency: enc.encoding.complex && freq !== undefined && Number.isFinite(freq) ? freq : undefined,
    headerBytes: first?.['core:header_bytes'] ?? 0,
    trailingBytes: g['core:trailing_bytes'] ?? 0,
  };
}
