// The stream layer every backend's processors and the failover share: the cursors against a brute-force
// account of the same stream, the host tail against the stream it keeps, and the level normalisation.
import { describe, expect, it } from 'vitest';
import {
  FirCursor,
  FrameCursor,
  HostTail,
  LagCursor,
  channelSamples,
  firFrames,
  inputLength,
  levelNorm,
} from '../../electron/engine/backends/stream.js';
import type { DeviceArray } from '../../electron/engine/backends/backend.js';
import { InvalidArgumentError } from '../../electron/engine/errors.js';
import { frameCount } from '../../electron/engine/protocol/shape.js';

/** Deterministic block sizes (0 included) summing to at least `total`. */
function blocks(seed: number, total: number, max: number): number[] {
  let s = seed >>> 0;
  const out: number[] = [];
  for (let sum = 0; sum < total;) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    const n = s % (max + 1);
    out.push(n);
    sum += n;
  }
  return out;
}

describe('FrameCursor', () => {
  const shapes = [
    { fft: 8, hop: 8 },
    { fft: 8, hop: 3 },
    { fft: 8, hop: 1 },
    { fft: 5, hop: 13 }, // hop > fft: samples between frames belong to none
    { fft: 1, hop: 1 },
  ];
  for (const { fft, hop } of shapes) {
    it(`fft ${fft}, hop ${hop}: frames as frameCount, each starting at the front of the kept samples`, () => {
      for (let seed = 1; seed <= 20; seed++) {
        const c = new FrameCursor(fft, hop);
        let pushed = 0; // samples pushed so far
        let front = 0; // absolute sample at the front of the kept samples
        let kept = 0;
        let frames = 0;
        for (const n of blocks(seed, 200, 3 * Math.max(fft, hop))) {
          const count = c.push(n);
          pushed += n;
          expect(count).toBe(c.count);
          expect(c.first).toBe(frames);
          expect(frames + count).toBe(frameCount(pushed, fft, hop));
          expect(c.skip).toBeGreaterThanOrEqual(0);
          expect(c.skip).toBeLessThanOrEqual(n);
          if (c.skip > 0) expect(kept).toBe(0);
          front += c.skip;
          const available = kept + n - c.skip;
          if (count > 0) {
            expect(front).toBe(c.first * hop);
            expect((count - 1) * hop + fft).toBeLessThanOrEqual(available);
          }
          front += c.drop;
          kept = available - c.drop;
          expect(c.kept).toBe(kept);
          frames += count;
          expect(c.next).toBe(frames);
          expect(c.keepFrom).toBe(frames * hop);
          // The kept samples are exactly those from the next frame's start that have arrived.
          expect(kept).toBe(Math.max(0, pushed - frames * hop));
          if (kept > 0) expect(front).toBe(frames * hop);
        }
      }
    });
  }

  it('reset starts again at frame 0', () => {
    const c = new FrameCursor(4, 2);
    c.push(9);
    c.reset();
    expect([c.next, c.kept, c.keepFrom]).toEqual([0, 0, 0]);
    expect(c.push(4)).toBe(1);
    expect(c.first).toBe(0);
  });
});

describe('FirCursor', () => {
  it('direct form makes every pushed frame ready; overlap-save whole segments, the rest at flush', () => {
    for (const segment of [0, 1, 7, 64]) {
      for (let seed = 1; seed <= 10; seed++) {
        const c = new FirCursor(5, segment);
        let pushed = 0;
        let produced = 0;
        for (const n of blocks(seed, 300, 50)) {
          const ready = c.push(n);
          pushed += n;
          if (segment === 0) expect(ready).toBe(pushed - produced);
          else {
            expect(ready % segment).toBe(0);
            expect(pushed - produced - ready).toBeLessThan(segment);
            // segments are aligned to absolute frames
            expect((produced + ready) % segment).toBe(0);
          }
          c.produce(ready);
          produced += ready;
          expect(c.pending).toBe(pushed - produced);
          expect(c.next).toBe(produced);
          expect(c.keepFrom).toBe(produced - 4);
        }
        expect(c.flush()).toBe(pushed - produced);
        c.reset();
        expect([c.pending, c.next, c.keepFrom]).toEqual([0, 0, -4]);
      }
    }
  });
});

describe('LagCursor', () => {
  it('a lag is ready once its window has arrived; overlap-save returns whole aligned segments', () => {
    for (const segment of [0, 1, 9, 100]) {
      for (let seed = 1; seed <= 10; seed++) {
        const M = 17;
        const c = new LagCursor(M, segment);
        let pushed = 0;
        let returned = 0;
        for (const n of blocks(seed, 500, 40)) {
          const ready = c.push(n);
          pushed += n;
          const complete = Math.max(0, pushed - M + 1);
          if (segment === 0) expect(ready).toBe(complete - returned);
          else {
            expect(ready % segment).toBe(0);
            expect(complete - returned - ready).toBeLessThan(segment);
          }
          expect(c.take(ready)).toBe(returned);
          returned += ready;
          expect(c.next).toBe(returned);
          expect(c.keepFrom).toBe(returned);
        }
        expect(c.flush()).toBe(Math.max(0, pushed - M + 1) - returned);
      }
    }
  });
});

describe('HostTail', () => {
  it('keeps exactly the values from keepFrom, float and raw input alike', () => {
    for (let seed = 1; seed <= 10; seed++) {
      const tail = new HostTail();
      const stream: number[] = [];
      let i = 0;
      let start = 0;
      let keepFrom = 0;
      for (const n of blocks(seed, 3000, 300)) {
        const raw = i++ % 2 === 1;
        const data = new Int16Array(n);
        for (let k = 0; k < n; k++) data[k] = (stream.length + k) % 1000;
        const input = raw ? { data, offset: 0, scale: 1 } : Float32Array.from(data);
        stream.push(...data);
        // a keepFrom that only grows, as the cursors' do, sometimes past the end of the stream
        keepFrom = Math.max(keepFrom, stream.length + 50 - ((seed * 37 + i * 11) % 400));
        tail.append(input, keepFrom);
        start = Math.min(Math.max(keepFrom, start), stream.length);
        expect(tail.end).toBe(stream.length);
        expect(tail.start).toBe(start);
        expect(Array.from(tail.slice(start))).toEqual(stream.slice(start));
        expect(Array.from(tail.slice(keepFrom))).toEqual(stream.slice(keepFrom));
      }
      expect(tail.hostOnly).toBe(true);
    }
  });

  it('a device-resident input cannot be kept: hostOnly turns false', () => {
    const tail = new HostTail();
    tail.append(new Float32Array(10), 4);
    const device = { length: 6 } as DeviceArray;
    tail.append(device, 12);
    expect(tail.hostOnly).toBe(false);
    expect([tail.start, tail.end]).toEqual([16, 16]);
    tail.clear();
    expect([tail.start, tail.end]).toEqual([0, 0]);
  });
});

describe('input helpers', () => {
  it('inputLength counts values of floats, raw samples and device arrays', () => {
    expect(inputLength(new Float32Array(7))).toBe(7);
    expect(inputLength({ data: new Uint8Array(5), offset: 128, scale: 1 / 128 })).toBe(5);
    expect(inputLength({ length: 9 } as DeviceArray)).toBe(9);
  });

  it('channelSamples and firFrames refuse partial pairs and frames', () => {
    expect(channelSamples('spectrogram', 7, false)).toBe(7);
    expect(channelSamples('spectrogram', 8, true)).toBe(4);
    expect(() => channelSamples('correlate', 7, true)).toThrow(InvalidArgumentError);
    expect(() => channelSamples('correlate', 7, true)).toThrow(/correlate: complex input/);
    expect(firFrames(12, 3)).toBe(4);
    expect(() => firFrames(10, 3)).toThrow(/not a whole number of frames of 3 values/);
  });
});

describe('levelNorm', () => {
  it('1/(Σw)² for complex input and the real edges, ×4 for the other real bins', () => {
    const w = Float32Array.from([0.5, 1, 0.25, 0.25]);
    expect(levelNorm(w, true)).toEqual({ norm: 1 / 4, normEdge: 1 / 4 });
    expect(levelNorm(w, false)).toEqual({ norm: 1, normEdge: 1 / 4 });
  });
});
