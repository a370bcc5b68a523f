// Picking one channel out of interleaved frames, for operations that work on one channel.

import { InvalidArgumentError } from '../errors.js';
import type { SamplesInput, StreamFormat } from '../types.js';
import { isRawSamples, toFloat32 } from '../types.js';

/** Checks a channel index against a stream's channel count. */
export function checkChannel(channel: number, format: StreamFormat, file?: string): void {
  if (!Number.isInteger(channel) || channel < 0 || channel >= format.channels) {
    const where = file ? `${file} has` : 'the stream has';
    throw new InvalidArgumentError(
      `channel ${channel} does not exist: ${where} ${format.channels} channel${format.channels === 1 ? '' : 's'} (0…${format.channels - 1})`,
    );
  }
}

/**
 * The samples of one channel. Single-channel input is returned as is (raw integers stay raw, so a GPU
 * backend converts them itself); multi-channel input is decoded and de-interleaved.
 */
export function channelOf(data: SamplesInput, format: StreamFormat, channel: number): SamplesInput {
  if (format.channels === 1) return data;
  const floats = isRawSamples(data) ? toFloat32(data) : data;
  const w = format.complex ? 2 : 1;
  const stride = format.channels * w;
  const frames = floats.length / stride;
  const out = new Float32Array(frames * w);
  for (let f = 0, i = channel * w, o = 0; f < frames; f++, i += stride, o += w) {
    out[o] = floats[i];
    if (w === 2) out[o + 1] = floats[i + 1];
  }
  return out;
}
