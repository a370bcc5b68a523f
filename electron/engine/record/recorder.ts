// Recording a live source to disk, crash-safe: unlike io/writer.ts (a temporary renamed on success), the
// samples go in place, block by block, so a recorder killed at any moment leaves a readable recording.
//
//   const r = await Recorder.create({ path: 'rec.sigmf-meta', format, encoding: 'cu8', label: 'R820T' });
//   for await (const b of source.blocks({ raw: true, signal })) if (!(await r.write(b))) break;
//   const done = await r.stop('requested');     // { frames, droppedFrames, gaps, stopped, … }
//
// SigMF: the .sigmf-data grows in place; the .sigmf-meta is replaced atomically (temporary + rename) at the
// start, every few seconds and at the stop, and says `phasor:recording: true` until the stop, so a reader
// tells a crashed recording (io/open.ts warns). Integer sources that deliver raw samples (rtl_tcp's cu8)
// are stored as the bytes received; float sources as cf32_le/rf32_le, exactly what they deliver (the
// microphone's float32 capture included: no quantization, nothing above full scale clipped). A jump in a
// block's `start` is a drop: an annotation marks the gap; a new centre frequency starts a new capture.
// WAV (real sources only): the header's sizes say "to the end of the file" until the stop rewrites them
// (RF64 past 4 GiB). A full disk stops the recording with the data cut to whole blocks and the metadata
// saying so ("disk full"); a block queue (push) drops what the disk cannot keep up with, as a gap.

import { open, rm, stat, statfs, truncate, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { InvalidArgumentError, PhasorError, ioError } from '../errors.js';
import {
  HOST_LITTLE_ENDIAN,
  encodeValues,
  encodingName,
  parseEncoding,
  quantization,
  type SampleEncoding,
} from '../io/encoding.js';
import { refuseOverwritingInputs } from '../io/identity.js';
import { sigmfPair } from '../io/sigmf.js';
import { TemporaryFile } from '../io/temporary.js';
import { buildSigmfMetadata, outputContainer, wavHeader } from '../io/writer.js';
import { isRawSamples, toFloat32, valuesPerFrame, type SampleBlock, type StreamFormat } from '../types.js';
import { recorderName } from './version.js';

export type RecordingContainer = 'sigmf' | 'wav';

export interface RecorderOptions {
  /** .sigmf-meta, .sigmf-data or .sigmf (a SigMF pair) or .wav. Never overwritten. */
  path: string;
  /** The source's stream (rate, complex, channels, centre frequency). */
  format: StreamFormat;
  /** The source's encoding (SourceInfo.encoding): 'cu8' for rtl_tcp, 'rf32_le' for the microphone… */
  encoding: string;
  /** core:hw: the source or tuner ("rtl_tcp://host:1234, R820T", a microphone's name). */
  label?: string;
  /** core:description. */
  description?: string;
  /** core:recorder; default "phasor <version>". */
  software?: string;
  /** Files the source reads (a file played back): refused as outputs. */
  inputs?: readonly string[];
  /** How often the metadata is brought up to date while recording (ms). Default 5000. */
  metaIntervalMs?: number;
  /** Largest 32-bit RIFF size before a WAV becomes RF64 (tests lower it). */
  rf64Threshold?: number;
  /** Bytes push() may hold for the disk before it drops blocks. Default 64 MiB. */
  maxQueueBytes?: number;
}

/** A block as a live source yields it (captureTime: when its last sample arrived, ms since the epoch). */
export type RecordBlock = SampleBlock & { readonly captureTime?: number };

export interface RecordingStats {
  /** The file to open afterwards (.sigmf-meta or .wav). */
  path: string;
  /** Every file written (SigMF: data then meta). */
  paths: string[];
  container: RecordingContainer;
  /** What the samples are stored as (SigMF spelling). */
  datatype: string;
  sampleRate: number;
  centerFrequency?: number;
  frames: number;
  seconds: number;
  /** Bytes on disk, data and metadata. */
  bytes: number;
  droppedFrames: number;
  gaps: number;
  /** Set once stopped: why ("requested", "duration reached", "disk full", "source ended"…). */
  stopped?: string;
  /** Stopped by its own failure (a full disk, a write error) rather than by its caller. */
  failed: boolean;
}

/** Reasons a recording stops (phasor:stopped). */
export const STOPPED = {
  requested: 'requested',
  duration: 'duration reached',
  diskFull: 'disk full',
  sourceEnded: 'source ended',
  sourceFailed: (why: string) => `source failed: ${why}`,
} as const;

const DISK_FULL = new Set(['ENOSPC', 'EDQUOT', 'EFBIG']);

/** The container for a path, or a one-line refusal. */
export function recordingContainer(path: string): RecordingContainer {
  const c = outputContainer(path);
  if (c === undefined) {
    throw new InvalidArgumentError(
      `${path}: cannot tell the recording's format from the extension; use .sigmf-meta (SigMF) or .wav`,
    );
  }
  return c;
}

/** The files a recording at `path` writes: SigMF data then meta, or the WAV. */
export function recordingPaths(path: string): { path: string; data: string; meta?: string } {
  if (recordingContainer(path) === 'wav') return { path, data: path };
  const { meta, data } = sigmfPair(path);
  return { path: meta, data, meta };
}

/**
 * What a source's samples are stored as: its own integer encoding (8 or 16 bits, little-endian: the bytes
 * it delivers raw), else float32 as delivered; WAV keeps 16-bit PCM and otherwise float32.
 */
export function recordingEncoding(
  encoding: string,
  complex: boolean,
  container: RecordingContainer,
): SampleEncoding {
  const e = parseEncoding(encoding, { complex, littleEndian: true });
  const f32: SampleEncoding = { complex, kind: 'f', bits: 32, littleEndian: true };
  if (e === undefined || e.kind === 'f' || !e.littleEndian) return f32;
  if (container === 'wav') return e.kind === 'i' && e.bits === 16 ? { ...e, complex } : f32;
  return e.bits === 8 || e.bits === 16 ? { ...e, complex } : f32;
}

/** Refuses (one line) a path whose extension names no container or whose files exist already. */
export async function checkRecordingPath(path: string): Promise<void> {
  const files = recordingPaths(path);
  for (const p of files.meta ? [files.data, files.meta] : [files.data]) {
    if (await exists(p)) {
      throw new PhasorError('invalid-argument', 'already exists; a recording never replaces a file', {
        file: p,
      });
    }
  }
}

function isDiskFull(err: unknown): boolean {
  for (let e: unknown = err; e; e = (e as { cause?: unknown }).cause) {
    const code = (e as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && DISK_FULL.has(code)) return true;
    if (e instanceof DiskFull) return true;
  }
  return false;
}

/** A write that stored nothing without an error: the disk is full too. */
class DiskFull extends Error {}

/** Writes all of `bytes` at `position` (a short write goes on; a write that stores nothing fails). */
async function writeAll(fh: FileHandle, bytes: Uint8Array, position: number): Promise<void> {
  for (let done = 0; done < bytes.length;) {
    const { bytesWritten } = await fh.write(bytes, done, bytes.length - done, position + done);
    if (!(bytesWritten > 0)) throw new DiskFull('a write stored nothing');
    done += bytesWritten;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

export class Recorder {
  readonly path: string;
  readonly container: RecordingContainer;
  readonly #dataPath: string;
  readonly #metaPath: string | undefined;
  readonly #o: RecorderOptions;
  readonly #format: StreamFormat;
  readonly #enc: SampleEncoding;
  readonly #vpf: number;
  readonly #frameBytes: number;
  readonly #headerBytes: number;
  #fh: FileHandle | null;
  #staging = new Uint8Array(0);
  // What is written (whole blocks only).
  #frames = 0;
  #dataBytes = 0;
  #metaBytes = 0;
  // The source's stream: the next frame expected, and what was lost.
  #next: number | undefined;
  #dropped = 0;
  #gaps = 0;
  #center: number | undefined;
  readonly #captures: Array<Record<string, unknown>> = [];
  readonly #annotations: Array<Record<string, unknown>> = [];
  #lastMeta = 0;
  #stopped: string | undefined;
  #failed = false;
  #finished: Promise<RecordingStats> | undefined;
  // push(): blocks waiting for the disk.
  readonly #queue: RecordBlock[] = [];
  #queued = 0;
  #pump: Promise<void> | undefined;

  private constructor(
    o: RecorderOptions,
    files: { path: string; data: string; meta?: string },
    fh: FileHandle,
    container: RecordingContainer,
    enc: SampleEncoding,
  ) {
    this.#o = o;
    this.path = files.path;
    this.#dataPath = files.data;
    this.#metaPath = files.meta;
    this.container = container;
    this.#fh = fh;
    this.#format = o.format;
    this.#enc = enc;
    this.#vpf = valuesPerFrame(o.format);
    this.#frameBytes = this.#vpf * (enc.bits / 8);
    this.#center = o.format.complex ? o.format.centerFrequency : undefined;
    this.#headerBytes = container === 'wav' ? wavHeader(o.format, enc, 0, 0, { sizes: 'unset' }).length : 0;
  }

  /** Checks the path (extension, an existing file, one of the source's files, WAV of a complex source),
   * creates the files and writes the metadata (SigMF) or header (WAV). */
  static async create(o: RecorderOptions): Promise<Recorder> {
    const container = recordingContainer(o.path);
    const files = recordingPaths(o.path);
    const { format } = o;
    if (container === 'wav') {
      if (format.complex) {
        throw new InvalidArgumentError(
          `${o.path}: WAV holds audio, not I/Q; record a complex source to SigMF (.sigmf-meta)`,
        );
      }
      if (!Number.isInteger(format.sampleRate) || format.sampleRate > 0xffffffff) {
        throw new InvalidArgumentError(
          `${o.path}: WAV stores a whole number of Hz; ${format.sampleRate} Hz is not one (record SigMF instead)`,
        );
      }
    }
    const all = files.meta ? [files.data, files.meta] : [files.data];
    if (o.inputs && o.inputs.length > 0) await refuseOverwritingInputs(all, o.inputs);
    await checkRecordingPath(o.path);
    const enc = recordingEncoding(o.encoding, format.complex, container);
    let fh: FileHandle;
    try {
      fh = await open(files.data, 'wx');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') {
        throw new PhasorError('invalid-argument', 'already exists; a recording never replaces a file', {
          file: files.data,
        });
      }
      if (code === 'ENOENT') {
        throw new PhasorError('io', `cannot record here: the folder ${dirname(files.data)} does not exist`, {
          file: files.data,
        });
      }
      throw ioError(files.data, err);
    }
    const r = new Recorder(o, files, fh, container, enc);
    try {
      if (container === 'wav') {
        await writeAll(fh, wavHeader(format, enc, 0, 0, { sizes: 'unset' }), 0);
      } else {
        await r.#writeMeta();
      }
    } catch (err) {
      // Nothing recorded yet: leave nothing behind.
      await fh.close().catch(() => undefined);
      await rm(files.data, { force: true }).catch(() => undefined);
      throw ioError(r.path, err);
    }
    r.#lastMeta = performance.now();
    return r;
  }

  get datatype(): string {
    return encodingName(this.#enc);
  }

  /** Why it stopped, once it has. */
  get stopped(): string | undefined {
    return this.#stopped;
  }

  get failed(): boolean {
    return this.#failed;
  }

  stats(): RecordingStats {
    const s: RecordingStats = {
      path: this.path,
      paths: this.#metaPath ? [this.#dataPath, this.#metaPath] : [this.#dataPath],
      container: this.container,
      datatype: this.datatype,
      sampleRate: this.#format.sampleRate,
      frames: this.#frames,
      seconds: this.#frames / this.#format.sampleRate,
      bytes: this.#headerBytes + this.#dataBytes + this.#metaBytes,
      droppedFrames: this.#dropped,
      gaps: this.#gaps,
      failed: this.#failed,
    };
    if (this.#center !== undefined) s.centerFrequency = this.#center;
    if (this.#stopped !== undefined) s.stopped = this.#stopped;
    return s;
  }

  /** Free bytes on the recording's file system (undefined when it cannot be told). */
  async freeBytes(): Promise<number | undefined> {
    try {
      const s = await statfs(dirname(this.#dataPath));
      return Number(s.bavail) * Number(s.bsize);
    } catch {
      return undefined;
    }
  }

  /** Appends a block (await each call). False once the recording has stopped (a full disk: see stats). */
  async write(block: RecordBlock): Promise<boolean> {
    if (this.#stopped !== undefined) return false;
    try {
      await this.#append(block);
      if (performance.now() - this.#lastMeta >= (this.#o.metaIntervalMs ?? 5000)) await this.#checkpoint();
    } catch (err) {
      await this.#fail(err);
      return false;
    }
    return true;
  }

  /** Queues a block for the disk without waiting (a live session's tap): the data is copied; past
   * maxQueueBytes a block is dropped, which the next block's start shows as a gap. */
  push(block: RecordBlock): void {
    if (this.#stopped !== undefined || this.#finished) return;
    const data = block.data;
    const bytes = isRawSamples(data) ? data.data.byteLength : data.byteLength;
    if (this.#queued + bytes > (this.#o.maxQueueBytes ?? 64 << 20)) return;
    const copy = isRawSamples(data)
      ? { data: data.data.slice(), offset: data.offset, scale: data.scale }
      : data.slice();
    this.#queue.push({ ...block, data: copy });
    this.#queued += bytes;
    this.#pump ??= this.#drain();
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      const b = this.#queue.shift()!;
      this.#queued -= isRawSamples(b.data) ? b.data.data.byteLength : b.data.byteLength;
      if (!(await this.write(b))) {
        this.#queue.length = 0;
        this.#queued = 0;
      }
    }
    this.#pump = undefined;
  }

  /** Finishes the files (WAV sizes, the final metadata with `phasor:stopped`). Safe to call again. */
  stop(reason: string): Promise<RecordingStats> {
    this.#finished ??= this.#finish(reason);
    return this.#finished;
  }

  async #finish(reason: string): Promise<RecordingStats> {
    while (this.#pump) await this.#pump;
    if (this.#stopped === undefined) {
      this.#stopped = reason;
      try {
        await this.#close();
      } catch (err) {
        await this.#fail(err);
      }
    }
    return this.stats();
  }

  async #append(block: RecordBlock): Promise<void> {
    const { frames, format } = block;
    if (frames <= 0) return;
    if (this.#next === undefined) {
      this.#next = block.start;
      this.#captures.push(this.#capture(block));
    } else if (block.start > this.#next) {
      // Frames the source lost before this block: the gap is marked where it falls in the file.
      const lost = block.start - this.#next;
      this.#dropped += lost;
      this.#gaps++;
      this.#annotations.push({
        'core:sample_start': this.#frames,
        'core:sample_count': 0,
        'core:label': 'gap',
        'core:comment': `${lost} samples dropped`,
        'phasor:dropped': lost,
      });
    }
    if (format.complex && format.centerFrequency !== undefined && format.centerFrequency !== this.#center) {
      this.#center = format.centerFrequency;
      if (this.#frames > 0 || this.#captures.length === 0) this.#captures.push(this.#capture(block));
      else this.#captures[this.#captures.length - 1] = this.#capture(block);
    }
    this.#next = block.start + frames;
    const bytes = this.#encode(block);
    const at = this.#headerBytes + this.#dataBytes;
    try {
      await writeAll(this.#fh!, bytes, at);
    } catch (err) {
      // Part of the block may be on disk: cut the data back to whole blocks before anything else.
      await this.#fh!.truncate(at).catch(() => undefined);
      throw err;
    }
    this.#dataBytes += bytes.length;
    this.#frames += frames;
  }

  #capture(block: RecordBlock): Record<string, unknown> {
    const c: Record<string, unknown> = { 'core:sample_start': this.#frames };
    const f = block.format;
    if (f.complex && f.centerFrequency !== undefined) c['core:frequency'] = f.centerFrequency;
    // The first sample's time: the block's arrival minus its length.
    const arrived = block.captureTime ?? Date.now();
    c['core:datetime'] = new Date(arrived - (block.frames / f.sampleRate) * 1000).toISOString();
    return c;
  }

  /** The block's bytes as stored: raw integers of the stored type as they are, anything else encoded. */
  #encode(block: RecordBlock): Uint8Array {
    const data = block.data;
    const n = block.frames * this.#vpf;
    const enc = this.#enc;
    if (isRawSamples(data)) {
      const q = quantization(enc, this.container === 'wav' ? 'wav' : 'sigmf');
      const a = data.data;
      const type =
        enc.kind === 'u' && enc.bits === 8
          ? a instanceof Uint8Array
          : enc.kind === 'i' && enc.bits === 8
            ? a instanceof Int8Array
            : enc.kind === 'i' && enc.bits === 16 && HOST_LITTLE_ENDIAN && a instanceof Int16Array;
      const same = type && data.offset === q.offset && data.scale === q.scale;
      if (same) {
        if (data.data.length !== n) throw this.#badBlock(data.data.length, n);
        return new Uint8Array(data.data.buffer, data.data.byteOffset, data.data.byteLength);
      }
    }
    const floats = toFloat32(data);
    if (floats.length !== n) throw this.#badBlock(floats.length, n);
    const size = n * (enc.bits / 8);
    if (this.#staging.length < size) this.#staging = new Uint8Array(size);
    const out = this.#staging.subarray(0, size);
    encodeValues(floats, 0, n, enc, quantization(enc, this.container === 'wav' ? 'wav' : 'sigmf'), out);
    return out;
  }

  #badBlock(values: number, expected: number): PhasorError {
    return new PhasorError(
      'invalid-argument',
      `a block of ${values} values is not the ${expected} its frames need (${this.#vpf} a frame)`,
      { file: this.path },
    );
  }

  /** Every few seconds: the data to the disk, then the metadata brought up to date. */
  async #checkpoint(): Promise<void> {
    this.#lastMeta = performance.now();
    await this.#fh!.datasync();
    if (this.container === 'sigmf') await this.#writeMeta();
  }

  #metadata(): string {
    const base = buildSigmfMetadata(undefined, this.#format, this.datatype, undefined, undefined);
    const g = base.global;
    if (this.#o.label) g['core:hw'] = this.#o.label;
    g['core:recorder'] = this.#o.software ?? recorderName();
    if (this.#o.description) g['core:description'] = this.#o.description;
    g['phasor:recording'] = this.#stopped === undefined;
    if (this.#stopped !== undefined) g['phasor:stopped'] = this.#stopped;
    if (this.#dropped > 0) g['phasor:dropped'] = this.#dropped;
    const captures = this.#captures.length > 0 ? this.#captures : [this.#startCapture()];
    const doc = { global: g, captures, annotations: this.#annotations };
    return JSON.stringify(doc, null, 2) + '\n';
  }

  /** The capture before the first block: the start, and the centre the source was opened at. */
  #startCapture(): Record<string, unknown> {
    const c: Record<string, unknown> = { 'core:sample_start': 0 };
    if (this.#center !== undefined) c['core:frequency'] = this.#center;
    return c;
  }

  async #writeMeta(): Promise<void> {
    const bytes = new TextEncoder().encode(this.#metadata());
    const tmp = await TemporaryFile.create(this.#metaPath!);
    try {
      await tmp.writeAll(bytes, 0);
      await tmp.close();
      await tmp.publish();
    } catch (err) {
      await tmp.discard();
      throw err;
    }
    this.#metaBytes = bytes.length;
  }

  async #close(): Promise<void> {
    const fh = this.#fh!;
    if (this.container === 'wav') {
      // RIFF chunks are padded to an even length.
      if (this.#dataBytes % 2 === 1)
        await writeAll(fh, new Uint8Array(1), this.#headerBytes + this.#dataBytes);
      const header = wavHeader(this.#format, this.#enc, this.#dataBytes, this.#frames, {
        sizes: 'final',
        ...(this.#o.rf64Threshold !== undefined ? { threshold: this.#o.rf64Threshold } : {}),
      });
      await writeAll(fh, header, 0);
    }
    await fh.sync();
    await fh.close();
    this.#fh = null;
    if (this.container === 'sigmf') await this.#writeMeta();
  }

  /** A write failed: a full disk stops the recording with what was written kept valid; any other error
   * too, with its reason. Never throws. */
  async #fail(err: unknown): Promise<void> {
    if (this.#failed) return;
    this.#failed = true;
    const full = isDiskFull(err);
    this.#stopped = full ? STOPPED.diskFull : `write failed: ${ioError(this.#dataPath, err).message}`;
    const fh = this.#fh;
    this.#fh = null;
    if (fh) {
      await fh.truncate(this.#headerBytes + this.#dataBytes).catch(() => undefined);
      if (this.container === 'wav') {
        // In place over the header's own bytes: needs no new space.
        const header = wavHeader(this.#format, this.#enc, this.#dataBytes, this.#frames, {
          sizes: 'final',
          ...(this.#o.rf64Threshold !== undefined ? { threshold: this.#o.rf64Threshold } : {}),
        });
        if (this.#dataBytes % 2 === 0) await writeAll(fh, header, 0).catch(() => undefined);
      }
      await fh.sync().catch(() => undefined);
      await fh.close().catch(() => undefined);
    }
    if (this.container !== 'sigmf') return;
    // The final metadata needs room: on a full disk, give back the last blocks until it fits.
    for (let attempt = 0; attempt < 4; attempt++) {
      try {
        await this.#writeMeta();
        return;
      } catch (e) {
        if (!isDiskFull(e) || this.#dataBytes === 0) return;
        const room = this.#metadata().length + (64 << 10) * (attempt + 1);
        const cut = Math.min(this.#frames, Math.ceil(room / this.#frameBytes));
        this.#frames -= cut;
        this.#dataBytes = this.#frames * this.#frameBytes;
        await truncate(this.#dataPath, this.#dataBytes).catch(() => undefined);
        this.#trimTo(this.#frames);
      }
    }
  }

  /** Drops captures and annotations past `frames` (after the data was cut back). */
  #trimTo(frames: number): void {
    const keep = (x: Record<string, unknown>): boolean => (x['core:sample_start'] as number) <= frames;
    const caps = this.#captures.filter((c, i) => i === 0 || keep(c));
    this.#captures.splice(0, this.#captures.length, ...caps);
    const notes = this.#annotations.filter(keep);
    this.#annotations.splice(0, this.#annotations.length, ...notes);
  }
}
