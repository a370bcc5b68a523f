// Audio captured by the client itself (the browser's own microphone in web mode): a live source fed by the
// connection's binary messages (protocol/audio-frames.ts) rather than by a device of this machine. It goes
// through the same session path as the server's microphone: float32 mono blocks, a bounded queue whose
// oldest blocks are dropped and counted when the consumer falls behind, and a watchdog that ends it when
// the audio stops coming.
//
//   const source = openClientAudio({ sampleRate: 48000, label: 'Built-in microphone' });
//   connection.on(binary => source.push(binary));     // throws on a malformed block (nothing queued)
//   for await (const block of source.blocks({ signal })) …
//
// Blocks the page dropped (its socket fell behind) arrive as a jump in `seq` and `start`: they are counted
// in `droppedBlocks` and the next block starts at its real frame, so a recording shows the gap.

import { InvalidArgumentError, PhasorError } from '../errors.js';
import { decodeAudioFrame } from '../protocol/audio-frames.js';
import type { StreamFormat } from '../types.js';
import { wallClock, type LiveBlock, type LiveSource } from './live-source.js';
import { PushedBlocks } from './pushed-blocks.js';
import type { ReadOptions, SourceInfo } from './source.js';

export interface ClientAudioOptions {
  /** The capture's sample rate (Hz), from the page's AudioContext. */
  sampleRate: number;
  /** The device as the page names it (its track's label). */
  label?: string;
  /** Audio kept waiting for a slow consumer before the oldest blocks are dropped (s). Default 0.5. */
  maxQueueSeconds?: number;
  /** No block for this long once blocks flowed ends the source (ms). Default 5000. */
  stallTimeoutMs?: number;
  /** No first block within this long ends the source (ms). Default 10000. */
  startupTimeoutMs?: number;
}

export class ClientAudioSource implements LiveSource {
  readonly info: SourceInfo;
  readonly channel = 0;
  readonly label: string;
  readonly #format: StreamFormat;
  readonly #blocks: PushedBlocks;
  /** The seq and start frame the next block should have. */
  #nextSeq = 0;
  #nextStart = 0;
  /** Blocks the page skipped (a jump in seq), beside those the queue dropped. */
  #skipped = 0;

  constructor(options: ClientAudioOptions) {
    const rate = options.sampleRate;
    if (!(Number.isInteger(rate) && rate >= 8000 && rate <= 384000)) {
      throw new InvalidArgumentError(
        `browser microphone: the sample rate must be a whole number of Hz from 8000 to 384000, got ${rate}`,
      );
    }
    this.#format = Object.freeze({ sampleRate: rate, complex: false, channels: 1 });
    this.info = { ...this.#format, container: 'live', encoding: 'rf32_le' };
    this.label = options.label ? `browser: ${options.label}` : "this browser's microphone";
    this.#blocks = new PushedBlocks(Math.round(rate * (options.maxQueueSeconds ?? 0.5)));
    const stall = options.stallTimeoutMs ?? 5000;
    const startup = options.startupTimeoutMs ?? 10000;
    this.#blocks.watch({ startupMs: startup, stallMs: stall }, (why) =>
      this.#blocks.fail(
        new PhasorError(
          'io',
          why === 'startup'
            ? `browser microphone: no audio arrived from the browser in ${Math.round(startup / 1000)} s`
            : `browser microphone: no audio from the browser for ${Math.round(stall / 1000)} s (the page stopped capturing or its link stalled)`,
        ),
      ),
    );
  }

  get droppedBlocks(): number {
    return this.#skipped + this.#blocks.dropped;
  }

  /**
   * One binary block from the client (protocol/audio-frames.ts). A malformed block, or one that goes back
   * in time, is refused with an InvalidArgumentError and queues nothing; a jump forward counts the blocks
   * skipped as dropped.
   */
  push(bytes: Uint8Array): void {
    if (this.#blocks.ended) return;
    let frame;
    try {
      frame = decodeAudioFrame(bytes);
    } catch (err) {
      throw new InvalidArgumentError(`browser microphone: ${(err as Error).message}`);
    }
    if (frame.seq < this.#nextSeq || frame.start < this.#nextStart) {
      throw new InvalidArgumentError(
        `browser microphone: audio block ${frame.seq} (frame ${frame.start}) goes back before block ${this.#nextSeq} (frame ${this.#nextStart})`,
      );
    }
    this.#skipped += frame.seq - this.#nextSeq;
    this.#nextSeq = frame.seq + 1;
    this.#nextStart = frame.start + frame.samples.length;
    this.#blocks.push({
      format: this.#format,
      start: frame.start,
      frames: frame.samples.length,
      data: frame.samples,
      captureTime: wallClock(),
    });
  }

  blocks(options: ReadOptions = {}): AsyncIterable<LiveBlock> {
    return this.#blocks.read(options.signal);
  }

  async close(): Promise<void> {
    this.#blocks.close();
  }
}

/** A source fed by `push` (see the file comment). */
export function openClientAudio(options: ClientAudioOptions): ClientAudioSource {
  return new ClientAudioSource(options);
}
