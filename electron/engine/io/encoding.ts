// Sample encodings in SigMF's spelling ('ci16_le', 'rf32_le', 'cu8'…) and their conversion to and from
// float32. One formula everywhere: value = (stored - offset) × scale.
//
// Conventions (see the brief of issue 2): signed integers divide by 2^(bits-1); WAV 8-bit PCM is unsigned
// with zero at 128; SigMF/rtl_sdr unsigned 8-bit centres on 127.5; wider unsigned types centre on
// 2^(bits-1); floats pass through.

import { endianness } from 'node:os';

export type SampleKind = 'f' | 'i' | 'u';

export interface SampleEncoding {
  readonly complex: boolean;
  readonly kind: SampleKind;
  /** Bits per stored value: 8, 16, 24 (integers only, WAV), 32 or 64 (floats only). */
  readonly bits: 8 | 16 | 24 | 32 | 64;
  /** Byte order; meaningless (true) for 8-bit types. */
  readonly littleEndian: boolean;
}

/** Whose convention an unsigned 8-bit value follows: WAV (zero at 128) or SigMF/rtl_sdr (zero at 127.5). */
export type U8Convention = 'wav' | 'sigmf';

export interface Quantization {
  readonly offset: number;
  readonly scale: number;
}

export const HOST_LITTLE_ENDIAN = endianness() === 'LE';

const ENCODING_RE = /^([cr])?(f64|f32|i32|i24|i16|i8|u32|u16|u8)(?:_(le|be))?$/;

/** Raw IQ names used by rtl_sdr, GNU Radio, SDR++… mapped to SigMF spellings. */
export const RAW_FORMAT_ALIASES: Readonly<Record<string, string>> = {
  cu8: 'cu8',
  cs8: 'ci8',
  cs16: 'ci16_le',
  cs16_le: 'ci16_le',
  cs16_be: 'ci16_be',
  cs32: 'ci32_le',
  cf32: 'cf32_le',
  cf64: 'cf64_le',
  cfile: 'cf32_le',
  fc32: 'cf32_le',
  sc16: 'ci16_le',
};

export type EncodingParseResult =
  { ok: true; encoding: SampleEncoding } | { ok: false; reason: 'syntax' | 'endianness' | 'combination' };

/**
 * Parses a SigMF-style encoding ('ci16_le', 'rf32_be', 'cu8', 'ri24_le'). The c/r prefix may be left out
 * when `defaultComplex` is given. 8-bit types take an optional suffix; wider ones require it unless
 * `defaultLittleEndian` is set.
 */
export function parseEncodingDetailed(
  text: string,
  defaults: { complex?: boolean; littleEndian?: boolean } = {},
): EncodingParseResult {
  const m = ENCODING_RE.exec(text.trim().toLowerCase());
  if (!m) return { ok: false, reason: 'syntax' };
  const [, cr, type, endian] = m;
  if (cr === undefined && defaults.complex === undefined) return { ok: false, reason: 'syntax' };
  const kind = type[0] as SampleKind;
  const bits = Number(type.slice(1)) as SampleEncoding['bits'];
  if (kind === 'f' && bits !== 32 && bits !== 64) return { ok: false, reason: 'combination' };
  if (kind !== 'f' && bits === 64) return { ok: false, reason: 'combination' };
  if (kind === 'u' && bits === 24) return { ok: false, reason: 'combination' };
  let littleEndian = true;
  if (bits > 8) {
    if (endian === undefined) {
      if (defaults.littleEndian === undefined) return { ok: false, reason: 'endianness' };
      littleEndian = defaults.littleEndian;
    } else {
      littleEndian = endian === 'le';
    }
  }
  return {
    ok: true,
    encoding: { complex: cr === undefined ? defaults.complex! : cr === 'c', kind, bits, littleEndian },
  };
}

export function parseEncoding(
  text: string,
  defaults: { complex?: boolean; littleEndian?: boolean } = {},
): SampleEncoding | undefined {
  const r = parseEncodingDetailed(text, defaults);
  return r.ok ? r.encoding : undefined;
}

/** SigMF spelling: 'ci16_le', 'rf32_le', 'cu8'. */
export function encodingName(e: SampleEncoding): string {
  const base = `${e.complex ? 'c' : 'r'}${e.kind}${e.bits}`;
  return e.bits === 8 ? base : `${base}_${e.littleEndian ? 'le' : 'be'}`;
}

export function bytesPerValue(e: SampleEncoding): number {
  return e.bits / 8;
}

export function quantization(e: SampleEncoding, u8: U8Convention): Quantization {
  if (e.kind === 'f') return { offset: 0, scale: 1 };
  const half = 2 ** (e.bits - 1);
  if (e.kind === 'i') return { offset: 0, scale: 1 / half };
  if (e.bits === 8 && u8 === 'sigmf') return { offset: 127.5, scale: 1 / 127.5 };
  return { offset: half, scale: 1 / half };
}

/** Reverses byte order of every `width`-byte value in place. */
export function swapBytes(b: Uint8Array, width: number, byteLength: number): void {
  if (width === 2) {
    for (let i = 0; i + 1 < byteLength; i += 2) {
      const t = b[i];
      b[i] = b[i + 1];
      b[i + 1] = t;
    }
  } else if (width === 4) {
    for (let i = 0; i + 3 < byteLength; i += 4) {
      let t = b[i];
      b[i] = b[i + 3];
      b[i + 3] = t;
      t = b[i + 1];
      b[i + 1] = b[i + 2];
      b[i + 2] = t;
    }
  } else if (width === 8) {
    for (let i = 0; i + 7 < byteLength; i += 8) {
      for (let k = 0; k < 4; k++) {
        const t = b[i + k];
        b[i + k] = b[i + 7 - k];
        b[i + 7 - k] = t;
      }
    }
  }
}

/** True when the stored byte order differs from the host's (the bytes must be swapped before viewing). */
export function needsSwap(e: SampleEncoding): boolean {
  return e.bits > 8 && e.bits !== 24 && e.littleEndian !== HOST_LITTLE_ENDIAN;
}

/**
 * Decodes `count` values stored at the start of `bytes` (which must start at byte offset 0 of its
 * ArrayBuffer, so typed views are aligned) into `out`. May swap `bytes` in place.
 */
export function decodeValues(
  bytes: Uint8Array,
  count: number,
  e: SampleEncoding,
  q: Quantization,
  out: Float32Array,
): void {
  const width = e.bits / 8;
  if (needsSwap(e)) swapBytes(bytes, width, count * width);
  const buf = bytes.buffer;
  const off = bytes.byteOffset;
  const { offset, scale } = q;
  if (e.kind === 'f') {
    if (e.bits === 32) out.set(new Float32Array(buf, off, count));
    else {
      const src = new Float64Array(buf, off, count);
      for (let i = 0; i < count; i++) out[i] = src[i];
    }
    return;
  }
  if (e.bits === 24) {
    const b = bytes;
    if (e.littleEndian) {
      for (let i = 0, j = 0; i < count; i++, j += 3) {
        out[i] = ((((b[j] | (b[j + 1] << 8) | (b[j + 2] << 16)) << 8) >> 8) - offset) * scale;
      }
    } else {
      for (let i = 0, j = 0; i < count; i++, j += 3) {
        out[i] = (((((b[j] << 16) | (b[j + 1] << 8) | b[j + 2]) << 8) >> 8) - offset) * scale;
      }
    }
    return;
  }
  let src: Int8Array | Uint8Array | Int16Array | Uint16Array | Int32Array | Uint32Array;
  if (e.kind === 'i') {
    src =
      e.bits === 8
        ? new Int8Array(buf, off, count)
        : e.bits === 16
          ? new Int16Array(buf, off, count)
          : new Int32Array(buf, off, count);
  } else {
    src =
      e.bits === 8
        ? new Uint8Array(buf, off, count)
        : e.bits === 16
          ? new Uint16Array(buf, off, count)
          : new Uint32Array(buf, off, count);
  }
  for (let i = 0; i < count; i++) out[i] = (src[i] - offset) * scale;
}

/**
 * Encodes `count` floats from `src[srcStart…]` into `bytes` (aligned for the value width) in the stored
 * byte order. Integers round to nearest and clip to their range; returns how many values clipped (NaN
 * counts as clipped and is written as zero).
 */
export function encodeValues(
  src: Float32Array,
  srcStart: number,
  count: number,
  e: SampleEncoding,
  q: Quantization,
  bytes: Uint8Array,
): number {
  const buf = bytes.buffer;
  const off = bytes.byteOffset;
  let clipped = 0;
  if (e.kind === 'f') {
    if (e.bits === 32) new Float32Array(buf, off, count).set(src.subarray(srcStart, srcStart + count));
    else {
      const dst = new Float64Array(buf, off, count);
      for (let i = 0; i < count; i++) dst[i] = src[srcStart + i];
    }
  } else {
    const k = 1 / q.scale;
    const o = q.offset;
    let min: number;
    let max: number;
    if (e.kind === 'i') {
      max = 2 ** (e.bits - 1) - 1;
      min = -max - 1;
    } else {
      min = 0;
      max = 2 ** e.bits - 1;
    }
    const zero = Math.round(o);
    if (e.bits === 24) {
      const b = bytes;
      for (let i = 0, j = 0; i < count; i++, j += 3) {
        let r = Math.round(src[srcStart + i] * k + o);
        if (r > max) {
          r = max;
          clipped++;
        } else if (r < min) {
          r = min;
          clipped++;
        } else if (r !== r) {
          r = zero;
          clipped++;
        }
        if (e.littleEndian) {
          b[j] = r & 0xff;
          b[j + 1] = (r >> 8) & 0xff;
          b[j + 2] = (r >> 16) & 0xff;
        } else {
          b[j + 2] = r & 0xff;
          b[j + 1] = (r >> 8) & 0xff;
          b[j] = (r >> 16) & 0xff;
        }
      }
      return clipped;
    }
    let dst: Int8Array | Uint8Array | Int16Array | Uint16Array | Int32Array | Uint32Array;
    if (e.kind === 'i') {
      dst =
        e.bits === 8
          ? new Int8Array(buf, off, count)
          : e.bits === 16
            ? new Int16Array(buf, off, count)
            : new Int32Array(buf, off, count);
    } else {
      dst =
        e.bits === 8
          ? new Uint8Array(buf, off, count)
          : e.bits === 16
            ? new Uint16Array(buf, off, count)
            : new Uint32Array(buf, off, count);
    }
    for (let i = 0; i < count; i++) {
      let r = Math.round(src[srcStart + i] * k + o);
      if (r > max) {
        r = max;
        clipped++;
      } else if (r < min) {
        r = min;
        clipped++;
      } else if (r !== r) {
        r = zero;
        clipped++;
      }
      dst[i] = r;
    }
  }
  if (needsSwap(e)) swapBytes(bytes, e.bits / 8, count * (e.bits / 8));
  return clipped;
}
