// A deliberately small WAV writer for tests, independent of the engine's, so reader bugs cannot hide
// behind a writer with the same bug.
import { writeFileSync } from 'node:fs';

export type TestWavEncoding = 'pcm16' | 'float32' | 'mulaw';

/** Interleaved samples in [−1, 1] → a canonical 44-byte-header WAV file. */
export function writeTestWav(
  path: string,
  samples: Float32Array | Float64Array,
  sampleRate: number,
  channels: number,
  encoding: TestWavEncoding = 'pcm16',
): void {
  const bytesPer = encoding === 'pcm16' ? 2 : encoding === 'float32' ? 4 : 1;
  const data = Buffer.alloc(samples.length * bytesPer);
  for (let i = 0; i < samples.length; i++) {
    if (encoding === 'pcm16') data.writeInt16LE(quantize16(samples[i]), 2 * i);
    else if (encoding === 'float32') data.writeFloatLE(samples[i], 4 * i);
    else data[i] = 0xff; // µ-law silence: only the header matters for the refusal test
  }
  const formatTag = encoding === 'pcm16' ? 1 : encoding === 'float32' ? 3 : 7;
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'ascii');
  h.writeUInt32LE(36 + data.length, 4);
  h.write('WAVE', 8, 'ascii');
  h.write('fmt ', 12, 'ascii');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(formatTag, 20);
  h.writeUInt16LE(channels, 22);
  h.writeUInt32LE(sampleRate, 24);
  h.writeUInt32LE(sampleRate * channels * bytesPer, 28);
  h.writeUInt16LE(channels * bytesPer, 32);
  h.writeUInt16LE(bytesPer * 8, 34);
  h.write('data', 36, 'ascii');
  h.writeUInt32LE(data.length, 40);
  writeFileSync(path, Buffer.concat([h, data]));
}

/** The int16 a sample becomes (round half away from zero, clipped), matching the fixture script. */
export function quantize16(v: number): number {
  const q = Math.round(Math.abs(v) * 32767) * Math.sign(v);
  return Math.max(-32768, Math.min(32767, q));
}

/** Reads a canonical PCM16/float32 WAV back (for checking outputs). */
export function readTestWav(bytes: Buffer): { sampleRate: number; channels: number; samples: Float64Array } {
  if (bytes.toString('ascii', 0, 4) !== 'RIFF') throw new Error('not RIFF');
  let off = 12;
  let fmt: { tag: number; channels: number; rate: number; bits: number } | undefined;
  while (off + 8 <= bytes.length) {
    const id = bytes.toString('ascii', off, off + 4);
    const size = bytes.readUInt32LE(off + 4);
    const body = off + 8;
    if (id === 'fmt ') {
      let tag = bytes.readUInt16LE(body);
      if (tag === 0xfffe) tag = bytes.readUInt16LE(body + 24);
      fmt = {
        tag,
        channels: bytes.readUInt16LE(body + 2),
        rate: bytes.readUInt32LE(body + 4),
        bits: bytes.readUInt16LE(body + 14),
      };
    } else if (id === 'data' && fmt) {
      const bps = fmt.bits / 8;
      const n = Math.floor(Math.min(size, bytes.length - body) / bps);
      const samples = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        const p = body + i * bps;
        samples[i] =
          fmt.tag === 3
            ? bps === 4
              ? bytes.readFloatLE(p)
              : bytes.readDoubleLE(p)
            : bytes.readInt16LE(p) / 32768;
      }
      return { sampleRate: fmt.rate, channels: fmt.channels, samples };
    }
    off = body + size + (size & 1);
  }
  throw new Error('no data chunk');
}
