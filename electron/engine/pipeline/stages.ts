// The overlapping stages of a whole-file job: the source reads blocks ahead while the backend computes
// one, and the writer stores the previous result meanwhile, so disk, device and host work at the same
// time. Memory stays a few blocks whatever the file size.

import type { Backend, HostBlocks } from '../backends/backend.js';
import { plainHostBlocks } from '../backends/stream.js';
import type { SourceInfo } from '../sources/source.js';
import { valuesPerFrame } from '../types.js';

/** Float32 bytes per block of a whole-file job: large enough that the per-block costs (a worker round
 * trip, a device call, a write) vanish beside the work, small enough to keep a few in flight. */
export const FILE_BLOCK_BYTES = 4 << 20;

/** The most float32 bytes one step of a whole-file job holds at once for a stretch of frames (a Welch
 * segment of every channel): what a mono segment of the largest FFT (2^24) takes. A wide frame (65,535
 * channels) gets fewer frames per step rather than more memory. */
export const BLOCK_BYTES_BUDGET = 64 << 20;

/** Blocks a whole-file job reads ahead of the one being computed. */
export const FILE_READ_AHEAD = 2;

/** Frames per block of a whole-file job on this source: blocks of `bytes` float32 values. */
export function fileBlockFrames(
  info: Pick<SourceInfo, 'complex' | 'channels'>,
  bytes = FILE_BLOCK_BYTES,
): number {
  return Math.max(1, Math.floor(bytes / (4 * valuesPerFrame(info))));
}

/** Read buffers a whole-file job's source uses with `reuse` (the reader's ring). */
const FILE_READ_BUFFERS = FILE_READ_AHEAD + 2;

/** How a whole-file job reads its source: big blocks, read ahead; `reuse` when the consumer is done with
 * a block once its processor call settles (every processor copies its input), into `buffers` when given
 * (see hostBlocks). */
export function fileReads(
  info: Pick<SourceInfo, 'complex' | 'channels'>,
  blockFrames: number | undefined,
  reuse = true,
  buffers?: HostBlocks,
): { blockFrames: number; readAhead: number; reuse: boolean; buffers?: readonly ArrayBuffer[] } {
  return {
    blockFrames: blockFrames ?? fileBlockFrames(info),
    readAhead: FILE_READ_AHEAD,
    reuse,
    ...(buffers ? { buffers: buffers.buffers } : {}),
  };
}

/** `count` reused buffers of `bytes` for a job: the backend's own kind (Backend.hostBlocks: page-locked
 * on CUDA) or plain ArrayBuffers. Release them after the job's last backend call settled. */
export async function hostBlocks(backend: Backend, count: number, bytes: number): Promise<HostBlocks> {
  return backend.hostBlocks ? backend.hostBlocks(count, bytes) : plainHostBlocks(count, bytes);
}

/** The reader's ring of a whole-file job in blocks of `blockFrames` (for fileReads), from hostBlocks: a
 * block of float32 values a buffer (no stored encoding that reads in place is wider), or the whole file
 * when it is shorter. */
export function fileReadBlocks(
  backend: Backend,
  info: Pick<SourceInfo, 'complex' | 'channels' | 'samples'>,
  blockFrames: number,
): Promise<HostBlocks> {
  const frames = Math.max(1, Math.min(blockFrames, info.samples ?? Infinity));
  return hostBlocks(backend, FILE_READ_BUFFERS, frames * 4 * valuesPerFrame(info));
}

/** The blocks' buffers in turn, as Float32Arrays: a processor's outputs `into` them, each reused once the
 * others have been handed out (two: one computed while the other is written). */
export function inTurn(blocks: HostBlocks): () => Float32Array {
  let turn = 0;
  return () => new Float32Array(blocks.buffers[turn++ % blocks.buffers.length]);
}

/** A consumer that runs one step behind its producer: push() waits for the previous item's consumption
 * only, so the next item is computed while this one is written. */
export class WriteBehind<T> {
  #pending: Promise<void> = Promise.resolve();

  constructor(private readonly consume: (item: T) => Promise<void>) {}

  /** Hands over an item once the previous one is consumed (throwing that one's failure). */
  async push(item: T): Promise<void> {
    await this.#pending;
    const next = this.consume(item);
    next.catch(() => undefined); // observed by the next push(), drain() or settle()
    this.#pending = next;
  }

  /** Waits until everything handed over is consumed (throwing a failure). */
  drain(): Promise<void> {
    return this.#pending;
  }

  /** Waits until the consumer is idle, ignoring its failure (before cleaning up after an error). */
  async settle(): Promise<void> {
    await this.#pending.catch(() => undefined);
  }
}
