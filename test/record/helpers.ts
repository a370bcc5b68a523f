// A synthetic rtl_tcp-like live source: cu8 I/Q bytes (a tone plus a pseudo-random dither, never zeros)
// delivered raw, with drops (a jump in `start`) and retunes (a new centre in the block's format) where a
// test plants them.
import type { LiveBlock, LiveSource } from '../../electron/engine/sources/live-source.js';
import type { ReadOptions } from '../../electron/engine/sources/source.js';

export interface PlannedBlock {
  /** Frames of the stream before this block (drops included). */
  start: number;
  frames: number;
  centerFrequency: number;
}

/** cu8 bytes of frames [start, start + frames) of the stream: a tone at rate/8 with a little dither. */
export function cu8Bytes(start: number, frames: number): Uint8Array {
  const out = new Uint8Array(2 * frames);
  for (let i = 0; i < frames; i++) {
    const n = start + i;
    const dither = ((n * 2654435761) >>> 24) / 255 - 0.5;
    out[2 * i] = Math.round(127.5 + 100 * Math.cos((2 * Math.PI * n) / 8) + 4 * dither);
    out[2 * i + 1] = Math.round(127.5 + 100 * Math.sin((2 * Math.PI * n) / 8) - 4 * dither);
  }
  return out;
}

/** Blocks of `frames` each from `start`, at `center`. */
export function plan(start: number, count: number, frames: number, center: number): PlannedBlock[] {
  return Array.from({ length: count }, (_, i) => ({
    start: start + i * frames,
    frames,
    centerFrequency: center,
  }));
}

/** `gate`: blocks after the first wait for it (a test starts recording in between). */
export function cu8Source(blocks: PlannedBlock[], sampleRate = 2.048e6, gate?: Promise<void>): LiveSource {
  const first = blocks[0]?.centerFrequency ?? 100e6;
  return {
    info: {
      container: 'live',
      encoding: 'cu8',
      complex: true,
      channels: 1,
      sampleRate,
      centerFrequency: first,
    },
    channel: 0,
    label: 'rtl_tcp://127.0.0.1:1234, R820T',
    droppedBlocks: 0,
    async *blocks(options: ReadOptions = {}): AsyncGenerator<LiveBlock> {
      for (const [i, b] of blocks.entries()) {
        if (i === 1 && gate) await gate;
        if (options.signal?.aborted) return;
        const bytes = cu8Bytes(b.start, b.frames);
        yield {
          format: { sampleRate, complex: true, channels: 1, centerFrequency: b.centerFrequency },
          start: b.start,
          frames: b.frames,
          data: options.raw
            ? { data: bytes, offset: 127.5, scale: 1 / 127.5 }
            : Float32Array.from(bytes, (v) => (v - 127.5) / 127.5),
          captureTime: Date.UTC(2026, 0, 2, 3, 4, 5) + ((b.start + b.frames) / sampleRate) * 1000,
        };
        await new Promise((r) => setImmediate(r));
      }
    },
    close: async () => undefined,
  };
}
