// Sources: pull-based async iterables of sample blocks. Nothing is read before the consumer asks for the
// next block, so a slow consumer never makes memory grow (backpressure by construction).

import type { PhasorWarning } from '../errors.js';
import type { SampleBlock, StreamFormat } from '../types.js';

/** SigMF metadata kept as read (global object, captures, annotations), so writers can carry it over. */
export interface SigmfMetadata {
  global: Record<string, unknown>;
  captures: Array<Record<string, unknown>>;
  annotations: Array<Record<string, unknown>>;
}

export type ContainerFormat = 'wav' | 'rf64' | 'sigmf' | 'raw' | 'generator' | 'live';

export interface SourceInfo extends StreamFormat {
  /** Container or kind of source. */
  readonly container: ContainerFormat;
  /** Sample encoding as stored, in SigMF's spelling where one exists: 'ri16_le', 'cf32_le', 'cu8', 'rf32_le'… */
  readonly encoding: string;
  /** Frames available (for a truncated file: those actually present). Undefined for endless sources. */
  readonly samples?: number;
  /** Frames the header promised, when more than are present (a truncated file). */
  readonly promisedSamples?: number;
  /** Path of the file the samples come from. */
  readonly path?: string;
  /** SigMF metadata of a SigMF recording (or made up for other containers by the writer). */
  readonly sigmf?: SigmfMetadata;
}

export interface ReadOptions {
  /** Frames per block (the last block may be shorter). Default 65536. */
  blockFrames?: number;
  /** First frame to read (random access for zoom). Default 0. */
  start?: number;
  /** One past the last frame to read. Default: the end. */
  end?: number;
  /** Yield raw integers (RawSamples) when the stored encoding is u8, i8 or i16 little-endian, leaving the
   * conversion to the backend. Other encodings are always decoded to float32. */
  raw?: boolean;
  /** Cancels the read; the iterator then throws CancelledError. */
  signal?: AbortSignal;
  /** Blocks a file source reads ahead of the one handed out, so the disk works while the consumer
   * computes (whole-file jobs). Default 0; sources that are not files ignore it. */
  readAhead?: number;
  /** The consumer is done with a block's data when it pulls the next one: a file source may then read
   * into the same memory again (no allocation per block). Default false. */
  reuse?: boolean;
  /** With `reuse`: the memory a file source reads into (readAhead + 2 buffers are used, each where it
   * holds a block; Backend.hostBlocks gives memory the backend moves fastest). */
  buffers?: readonly ArrayBuffer[];
}

export interface SampleSource {
  readonly info: SourceInfo;
  /** Reads blocks in order. Each call starts a new independent pass over the data. */
  blocks(options?: ReadOptions): AsyncIterable<SampleBlock>;
  /** Reads the samples into the OS's cache and drops them, ahead of the job's own reads, until the end,
   * `signal` or close(): a job starts this before its backend, so a file that is not cached is being read
   * while the backend starts and while the job computes the part already read, and the disk never waits.
   * Stops early when the file turns out to be cached. Files only; never throws. */
  prefetch?(signal: AbortSignal): Promise<void>;
  /** Releases the file handle. */
  close(): Promise<void>;
}

export interface OpenOptions {
  /** Raw IQ files: the encoding ('cu8', 'cs8', 'cs16', 'cf32'). */
  format?: string;
  /** Raw IQ files: the sample rate (Hz). */
  rate?: number;
  /** Raw IQ files: the centre frequency (Hz); for other formats it overrides the file's. */
  center?: number;
  /** Read a two-channel WAV as one complex I/Q channel. */
  iq?: boolean;
  /** Receives non-fatal warnings, e.g. a truncated file. */
  onWarning?: (warning: PhasorWarning) => void;
}
