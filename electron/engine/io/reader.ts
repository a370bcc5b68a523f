// The one block reader behind every file source (WAV, RF64, SigMF, raw IQ): fixed-size frames at a byte
// offset of a file, read block by block with positional reads. Memory is one block whatever the file size,
// and nothing is read before the consumer pulls the next block.

import type { FileHandle } from 'node:fs/promises';
import { InvalidArgumentError, throwIfAborted } from '../errors.js';
import type { ReadOptions, SampleSource, SourceInfo } from '../sources/source.js';
import type { RawSamples, SampleBlock, StreamFormat } from '../types.js';
import {
  HOST_LITTLE_ENDIAN,
  bytesPerValue,
  decodeValues,
  needsSwap,
  quantization,
  swapBytes,
  type Quantization,
  type SampleEncoding,
  type U8Convention,
} from './encoding.js';
import { claimEarlyRead } from './early-reads.js';
import { readExactly } from './file.js';
import { fromCache, PREFETCH_DEFAULTS, PREFETCH_PIECE } from './prefetch-policy.js';
import { resolveRange } from './range.js';

/** How a prefetch runs beside the job (FileSampleSource.prefetch): it stops after `cachedReads` reads in a
 * row that came from the OS's cache (faster than `cacheBytesPerMs`: the file is cached, nothing to do),
 * and stays at most `lead` bytes ahead of the job's own reads (a file larger than the memory is not read
 * so far ahead that its pages are dropped before the job gets there). */
export interface PrefetchOptions {
  cachedReads?: number;
  cacheBytesPerMs?: number;
  lead?: number;
  /** Called with each read's byte range (tests). */
  onRead?: (from: number, to: number) => void;
}

/** The largest block a single read may allocate; larger requests are refused rather than crashing. */
const MAX_BLOCK_BYTES = 2 ** 31 - 1;

export interface FileLayout {
  /** The file holding the samples (named in errors). */
  readonly path: string;
  readonly handle: FileHandle;
  /** Byte offset of frame 0. */
  readonly dataOffset: number;
  /** Whole frames present in the file. */
  readonly frames: number;
  /** Encoding of one stored value. */
  readonly stored: SampleEncoding;
  readonly u8: U8Convention;
  /** Stored values per frame (channels × 2 for complex). */
  readonly valuesPerFrame: number;
  readonly info: SourceInfo;
}

export class FileSampleSource implements SampleSource {
  readonly info: SourceInfo;
  readonly #layout: FileLayout;
  readonly #format: StreamFormat;
  readonly #q: Quantization;
  readonly #frameBytes: number;
  #closed: Promise<void> | undefined;
  /** The byte after the job's furthest read issued, and prefetches waiting for it to move. */
  #reading = 0;
  #waiting: Array<() => void> = [];

  constructor(layout: FileLayout) {
    this.#layout = layout;
    this.info = layout.info;
    const { sampleRate, complex, channels, centerFrequency } = layout.info;
    this.#format = Object.freeze(
      centerFrequency === undefined
        ? { sampleRate, complex, channels }
        : { sampleRate, complex, channels, centerFrequency },
    );
    this.#q = quantization(layout.stored, layout.u8);
    this.#frameBytes = layout.valuesPerFrame * bytesPerValue(layout.stored);
  }

  /** True when ReadOptions.raw yields RawSamples for this encoding. */
  get rawCapable(): boolean {
    const e = this.#layout.stored;
    return (
      e.kind !== 'f' &&
      (e.bits === 8 || (e.bits === 16 && e.kind === 'i' && e.littleEndian && HOST_LITTLE_ENDIAN))
    );
  }

  blocks(options: ReadOptions = {}): AsyncIterable<SampleBlock> {
    // Validate now so a bad argument fails at the call, not at the first pull.
    const range = resolveRange(options, this.#layout.frames);
    if (
      range.end > range.start &&
      Math.min(range.blockFrames, range.end - range.start) * this.#frameBytes > MAX_BLOCK_BYTES
    ) {
      throw new InvalidArgumentError(
        `blockFrames ${range.blockFrames} makes blocks over 2 GiB for this file; use a smaller blockFrames`,
      );
    }
    return this.#read(
      range,
      options.raw === true && this.rawCapable,
      Math.max(0, Math.floor(options.readAhead ?? 0)),
      options.reuse === true,
      options.signal,
      options.buffers ?? [],
    );
  }

  async *#read(
    range: { blockFrames: number; start: number; end: number },
    raw: boolean,
    ahead: number,
    reuse: boolean,
    signal: AbortSignal | undefined,
    given: readonly ArrayBuffer[],
  ): AsyncGenerator<SampleBlock> {
    const { handle, path, dataOffset, stored, valuesPerFrame } = this.#layout;
    const frameBytes = this.#frameBytes;
    const q = this.#q;
    // Float32 data and raw integers are handed out as views of the read buffer; other encodings decode
    // from it into a fresh Float32Array. Read buffers are fresh, or with `reuse` a ring of ahead + 2:
    // `ahead` reads in flight, the block handed out and the one before it; slot i reads into given[i]
    // where that holds a block.
    const zeroCopy = raw || (stored.kind === 'f' && stored.bits === 32);
    const ring: Uint8Array[] = [];
    let turn = 0;
    const buffer = (nbytes: number): Uint8Array => {
      if (zeroCopy && !reuse) return new Uint8Array(nbytes);
      const slots = zeroCopy || ahead > 0 ? ahead + 2 : 1;
      const i = turn++ % slots;
      const have = ring[i];
      if (have === undefined || have.length < nbytes) {
        const g = given[i];
        ring[i] = g !== undefined && g.byteLength >= nbytes ? new Uint8Array(g) : new Uint8Array(nbytes);
      }
      return ring[i];
    };
    // Reads in flight, oldest first: up to `ahead` beyond the block being handed out.
    const queue: Array<{ pos: number; frames: number; bytes: Promise<Uint8Array> }> = [];
    let next = range.start;
    const issue = (): void => {
      while (queue.length <= ahead && next < range.end) {
        const frames = Math.min(range.blockFrames, range.end - next);
        const nbytes = frames * frameBytes;
        const bytes = buffer(nbytes);
        const read = readExactly(handle, path, bytes, nbytes, dataOffset + next * frameBytes).then(
          () => bytes,
        );
        read.catch(() => undefined); // a read ahead of an abandoned pass fails unobserved
        queue.push({ pos: next, frames, bytes: read });
        next += frames;
        this.#reading = dataOffset + next * frameBytes;
        this.#wake();
      }
    };
    while (true) {
      throwIfAborted(signal);
      issue();
      const item = queue.shift();
      if (item === undefined) break;
      const { pos, frames } = item;
      const bytes = await item.bytes;
      throwIfAborted(signal);
      const nbytes = frames * frameBytes;
      const count = frames * valuesPerFrame;
      let data: Float32Array | RawSamples;
      if (raw) {
        const arr =
          stored.bits === 16
            ? new Int16Array(bytes.buffer, 0, count)
            : stored.kind === 'i'
              ? new Int8Array(bytes.buffer, 0, count)
              : bytes.subarray(0, count);
        data = { data: arr, offset: q.offset, scale: q.scale };
      } else if (zeroCopy) {
        if (needsSwap(stored)) swapBytes(bytes, 4, nbytes);
        data = new Float32Array(bytes.buffer, 0, count);
      } else {
        const out = new Float32Array(count);
        decodeValues(bytes, count, stored, q, out);
        data = out;
      }
      yield { format: this.#format, start: pos, frames, data };
    }
  }

  async prefetch(signal: AbortSignal, options: PrefetchOptions = {}): Promise<void> {
    const { cachedReads, cacheBytesPerMs, lead } = { ...PREFETCH_DEFAULTS, ...options };
    const { handle, path, dataOffset, frames } = this.#layout;
    const end = dataOffset + frames * this.#frameBytes;
    // what the CLI read of the file from its first moments (io/early-reads.ts) is not read again
    const early = claimEarlyRead(path);
    if (end <= dataOffset || this.#closed) return;
    const scratch = new Uint8Array(Math.min(PREFETCH_PIECE, end - dataOffset));
    const stop = () => this.#wake();
    signal.addEventListener('abort', stop);
    try {
      let cached = 0;
      for (let pos = Math.max(dataOffset, early); pos < end && !signal.aborted && !this.#closed;) {
        // what the job has asked for already is its own reads' to fetch
        pos = Math.max(pos, this.#reading);
        if (pos >= end) break;
        if (pos - Math.max(this.#reading, dataOffset) >= lead) {
          await new Promise<void>((r) => this.#waiting.push(r));
          continue;
        }
        const t = performance.now();
        const n = Math.min(scratch.length, end - pos);
        const { bytesRead } = await handle.read(scratch, 0, n, pos);
        if (bytesRead === 0) return;
        options.onRead?.(pos, pos + bytesRead);
        pos += bytesRead;
        cached = fromCache(bytesRead, performance.now() - t, cacheBytesPerMs) ? cached + 1 : 0;
        if (cached >= cachedReads) return;
      }
    } catch {
      // a hint only: the job's own reads report any error
    } finally {
      signal.removeEventListener('abort', stop);
    }
  }

  #wake(): void {
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const w of waiting) w();
  }

  close(): Promise<void> {
    this.#closed ??= this.#layout.handle.close().catch(() => undefined);
    this.#wake();
    return this.#closed;
  }
}
