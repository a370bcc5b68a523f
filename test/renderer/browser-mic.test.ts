// The page's side of the browser microphone: its blocks are numbered and framed for the engine, whole
// blocks are dropped (and counted) while the socket holds more than half a second of audio, and the engine's
// client-audio source reads those drops from the jump in seq. Refusals are one line each.
import { describe, expect, it } from 'vitest';
import {
  AUDIO_FRAME_HEADER_BYTES,
  AUDIO_SEND_QUEUE_SECONDS,
  audioBlockFrames,
  decodeAudioFrame,
} from '../../electron/engine/protocol/audio-frames.js';
import { openClientAudio } from '../../electron/engine/sources/client-audio.js';
import { AudioBlockSender, browserMicUnavailable, captureError } from '../../renderer/src/lib/browser-mic.js';

const FS = 48000;
const FRAMES = audioBlockFrames(FS);

/** A block as the worklet hands it over: header space, then samples seq·FRAMES + i. */
function workletBlock(seq: number): ArrayBuffer {
  const buffer = new ArrayBuffer(AUDIO_FRAME_HEADER_BYTES + FRAMES * 4);
  const s = new Float32Array(buffer, AUDIO_FRAME_HEADER_BYTES);
  for (let i = 0; i < FRAMES; i++) s[i] = ((seq * FRAMES + i) % 1000) / 1000;
  return buffer;
}

describe('browser microphone: blocks to the engine', () => {
  it('numbers blocks for the session, drops whole blocks while the socket is behind, and the engine counts them', async () => {
    expect(FRAMES).toBe(1024);
    const sent: ArrayBuffer[] = [];
    let buffered = 0;
    const sender = new AudioBlockSender(
      { sendBinary: (d) => sent.push(d), bufferedAmount: () => buffered },
      7,
      FS,
    );
    const limit = AUDIO_SEND_QUEUE_SECONDS * FS * 4;
    const outcome: string[] = [];
    for (let seq = 0; seq < 8; seq++) {
      buffered = seq >= 3 && seq < 6 ? limit + 1 : limit; // blocks 3, 4, 5 find the socket behind
      outcome.push(sender.push(workletBlock(seq)));
    }
    expect(outcome).toEqual(['sent', 'sent', 'sent', 'dropped', 'dropped', 'dropped', 'sent', 'sent']);
    expect([sender.sent, sender.dropped]).toEqual([5, 3]);
    const frames = sent.map((b) => decodeAudioFrame(new Uint8Array(b)));
    expect(frames.map((f) => [f.session, f.seq, f.start])).toEqual([
      [7, 0, 0],
      [7, 1, FRAMES],
      [7, 2, 2 * FRAMES],
      [7, 6, 6 * FRAMES],
      [7, 7, 7 * FRAMES],
    ]);
    expect(frames[3].samples[10]).toBeCloseTo(((6 * FRAMES + 10) % 1000) / 1000, 6);

    // The engine's source sees the three dropped blocks as a gap.
    const source = openClientAudio({ sampleRate: FS });
    for (const b of sent) source.push(new Uint8Array(b));
    expect(source.droppedBlocks).toBe(3);
    const it = source.blocks()[Symbol.asyncIterator]();
    const starts: number[] = [];
    for (let i = 0; i < 5; i++) starts.push((await it.next()).value!.start);
    expect(starts).toEqual([0, 1, 2, 6, 7].map((k) => k * FRAMES));
    await source.close();
  });

  it('refuses a sink that cannot carry binary messages (the desktop bridge)', () => {
    expect(() => new AudioBlockSender({}, 1, FS)).toThrow(/carries no audio from the page/);
  });
});

describe('browser microphone: what stops it, in one line', () => {
  const page = (href: string, secure: boolean, gum = true) => {
    const location = new URL(href);
    return {
      isSecureContext: secure,
      location: location as unknown as Location,
      navigator: {
        mediaDevices: (gum ? { getUserMedia: () => undefined } : undefined) as unknown as MediaDevices,
      },
    };
  };

  it('says a LAN http:// page is not a secure context, and what to do', () => {
    const why = browserMicUnavailable(page('http://192.168.1.20:8080/?token=x', false))!;
    expect(why).toMatch(
      /only to https:\/\/ pages and to http:\/\/localhost or 127\.0\.0\.1, not to http:\/\/192\.168\.1\.20/,
    );
    expect(why).toContain('phasor serve --tls-cert FILE --tls-key FILE');
    expect(why).toContain('ssh -L 8080:127.0.0.1:8080 SERVER');
    expect(why).not.toContain('\n');
    expect(browserMicUnavailable(page('http://127.0.0.1:8080/', true))).toBeUndefined();
    expect(browserMicUnavailable(page('https://host/', true, false))).toMatch(/no microphone capture/);
  });

  it('names a refused permission, a missing device and a busy one', () => {
    const err = (name: string) => Object.assign(new Error('x'), { name });
    expect(captureError(err('NotAllowedError'))).toMatch(/^browser microphone: permission denied: allow/);
    expect(captureError(err('NotFoundError'))).toBe(
      'browser microphone: no microphone found on this computer',
    );
    expect(captureError(err('NotReadableError'))).toMatch(/could not be opened \(in use by another program/);
    expect(captureError(new Error('first\nsecond'))).toBe('browser microphone: first');
  });
});
