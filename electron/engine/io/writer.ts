// Writers for WAV (RF64 past 4 GiB) and SigMF. Samples stream through a fixed staging buffer to a
// temporary file beside the target, renamed into place on commit(); abort() or any error removes it.
//
//   const w = await createWriter('out.wav', { format, encoding: 'ri16_le' });
//   for await (const block of source.blocks()) await w.write(block.data as Float32Array);
//   await w.commit();           // or w.abort() on cancel; w.clipped counts clipped integer samples

import { constants } from 'node:fs';
import { copyFile, link, rename, rm } from 'node:fs/promises';
import { extname } from 'node:path';
import { CancelledError, InvalidArgumentError, ioError } from '../errors.js';
import type { SigmfMetadata } from '../sources/source.js';
import { valuesPerFrame, type StreamFormat } from '../types.js';
import {
  HOST_LITTLE_ENDIAN,
  RAW_FORMAT_ALIASES,
  encodeValues,
  encodingName,
  parseEncoding,
  quantization,
  type Quantization,
  type SampleEncoding,
} from './encoding.js';
import { SIGMF_VERSION, sigmfPair } from './sigmf.js';
import { wrapOsError } from './file.js';
import { StreamHash } from './hasher.js';
import { TemporaryFile, hiddenName } from './temporary.js';
import {
  SUBFORMAT_GUID_TAIL,
  WAVE_FORMAT_EXTENSIBLE,
  WAVE_FORMAT_IEEE_FLOAT,
  WAVE_FORMAT_PCM,
} from './wav.js';

export interface WriterOptions {
  format: StreamFormat;
  /** SigMF spelling: 'ri16_le', 'rf32_le', 'ci16_le', 'cf32_le', 'ri24_le', 'ru8'… (the c/r prefix follows
   * format.complex; raw names such as 'cs16' are accepted too). */
  encoding: string;
  /** The input's SigMF metadata, carried over into a SigMF output. */
  sigmf?: SigmfMetadata;
  /** What Phasor did, recorded in a SigMF output as global 'phasor:applied'. */
  applied?: Record<string, unknown>;
  /** Record the SHA-512 of a SigMF output's data as core:sha512 (optional in SigMF). It is computed on a
   * helper thread at about 0.5 GB/s, which is slower than a GPU job: off by default. */
  checksum?: boolean;
  /** Flush the output to the disk before renaming it into place (default true; TemporaryOptions.durable). */
  durable?: boolean;
  /** Largest value a 32-bit RIFF size may take before the WAV becomes RF64. Tests lower it. */
  rf64Threshold?: number;
}

export interface SampleWriter {
  /** The file to open afterwards (a SigMF output: its .sigmf-meta). */
  readonly path: string;
  /** Every file commit() puts in place (SigMF: data then meta). */
  readonly paths: readonly string[];
  readonly framesWritten: number;
  /** Integer samples rounded to the nearest end of their range (NaN counts, written as zero). */
  readonly clipped: number;
  /** Appends whole frames of interleaved values; await each call before the next. */
  write(interleaved: Float32Array): Promise<void>;
  /** Finishes the file and renames it into place. */
  commit(): Promise<void>;
  /** Removes the temporaries; nothing appears under the final name. Safe to call more than once. */
  abort(): Promise<void>;
}

export type OutputContainer = 'wav' | 'sigmf';

/** The container a path's extension asks for, or undefined. */
export function outputContainer(path: string): OutputContainer | undefined {
  const ext = extname(path).toLowerCase();
  if (ext === '.wav' || ext === '.wave') return 'wav';
  if (ext === '.sigmf-data' || ext === '.sigmf-meta' || ext === '.sigmf') return 'sigmf';
  return undefined;
}

function parseOutputEncoding(text: string, complex: boolean): SampleEncoding | undefined {
  const key = text.trim().toLowerCase();
  const alias = RAW_FORMAT_ALIASES[key];
  const e = parseEncoding(alias ?? key, { complex, littleEndian: true });
  return e === undefined ? undefined : { ...e, complex };
}

function wavCanHold(e: SampleEncoding): boolean {
  if (e.bits > 8 && !e.littleEndian) return false;
  if (e.kind === 'f') return true;
  if (e.kind === 'u') return e.bits === 8;
  return e.bits >= 16;
}

/**
 * The output encoding for an input encoding: the input's own when the container holds it, else the
 * nearest one that does (WAV: little-endian, 8-bit unsigned, 16/24/32-bit signed or float; SigMF: no
 * 24-bit). A complex WAV stores I and Q as two channels.
 */
export function defaultOutputEncoding(
  inputEncoding: string,
  container: OutputContainer,
  complex: boolean,
): string {
  const e = parseOutputEncoding(inputEncoding, complex);
  if (e === undefined) {
    throw new InvalidArgumentError(
      `unknown sample encoding '${inputEncoding}' (expected a SigMF spelling such as ri16_le)`,
    );
  }
  if (container === 'sigmf') {
    return encodingName(e.bits === 24 ? { ...e, bits: 32 } : e);
  }
  if (e.kind === 'f') return encodingName({ ...e, littleEndian: true });
  if (e.bits === 8) return encodingName({ ...e, kind: 'u', littleEndian: true });
  return encodingName({ ...e, kind: 'i', littleEndian: true });
}

function checkFormat(format: StreamFormat): void {
  const { sampleRate, channels, complex } = format ?? ({} as StreamFormat);
  if (typeof sampleRate !== 'number' || !Number.isFinite(sampleRate) || sampleRate <= 0) {
    throw new InvalidArgumentError(
      `the output sample rate must be a positive number of Hz, got ${sampleRate}`,
    );
  }
  if (!Number.isSafeInteger(channels) || channels < 1) {
    throw new InvalidArgumentError(`the output channel count must be a whole number ≥ 1, got ${channels}`);
  }
  if (typeof complex !== 'boolean')
    throw new InvalidArgumentError('the output format must say whether it is complex');
  const cf = format.centerFrequency;
  if (cf !== undefined && !Number.isFinite(cf)) {
    throw new InvalidArgumentError(`the output centre frequency must be a finite number of Hz, got ${cf}`);
  }
}

/** The files a writer for `path` puts in place: a SigMF output's data and metadata, else `path`. */
export function writerPaths(path: string): string[] {
  if (outputContainer(path) !== 'sigmf') return [path];
  const { meta, data } = sigmfPair(path);
  return [data, meta];
}

/** Creates a writer for `path` (.wav → WAV/RF64; .sigmf-data, .sigmf-meta or .sigmf → a SigMF pair). */
export async function createWriter(path: string, options: WriterOptions): Promise<SampleWriter> {
  const { format } = options;
  checkFormat(format);
  const container = outputContainer(path);
  if (container === undefined) {
    throw new InvalidArgumentError(
      `${path}: cannot tell the output format from the extension; use .wav, .sigmf-meta, .sigmf-data or .sigmf`,
    );
  }
  const enc = parseOutputEncoding(String(options.encoding), format.complex);
  if (enc === undefined) {
    throw new InvalidArgumentError(
      `unknown output encoding '${options.encoding}'; use a SigMF spelling such as ri16_le, ri24_le, ri32_le, rf32_le, rf64_le, ru8 (ci…/cf… for complex)`,
    );
  }
  if (container === 'wav') {
    if (!wavCanHold(enc)) {
      throw new InvalidArgumentError(
        `WAV cannot hold ${encodingName(enc)}; use ${defaultOutputEncoding(encodingName(enc), 'wav', format.complex)}`,
      );
    }
    const wavChannels = format.channels * (format.complex ? 2 : 1);
    if (wavChannels * (enc.bits / 8) > 0xffff) {
      throw new InvalidArgumentError(
        `WAV cannot hold ${wavChannels} channels of ${enc.bits} bits (a frame must fit 65535 bytes)`,
      );
    }
    if (!Number.isInteger(format.sampleRate) || format.sampleRate > 0xffffffff) {
      throw new InvalidArgumentError(
        `WAV stores a whole number of Hz up to 4294967295; ${format.sampleRate} Hz is not one (write SigMF instead)`,
      );
    }
    const tmp = await TemporaryFile.create(path, { durable: options.durable ?? true });
    const w = new WavWriter(path, tmp, format, enc, options.rf64Threshold ?? 0xffffffff);
    await w.start();
    return w;
  }
  if (enc.bits === 24) {
    throw new InvalidArgumentError(
      `SigMF has no 24-bit datatype; use ${defaultOutputEncoding(encodingName(enc), 'sigmf', format.complex)}`,
    );
  }
  const { meta, data } = sigmfPair(path);
  const tmp = await TemporaryFile.create(data, { durable: options.durable ?? true });
  return new SigmfWriter(
    meta,
    data,
    tmp,
    format,
    enc,
    options.sigmf,
    options.applied,
    options.checksum === true,
  );
}

/**
 * A WAV header for `dataBytes` of samples (`frames` frames): RIFF + JUNK (room for a ds64) + fmt + data, so
 * the same bytes can be rewritten in place once the sizes are known. `sizes`: 'final' writes them (RF64 with
 * a ds64 past `threshold`); 'unset' writes 0xFFFFFFFF, which readers take as "to the end of the file" (a
 * recording in progress, a WAV written to a pipe); 'zero' writes 0 (a temporary file).
 */
export function wavHeader(
  format: StreamFormat,
  enc: SampleEncoding,
  dataBytes: number,
  frames: number,
  options: { sizes: 'final' | 'unset' | 'zero'; threshold?: number },
): Uint8Array {
  const final = options.sizes === 'final';
  const unset = options.sizes === 'unset' ? 0xffffffff : 0;
  const threshold = options.threshold ?? 0xffffffff;
  const channels = format.channels * (format.complex ? 2 : 1);
  const bytes = enc.bits / 8;
  const float = enc.kind === 'f';
  const extensible = channels > 2 || (!float && enc.bits > 16);
  const fmtSize = extensible ? 40 : float ? 18 : 16;
  const length = 12 + 36 + 8 + fmtSize + 8;
  const h = new Uint8Array(length);
  const dv = new DataView(h.buffer);
  const text = (at: number, s: string): void => {
    for (let i = 0; i < 4; i++) h[at + i] = s.charCodeAt(i);
  };
  const u64 = (at: number, v: number): void => {
    dv.setUint32(at, v % 0x100000000, true);
    dv.setUint32(at + 4, Math.floor(v / 0x100000000), true);
  };
  const pad = dataBytes % 2;
  const riffSize = length - 8 + dataBytes + pad;
  const rf64 = final && (riffSize > threshold || dataBytes > threshold);
  text(0, rf64 ? 'RF64' : 'RIFF');
  dv.setUint32(4, rf64 ? 0xffffffff : final ? riffSize : unset, true);
  text(8, 'WAVE');
  text(12, rf64 ? 'ds64' : 'JUNK');
  dv.setUint32(16, 28, true);
  if (rf64) {
    u64(20, riffSize);
    u64(28, dataBytes);
    u64(36, frames);
    dv.setUint32(44, 0, true);
  }
  text(48, 'fmt ');
  dv.setUint32(52, fmtSize, true);
  const f = 56;
  dv.setUint16(
    f,
    extensible ? WAVE_FORMAT_EXTENSIBLE : float ? WAVE_FORMAT_IEEE_FLOAT : WAVE_FORMAT_PCM,
    true,
  );
  dv.setUint16(f + 2, channels, true);
  dv.setUint32(f + 4, format.sampleRate, true);
  dv.setUint32(f + 8, format.sampleRate * channels * bytes, true);
  dv.setUint16(f + 12, channels * bytes, true);
  dv.setUint16(f + 14, enc.bits, true);
  if (fmtSize >= 18) dv.setUint16(f + 16, fmtSize - 18, true);
  if (extensible) {
    dv.setUint16(f + 18, enc.bits, true);
    dv.setUint32(f + 20, channels === 1 ? 0x4 : channels === 2 ? 0x3 : 0, true);
    dv.setUint16(f + 24, float ? WAVE_FORMAT_IEEE_FLOAT : WAVE_FORMAT_PCM, true);
    h.set(SUBFORMAT_GUID_TAIL, f + 26);
  }
  const d = f + fmtSize;
  text(d, 'data');
  dv.setUint32(d + 4, rf64 ? 0xffffffff : final ? dataBytes : unset, true);
  return h;
}

const STAGING_BYTES = 1 << 20;

abstract class EncodingWriter implements SampleWriter {
  abstract readonly path: string;
  abstract readonly paths: readonly string[];
  protected readonly tmp: TemporaryFile;
  protected readonly format: StreamFormat;
  protected readonly enc: SampleEncoding;
  protected dataBytes = 0;
  protected readonly hash: StreamHash | undefined;
  readonly #q: Quantization;
  readonly #vpf: number;
  readonly #staging: Uint8Array;
  readonly #width: number;
  #fill = 0;
  #frames = 0;
  #clipped = 0;
  #busy = false;
  #state: 'open' | 'committed' | 'aborted' = 'open';
  /** float32 values stored as they are in memory: written without the staging copy. */
  readonly #direct: boolean;

  constructor(
    tmp: TemporaryFile,
    format: StreamFormat,
    enc: SampleEncoding,
    u8: 'wav' | 'sigmf',
    hashed: boolean,
  ) {
    this.tmp = tmp;
    this.format = format;
    this.enc = enc;
    this.#q = quantization(enc, u8);
    this.#vpf = valuesPerFrame(format);
    this.#width = enc.bits / 8;
    const frameBytes = this.#vpf * this.#width;
    this.#staging = new Uint8Array(Math.max(frameBytes, Math.floor(STAGING_BYTES / frameBytes) * frameBytes));
    this.hash = hashed ? new StreamHash() : undefined;
    this.#direct = enc.kind === 'f' && enc.bits === 32 && enc.littleEndian === HOST_LITTLE_ENDIAN;
  }

  get framesWritten(): number {
    return this.#frames;
  }
  get clipped(): number {
    return this.#clipped;
  }

  /** Byte offset of the first sample in the data file. */
  protected abstract get dataStart(): number;
  /** Completes headers/metadata and renames the temporaries into place. */
  protected abstract finish(): Promise<void>;
  /** Temporaries besides `tmp` to remove on failure. */
  protected async discardExtra(): Promise<void> {}

  #checkUsable(what: string): void {
    if (this.#state !== 'open') {
      throw new InvalidArgumentError(`${what}: the writer for ${this.path} is already ${this.#state}`);
    }
    if (this.#busy) {
      throw new InvalidArgumentError(
        `${what} called on ${this.path} before the previous call finished; await each call`,
      );
    }
  }

  async write(interleaved: Float32Array): Promise<void> {
    this.#checkUsable('write()');
    if (!(interleaved instanceof Float32Array)) {
      await this.abort();
      throw new InvalidArgumentError(`write() takes a Float32Array of interleaved samples`);
    }
    if (interleaved.length % this.#vpf !== 0) {
      await this.abort();
      throw new InvalidArgumentError(
        `write() takes whole frames: ${interleaved.length} values is not a multiple of ${this.#vpf} values per frame`,
      );
    }
    this.#busy = true;
    try {
      const staging = this.#staging;
      const width = this.#width;
      // Large native float32 blocks go to the file as they are; the rest through the staging buffer.
      const direct = this.#direct && this.#fill === 0 && interleaved.length * 4 >= staging.length;
      if (direct) {
        await this.#store(new Uint8Array(interleaved.buffer, interleaved.byteOffset, interleaved.byteLength));
      }
      for (let i = direct ? interleaved.length : 0; i < interleaved.length;) {
        const n = Math.min((staging.length - this.#fill) / width, interleaved.length - i);
        this.#clipped += encodeValues(interleaved, i, n, this.enc, this.#q, staging.subarray(this.#fill));
        this.#fill += n * width;
        i += n;
        if (this.#fill === staging.length) await this.#flush();
      }
      this.#frames += interleaved.length / this.#vpf;
    } catch (err) {
      this.#busy = false;
      if (this.#state === 'aborted') throw new CancelledError(`writing ${this.path} was aborted`);
      await this.abort();
      throw wrapOsError(this.path, err);
    }
    this.#busy = false;
  }

  async #flush(): Promise<void> {
    if (this.#fill === 0) return;
    await this.#store(this.#staging.subarray(0, this.#fill));
    this.#fill = 0;
  }

  /** Appends encoded bytes to the data (and the checksum); the temporary flushes in the background now and
   * then (TemporaryFile.writeAll). */
  async #store(bytes: Uint8Array): Promise<void> {
    await Promise.all([this.hash?.update(bytes), this.tmp.writeAll(bytes, this.dataStart + this.dataBytes)]);
    this.dataBytes += bytes.length;
  }

  async commit(): Promise<void> {
    this.#checkUsable('commit()');
    this.#busy = true;
    try {
      await this.#flush();
      await this.finish();
      this.#state = 'committed';
    } catch (err) {
      this.#busy = false;
      await this.abort();
      throw wrapOsError(this.path, err);
    }
    this.#busy = false;
  }

  async abort(): Promise<void> {
    if (this.#state !== 'open') return;
    this.#state = 'aborted';
    this.hash?.dispose();
    await this.tmp.discard();
    await this.discardExtra();
  }
}

class WavWriter extends EncodingWriter {
  readonly path: string;
  readonly paths: readonly string[];
  readonly #threshold: number;
  readonly #headerLength: number;

  constructor(
    path: string,
    tmp: TemporaryFile,
    format: StreamFormat,
    enc: SampleEncoding,
    threshold: number,
  ) {
    super(tmp, format, enc, 'wav', false);
    this.path = path;
    this.paths = [path];
    this.#threshold = threshold;
    this.#headerLength = this.#header(false).length;
  }

  protected get dataStart(): number {
    return this.#headerLength;
  }

  async start(): Promise<void> {
    try {
      await this.tmp.writeAll(this.#header(false), 0);
    } catch (err) {
      await this.abort();
      throw wrapOsError(this.path, err);
    }
  }

  #header(final: boolean): Uint8Array {
    return wavHeader(this.format, this.enc, this.dataBytes, this.framesWritten, {
      sizes: final ? 'final' : 'zero',
      threshold: this.#threshold,
    });
  }

  protected async finish(): Promise<void> {
    if (this.dataBytes % 2 === 1) await this.tmp.writeAll(new Uint8Array(1), this.dataStart + this.dataBytes);
    await this.tmp.writeAll(this.#header(true), 0);
    await this.tmp.close();
    await this.tmp.publish();
  }
}

/** Namespace under which Phasor records what it did (declared in core:extensions). */
export const PHASOR_SIGMF_NAMESPACE = { name: 'phasor', version: '1.0.0', optional: true } as const;

class SigmfWriter extends EncodingWriter {
  readonly path: string;
  readonly paths: readonly string[];
  readonly #metaPath: string;
  readonly #dataPath: string;
  readonly #input: SigmfMetadata | undefined;
  readonly #applied: Record<string, unknown> | undefined;
  #metaTmp: TemporaryFile | undefined;
  /** The data file that stood under the output's name, while the pair is committed. */
  #aside: string | undefined;
  #dataPublished = false;

  constructor(
    metaPath: string,
    dataPath: string,
    tmp: TemporaryFile,
    format: StreamFormat,
    enc: SampleEncoding,
    input: SigmfMetadata | undefined,
    applied: Record<string, unknown> | undefined,
    checksum: boolean,
  ) {
    super(tmp, format, enc, 'sigmf', checksum);
    this.path = metaPath;
    this.paths = [dataPath, metaPath];
    this.#metaPath = metaPath;
    this.#dataPath = dataPath;
    this.#input = input;
    this.#applied = applied;
  }

  protected get dataStart(): number {
    return 0;
  }

  protected async finish(): Promise<void> {
    const sha512 = await this.hash?.digest();
    const text = JSON.stringify(
      buildSigmfMetadata(this.#input, this.format, encodingName(this.enc), sha512, this.#applied),
      null,
      2,
    );
    await this.tmp.close();
    this.#metaTmp = await TemporaryFile.create(this.#metaPath, { durable: this.tmp.durable });
    await this.#metaTmp.writeAll(new TextEncoder().encode(text + '\n'), 0);
    await this.#metaTmp.close();
    // The pair goes in place as two renames: the data file that stood there is kept aside until the
    // metadata is in place too, so a failure between them puts it back.
    this.#aside = await keepAside(this.#dataPath);
    await this.tmp.publish();
    this.#dataPublished = true;
    await this.#metaTmp.publish();
    if (this.#aside !== undefined) await rm(this.#aside, { force: true }).catch(() => undefined);
  }

  protected override async discardExtra(): Promise<void> {
    await this.#metaTmp?.discard();
    const aside = this.#aside;
    // Data without its metadata is not a recording: put back what stood there, or nothing.
    if (this.#dataPublished) {
      if (aside !== undefined) await rename(aside, this.#dataPath).catch(() => undefined);
      else await rm(this.#dataPath, { force: true }).catch(() => undefined);
    } else if (aside !== undefined) {
      await rm(aside, { force: true }).catch(() => undefined);
    }
  }
}

/**
 * A second name (hard link, else a copy) beside `path` for the file standing there, to put back if a
 * commit fails after replacing it; undefined when there is none. Hidden, ending in `.old`.
 */
async function keepAside(path: string): Promise<string | undefined> {
  const aside = hiddenName(path, '.old');
  try {
    await link(path, aside);
    return aside;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
  }
  try {
    await copyFile(path, aside, constants.COPYFILE_FICLONE | constants.COPYFILE_EXCL);
    return aside;
  } catch (err) {
    await rm(aside, { force: true }).catch(() => undefined);
    throw ioError(path, err);
  }
}

/** The metadata of a written SigMF recording: the input's, adjusted to what was written. */
export function buildSigmfMetadata(
  input: SigmfMetadata | undefined,
  format: StreamFormat,
  datatype: string,
  sha512: string | undefined,
  applied: Record<string, unknown> | undefined,
): {
  global: Record<string, unknown>;
  captures: Array<Record<string, unknown>>;
  annotations: Array<Record<string, unknown>>;
} {
  const global: Record<string, unknown> = {
    'core:datatype': datatype,
    'core:sample_rate': format.sampleRate,
    'core:version': SIGMF_VERSION,
    'core:num_channels': format.channels,
  };
  for (const [k, v] of Object.entries(input?.global ?? {})) {
    if (k in global) continue;
    // Fields that described the old data file no longer hold.
    if (
      k === 'core:sha512' ||
      k === 'core:metadata_only' ||
      k === 'core:dataset' ||
      k === 'core:trailing_bytes'
    )
      continue;
    global[k] = v;
  }
  if (sha512 !== undefined) global['core:sha512'] = sha512;
  const extensions = Array.isArray(global['core:extensions'])
    ? (global['core:extensions'] as unknown[]).filter(
        (e) =>
          !(
            typeof e === 'object' &&
            e !== null &&
            (e as { name?: unknown }).name === PHASOR_SIGMF_NAMESPACE.name
          ),
      )
    : [];
  extensions.push({ ...PHASOR_SIGMF_NAMESPACE });
  global['core:extensions'] = extensions;
  if (applied !== undefined) global['phasor:applied'] = applied;
  const captures = (input?.captures ?? []).map((c) => {
    const copy = { ...c };
    delete copy['core:header_bytes'];
    return copy;
  });
  if (captures.length === 0) captures.push({ 'core:sample_start': 0 });
  if (format.complex && format.centerFrequency !== undefined)
    captures[0]['core:frequency'] = format.centerFrequency;
  return { global, captures, annotations: [...(input?.annotations ?? [])] };
}
