// Audio a page captures itself (the browser's own microphone, web mode) travels to the engine as binary
// messages on the connection, one block each, little-endian:
//
//   offset  0  u32  magic 'PHAU'
//           4  u32  session: the live session the block is for (the `start` reply's LiveInfo.session)
//           8  u32  seq: block number since the capture started; a gap is blocks the page dropped
//          12  u32  frames in this block (1 … AUDIO_FRAME_MAX_FRAMES)
//          16  f64  start: frame number of its first sample since the capture started, drops included
//          24  f32  samples[frames] (mono)
//
// The page writes blocks of `audioBlockFrames(sampleRate)` frames and never lets more than
// AUDIO_SEND_QUEUE_SECONDS of them wait in its socket: past that it drops whole blocks, which the engine
// sees as a jump in `seq` and `start` and counts with its own drops. Browser-safe: no Node imports.

export const AUDIO_FRAME_MAGIC = 0x55414850; // 'PHAU' read as a little-endian u32
export const AUDIO_FRAME_HEADER_BYTES = 24;
/** Largest block accepted (frames): a third of a second at 48 kHz. */
export const AUDIO_FRAME_MAX_FRAMES = 16384;
/** Audio the page lets wait in its socket before it drops blocks (s). */
export const AUDIO_SEND_QUEUE_SECONDS = 0.5;
/** The name the page's AudioWorklet processor is registered under (renderer/src/lib/browser-mic*). */
export const AUDIO_WORKLET_PROCESSOR = 'phasor-mic-blocks';

/** Frames per block the page sends: a power of two near 20 ms (1024 at 48 kHz). */
export function audioBlockFrames(sampleRate: number): number {
  const target = Math.max(128, Math.min(AUDIO_FRAME_MAX_FRAMES, sampleRate * 0.02));
  return 2 ** Math.round(Math.log2(target));
}

export interface AudioFrame {
  session: number;
  seq: number;
  start: number;
  /** The samples, copied out of the message (aligned, owned by the caller). */
  samples: Float32Array;
}

/** Writes the header into a block whose samples are already at AUDIO_FRAME_HEADER_BYTES. */
export function writeAudioHeader(
  buffer: ArrayBuffer,
  header: { session: number; seq: number; frames: number; start: number },
): void {
  const v = new DataView(buffer);
  v.setUint32(0, AUDIO_FRAME_MAGIC, true);
  v.setUint32(4, header.session >>> 0, true);
  v.setUint32(8, header.seq >>> 0, true);
  v.setUint32(12, header.frames >>> 0, true);
  v.setFloat64(16, header.start, true);
}

/** A whole block: header and samples in one new buffer. */
export function encodeAudioFrame(header: {
  session: number;
  seq: number;
  start: number;
  samples: Float32Array;
}): ArrayBuffer {
  const buffer = new ArrayBuffer(AUDIO_FRAME_HEADER_BYTES + header.samples.length * 4);
  new Float32Array(buffer, AUDIO_FRAME_HEADER_BYTES).set(header.samples);
  writeAudioHeader(buffer, { ...header, frames: header.samples.length });
  return buffer;
}

/** The session a message is for, or undefined when it is no audio block. */
export function audioFrameSession(bytes: Uint8Array): number | undefined {
  if (bytes.byteLength < AUDIO_FRAME_HEADER_BYTES) return undefined;
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return v.getUint32(0, true) === AUDIO_FRAME_MAGIC ? v.getUint32(4, true) : undefined;
}

/** Reads one block; throws an Error saying what is wrong with a malformed one. */
export function decodeAudioFrame(bytes: Uint8Array): AudioFrame {
  if (bytes.byteLength < AUDIO_FRAME_HEADER_BYTES) {
    throw new Error(
      `an audio block has a ${AUDIO_FRAME_HEADER_BYTES}-byte header, got ${bytes.byteLength} bytes`,
    );
  }
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (v.getUint32(0, true) !== AUDIO_FRAME_MAGIC) throw new Error('a binary message is not an audio block');
  const frames = v.getUint32(12, true);
  if (frames < 1 || frames > AUDIO_FRAME_MAX_FRAMES) {
    throw new Error(`an audio block holds 1 to ${AUDIO_FRAME_MAX_FRAMES} frames, got ${frames}`);
  }
  const expected = AUDIO_FRAME_HEADER_BYTES + frames * 4;
  if (bytes.byteLength !== expected) {
    throw new Error(`an audio block of ${frames} frames has ${expected} bytes, got ${bytes.byteLength}`);
  }
  const start = v.getFloat64(16, true);
  if (!Number.isSafeInteger(start) || start < 0) {
    throw new Error(`an audio block's start frame must be a whole number ≥ 0, got ${start}`);
  }
  const samples = new Float32Array(frames);
  for (let i = 0; i < frames; i++) {
    const x = v.getFloat32(AUDIO_FRAME_HEADER_BYTES + 4 * i, true);
    if (!Number.isFinite(x))
      throw new Error(`an audio block holds a sample that is not a number (frame ${i})`);
    samples[i] = x;
  }
  return { session: v.getUint32(4, true), seq: v.getUint32(8, true), start, samples };
}
