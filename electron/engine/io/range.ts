// Validation of ReadOptions shared by every source.

import { InvalidArgumentError } from '../errors.js';
import type { ReadOptions } from '../sources/source.js';

export const DEFAULT_BLOCK_FRAMES = 65536;

export interface ReadRange {
  readonly blockFrames: number;
  readonly start: number;
  /** One past the last frame; Infinity for an endless source read without `end`. */
  readonly end: number;
}

function checkFrameIndex(name: string, v: number): void {
  if (!Number.isSafeInteger(v) || v < 0) {
    throw new InvalidArgumentError(`${name} must be a whole number of frames ≥ 0, got ${v}`);
  }
}

/** Resolves blockFrames/start/end against a source of `frames` frames (undefined: endless). Out-of-range
 * start and end clamp to the data, so a zoom past the end reads nothing rather than failing. */
export function resolveRange(options: ReadOptions, frames: number | undefined): ReadRange {
  const blockFrames = options.blockFrames ?? DEFAULT_BLOCK_FRAMES;
  if (!Number.isSafeInteger(blockFrames) || blockFrames < 1) {
    throw new InvalidArgumentError(`blockFrames must be a whole number ≥ 1, got ${blockFrames}`);
  }
  const total = frames ?? Infinity;
  let start = options.start ?? 0;
  checkFrameIndex('start', start);
  let end = options.end ?? total;
  if (options.end !== undefined) checkFrameIndex('end', end);
  if (end < start) throw new InvalidArgumentError(`end (${end}) must not be before start (${start})`);
  start = Math.min(start, total);
  end = Math.min(end, total);
  return { blockFrames, start, end };
}
