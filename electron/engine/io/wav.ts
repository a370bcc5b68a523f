// WAV / RF64 / BW64 header parsing. Only the header is read here (chunk headers, fmt, ds64); samples are
// read later, block by block, by FileSampleSource.
//
// References: Microsoft "Multimedia Programming Interface and Data Specifications 1.0" (RIFF, fmt, data,
// pad byte after odd chunks), "WAVEFORMATEXTENSIBLE" (sub-format GUIDs, validBitsPerSample), EBU Tech 3306
// (RF64: ds64 chunk with 64-bit sizes, 0xFFFFFFFF in the 32-bit fields), ITU-R BS.2088 (BW64, same layout).

import type { FileHandle } from 'node:fs/promises';
import { CorruptFileError, UnsupportedFormatError } from '../errors.js';
import type { SampleEncoding } from './encoding.js';
import { fourccText, isPrintableFourcc, percentText, readAt } from './file.js';

export const WAVE_FORMAT_PCM = 0x0001;
export const WAVE_FORMAT_IEEE_FLOAT = 0x0003;
export const WAVE_FORMAT_EXTENSIBLE = 0xfffe;

/** Bytes 2…15 of the KSDATAFORMAT_SUBTYPE_* GUIDs (bytes 0…1 hold the format code). */
export const SUBFORMAT_GUID_TAIL = Uint8Array.from([
  0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xaa, 0x00, 0x38, 0x9b, 0x71,
]);
/** Same for the Ambisonic B-format sub-formats (PCM or float samples too). */
const AMBISONIC_GUID_TAIL = Uint8Array.from([
  0x00, 0x00, 0x21, 0x07, 0xd3, 0x11, 0x86, 0x44, 0xc8, 0xc1, 0xca, 0x00, 0x00, 0x00,
]);

const CODEC_NAMES: Readonly<Record<number, string>> = {
  0x0000: 'unknown codec',
  0x0002: 'Microsoft ADPCM',
  0x0006: 'A-law',
  0x0007: 'µ-law',
  0x0010: 'OKI ADPCM',
  0x0011: 'IMA ADPCM',
  0x0022: 'TrueSpeech',
  0x0031: 'GSM 6.10',
  0x0040: 'G.721 ADPCM',
  0x0050: 'MPEG',
  0x0055: 'MPEG Layer 3 (MP3)',
  0x0092: 'Dolby AC-3 (S/PDIF)',
  0x00ff: 'AAC',
  0x0160: 'WMA v1',
  0x0161: 'WMA',
  0x0162: 'WMA Pro',
  0x0163: 'WMA Lossless',
  0x1610: 'HE-AAC',
  0x2000: 'AC-3',
  0x2001: 'DTS',
  0x674f: 'Vorbis',
  0xf1ac: 'FLAC',
};

/** Chunks scanned before giving up: a real file has a handful, a damaged one may look like millions. */
const MAX_CHUNKS = 10000;
const UNKNOWN = -1;

export interface ParsedWav {
  readonly container: 'wav' | 'rf64';
  readonly sampleRate: number;
  readonly channels: number;
  readonly stored: SampleEncoding;
  /** validBitsPerSample of WAVE_FORMAT_EXTENSIBLE, when smaller than the container. */
  readonly validBits?: number;
  readonly dataOffset: number;
  readonly frames: number;
  readonly promisedFrames?: number;
  readonly warnings: string[];
}

interface Fmt {
  tag: number;
  channels: number;
  sampleRate: number;
  blockAlign: number;
  bits: number;
  validBits?: number;
  extensible: boolean;
}

interface Ds64 {
  dataSize: number;
  table: Map<string, number>;
}

function ascii(b: Uint8Array, at: number, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += String.fromCharCode(b[at + i]);
  return s;
}

/** Unsigned 64-bit little-endian as a number; UNKNOWN above 2^53 (no real file is that big). */
function u64(dv: DataView, at: number): number {
  const lo = dv.getUint32(at, true);
  const hi = dv.getUint32(at + 4, true);
  if (hi >= 0x200000) return UNKNOWN;
  return hi * 0x100000000 + lo;
}

function codecName(tag: number): string {
  const name = CODEC_NAMES[tag];
  return name === undefined
    ? `unsupported WAV codec: format 0x${tag.toString(16).padStart(4, '0')}`
    : `unsupported WAV codec: ${name} (format ${tag})`;
}

function sameBytes(a: Uint8Array, at: number, b: Uint8Array): boolean {
  for (let i = 0; i < b.length; i++) if (a[at + i] !== b[i]) return false;
  return true;
}

async function parseDs64(handle: FileHandle, path: string, body: number, csize: number): Promise<Ds64> {
  if (csize < 28) throw new CorruptFileError(path, `ds64 chunk is too short (${csize} bytes; 28 needed)`);
  const b = await readAt(handle, path, body, Math.min(csize, 28 + 12 * 1024));
  if (b.length < 28) throw new CorruptFileError(path, 'the file ends inside its ds64 chunk');
  const dv = new DataView(b.buffer, b.byteOffset, b.length);
  const dataSize = u64(dv, 8);
  const tableLength = dv.getUint32(24, true);
  const table = new Map<string, number>();
  for (let i = 0; i < tableLength && 28 + 12 * i + 12 <= b.length; i++) {
    const at = 28 + 12 * i;
    const size = u64(dv, at + 4);
    if (size !== UNKNOWN) table.set(ascii(b, at, 4), size);
  }
  return { dataSize, table };
}

async function parseFmt(handle: FileHandle, path: string, body: number, csize: number): Promise<Fmt> {
  if (csize < 16)
    throw new CorruptFileError(path, `fmt chunk is too short (${csize} bytes; at least 16 needed)`);
  const b = await readAt(handle, path, body, Math.min(csize, 40));
  if (b.length < Math.min(csize, 40)) throw new CorruptFileError(path, 'the file ends inside its fmt chunk');
  const dv = new DataView(b.buffer, b.byteOffset, b.length);
  let tag = dv.getUint16(0, true);
  const channels = dv.getUint16(2, true);
  const sampleRate = dv.getUint32(4, true);
  const blockAlign = dv.getUint16(12, true);
  const bits = dv.getUint16(14, true);
  let validBits: number | undefined;
  const extensible = tag === WAVE_FORMAT_EXTENSIBLE;
  if (extensible) {
    if (b.length < 40) {
      throw new CorruptFileError(
        path,
        `WAVE_FORMAT_EXTENSIBLE fmt chunk is too short (${csize} bytes; 40 needed)`,
      );
    }
    validBits = dv.getUint16(18, true);
    const sub = dv.getUint16(24, true);
    if (!sameBytes(b, 26, SUBFORMAT_GUID_TAIL) && !sameBytes(b, 26, AMBISONIC_GUID_TAIL)) {
      throw new UnsupportedFormatError(
        path,
        `unsupported WAV codec: unknown WAVE_FORMAT_EXTENSIBLE sub-format GUID`,
      );
    }
    tag = sub;
  }
  return { tag, channels, sampleRate, blockAlign, bits, validBits, extensible };
}

function encodingFromFmt(path: string, fmt: Fmt): SampleEncoding {
  const extensible = fmt.extensible;
  if (fmt.tag !== WAVE_FORMAT_PCM && fmt.tag !== WAVE_FORMAT_IEEE_FLOAT) {
    throw new UnsupportedFormatError(path, `${codecName(fmt.tag)}; convert it to PCM`);
  }
  if (fmt.channels === 0) throw new CorruptFileError(path, 'the WAV header says 0 channels');
  if (fmt.sampleRate === 0) throw new CorruptFileError(path, 'the WAV header says a sample rate of 0 Hz');
  if (fmt.bits === 0) throw new CorruptFileError(path, 'the WAV header says 0 bits per sample');
  let containerBits: number;
  if (fmt.tag === WAVE_FORMAT_IEEE_FLOAT) {
    if (fmt.bits !== 32 && fmt.bits !== 64) {
      throw new UnsupportedFormatError(
        path,
        `${fmt.bits}-bit float WAV is not supported (32 or 64 bits are)`,
      );
    }
    containerBits = fmt.bits;
  } else {
    // Extensible: wBitsPerSample is the container; plain PCM: samples are left-justified in whole bytes.
    containerBits = extensible ? fmt.bits : Math.ceil(fmt.bits / 8) * 8;
    if (extensible && fmt.bits % 8 !== 0) {
      throw new CorruptFileError(
        path,
        `WAVE_FORMAT_EXTENSIBLE container of ${fmt.bits} bits is not a whole number of bytes`,
      );
    }
    if (containerBits !== 8 && containerBits !== 16 && containerBits !== 24 && containerBits !== 32) {
      throw new UnsupportedFormatError(
        path,
        `${fmt.bits}-bit PCM WAV is not supported (8, 16, 24 or 32 bits are)`,
      );
    }
  }
  if (fmt.validBits !== undefined && fmt.validBits > containerBits) {
    throw new CorruptFileError(
      path,
      `validBitsPerSample (${fmt.validBits}) is larger than the ${containerBits}-bit sample container`,
    );
  }
  const expected = (fmt.channels * containerBits) / 8;
  if (fmt.blockAlign !== expected) {
    throw new CorruptFileError(
      path,
      `block align is ${fmt.blockAlign} bytes but ${fmt.channels} channel(s) × ${containerBits} bits need ${expected}`,
    );
  }
  return {
    complex: false,
    kind: fmt.tag === WAVE_FORMAT_IEEE_FLOAT ? 'f' : containerBits === 8 ? 'u' : 'i',
    bits: containerBits as SampleEncoding['bits'],
    littleEndian: true,
  };
}

/** Parses the header of a RIFF/RF64/BW64 WAVE file of `size` bytes. */
export async function parseWav(handle: FileHandle, path: string, size: number): Promise<ParsedWav> {
  if (size === 0) throw new CorruptFileError(path, 'empty file (0 bytes)');
  const head = await readAt(handle, path, 0, 12);
  if (head.length < 12) throw new CorruptFileError(path, `too short to be a WAV file (${size} bytes)`);
  const magic = ascii(head, 0, 4);
  if (magic !== 'RIFF' && magic !== 'RF64' && magic !== 'BW64') {
    throw new CorruptFileError(
      path,
      `not a WAV file: it starts with ${fourccText(head)} where a WAV file has 'RIFF'`,
    );
  }
  if (ascii(head, 8, 4) !== 'WAVE') {
    throw new CorruptFileError(
      path,
      `not a WAV file: its RIFF form type is ${fourccText(head, 8)}, not 'WAVE'`,
    );
  }
  const rf64 = magic !== 'RIFF';
  const warnings: string[] = [];
  let ds64: Ds64 | undefined;
  let fmt: Fmt | undefined;
  let dataOffset = UNKNOWN;
  let dataSize = UNKNOWN; // UNKNOWN: written by a stream, read to the end of the file
  let endedInsideChunk = false;
  let pos = 12;
  for (let n = 0; ; n++) {
    if (n >= MAX_CHUNKS)
      throw new CorruptFileError(path, `more than ${MAX_CHUNKS} chunks before the samples`);
    if (pos + 8 > size) {
      endedInsideChunk = pos < size;
      break;
    }
    const h = await readAt(handle, path, pos, 8);
    if (h.length < 8) break;
    const id = ascii(h, 0, 4);
    const size32 = new DataView(h.buffer, h.byteOffset, 8).getUint32(4, true);
    const body = pos + 8;
    let csize = size32;
    if (rf64 && size32 === 0xffffffff) {
      if (id === 'data') csize = ds64 === undefined ? UNKNOWN : ds64.dataSize;
      else {
        const fromTable = ds64?.table.get(id);
        if (fromTable === undefined) {
          throw new CorruptFileError(
            path,
            `chunk ${fourccText(h)} has a 64-bit size that the ds64 chunk does not give`,
          );
        }
        csize = fromTable;
      }
    }
    if (id === 'ds64' && rf64 && ds64 === undefined) {
      ds64 = await parseDs64(handle, path, body, csize);
    } else if (id === 'fmt ' && fmt === undefined) {
      fmt = await parseFmt(handle, path, body, csize);
    } else if (id === 'data') {
      dataOffset = body;
      if (!rf64 && size32 === 0xffffffff) csize = UNKNOWN;
      else if (csize === 0 && body < size && !(await looksLikeChunk(handle, path, body, size)))
        csize = UNKNOWN;
      dataSize = csize;
      if (csize === UNKNOWN || fmt !== undefined) break;
    }
    let next = body + csize;
    // Odd chunks are followed by a pad byte; some writers forget it, so keep the unpadded position when
    // only that one holds a plausible chunk header.
    if (
      csize % 2 === 1 &&
      !(
        next + 9 <= size &&
        !(await looksLikeChunk(handle, path, next + 1, size)) &&
        (await looksLikeChunk(handle, path, next, size))
      )
    ) {
      next += 1;
    }
    pos = next;
  }
  if (fmt === undefined) {
    throw new CorruptFileError(
      path,
      dataOffset === UNKNOWN
        ? `no fmt chunk and no data chunk: not a usable WAV file${endedInsideChunk || pos > size ? ' (it looks truncated)' : ''}`
        : 'no fmt chunk: the WAV format description is missing',
    );
  }
  if (dataOffset === UNKNOWN) {
    throw new CorruptFileError(
      path,
      `no data chunk: the WAV file holds no samples${endedInsideChunk || pos > size ? ' (it looks truncated)' : ''}`,
    );
  }
  const stored = encodingFromFmt(path, fmt);
  const blockAlign = fmt.blockAlign;
  const available = Math.max(0, size - dataOffset);
  let frames: number;
  let promisedFrames: number | undefined;
  if (dataSize === UNKNOWN) {
    frames = Math.floor(available / blockAlign);
    warnings.push(
      `the data chunk's size is not set (a recording that did not finish, or a WAV written to a pipe): reading the ${frames} frames up to the end of the file`,
    );
  } else {
    const promised = Math.floor(dataSize / blockAlign);
    frames = Math.floor(Math.min(dataSize, available) / blockAlign);
    if (frames < promised) {
      promisedFrames = promised;
      warnings.push(truncationMessage(promised, frames));
    }
  }
  return {
    container: rf64 ? 'rf64' : 'wav',
    sampleRate: fmt.sampleRate,
    channels: fmt.channels,
    stored,
    validBits:
      fmt.validBits !== undefined && fmt.validBits < stored.bits && fmt.validBits > 0
        ? fmt.validBits
        : undefined,
    dataOffset,
    frames,
    promisedFrames,
    warnings,
  };
}

export function truncationMessage(promised: number, present: number): string {
  return `truncated: header promises ${promised} frames, file holds ${present} (${percentText(promised - present, promised)} missing)`;
}

/** A plausible chunk header at `at`: a printable fourcc and a size that fits in the file. */
async function looksLikeChunk(handle: FileHandle, path: string, at: number, size: number): Promise<boolean> {
  const h = await readAt(handle, path, at, 8);
  if (h.length < 8 || !isPrintableFourcc(h, 0)) return false;
  const csize = new DataView(h.buffer, h.byteOffset, 8).getUint32(4, true);
  return at + 8 + csize <= size;
}
