// SigMF metadata: validation of a .sigmf-meta document and what the reader needs from it. The metadata
// is kept exactly as read so writers can carry it over.

import { z } from 'zod';
import { CorruptFileError, oneLine, quote, UnsupportedFormatError } from '../errors.js';
import type { SigmfMetadata } from '../sources/source.js';
import { parseEncodingDetailed } from './encoding.js';
import { MAX_META_DEPTH, MAX_META_VALUES, type SigmfDescription } from './sigmf.js';

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
  // each annotation is checked by annotationsOk: a schema per element costs seconds on a million of them
  annotations: z.array(z.unknown()).optional(),
});

/** The index of the first annotation that is not an object, or -1. */
function badAnnotation(annotations: unknown[]): number {
  for (let i = 0; i < annotations.length; i++) {
    const a = annotations[i];
    if (typeof a !== 'object' || a === null || Array.isArray(a)) return i;
  }
  return -1;
}

const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/**
 * One pass over the JSON text outside its strings, before JSON.parse builds anything: refuses nesting
 * deeper than MAX_META_DEPTH and more than MAX_META_VALUES values, so parsing (and writing the meta out
 * again) stays bounded in time, memory and stack. In valid JSON the values are the root, one per member
 * (its colon) and one per array element (a non-empty array's first, then one per comma). Syntax is left
 * to JSON.parse.
 */
function checkShape(text: string, metaPath: string): void {
  const inArray = new Uint8Array(MAX_META_DEPTH + 1); // per open container: 1 for an array
  let depth = 0;
  let values = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === BACKSLASH) i++;
        else if (d === QUOTE) break;
      }
      continue;
    }
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++depth > MAX_META_DEPTH) {
        throw new CorruptFileError(
          metaPath,
          `SigMF metadata nested more than ${MAX_META_DEPTH} deep (at character ${i}); Phasor reads up to ${MAX_META_DEPTH} levels`,
        );
      }
      inArray[depth] = c === OPEN_ARRAY ? 1 : 0;
      if (c === OPEN_ARRAY) {
        let j = i + 1;
        while (j < text.length && isSpace(text.charCodeAt(j))) j++;
        if (j < text.length && text.charCodeAt(j) !== CLOSE_ARRAY) values++;
      }
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      if (depth > 0) depth--;
    } else if (c === COLON || (c === COMMA && inArray[depth] === 1)) {
      values++;
    } else continue;
    if (values > MAX_META_VALUES) {
      throw new CorruptFileError(
        metaPath,
        `SigMF metadata holds more than ${MAX_META_VALUES.toLocaleString('en-US')} values (annotations, fields, array items); Phasor reads up to that many`,
      );
    }
  }
}

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
  checkShape(text, metaPath);
  let json: unknown;
  try {
    json = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    // V8's message quotes the text around the error: escaped and cut, it stays one short line
    const why = err instanceof Error ? err.message : String(err);
    throw new CorruptFileError(
      metaPath,
      `malformed SigMF metadata: not valid JSON (${oneLine(why, 200)})`,
      err,
    );
  }
  const parsed = metaSchema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 3)
      .map((i) => `${issuePath(i.path) || 'document'}: ${i.message}`)
      .join('; ');
    throw new CorruptFileError(metaPath, `invalid SigMF metadata: ${issues}`);
  }
  const bad = badAnnotation(parsed.data.annotations ?? []);
  if (bad >= 0)
    throw new CorruptFileError(metaPath, `invalid SigMF metadata: annotations[${bad}]: expected object`);
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
        `core:datatype ${quote(datatype)} needs a byte order suffix (_le or _be)`,
      );
    }
    throw new UnsupportedFormatError(
      metaPath,
      `core:datatype ${quote(datatype)} is not supported; Phasor reads (c|r)(f64|f32|i32|i16|i8|u32|u16|u8)(_le|_be)`,
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
