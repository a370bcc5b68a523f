// Plays a time range of an audio file through the default output: the samples come from the engine
// (readSamples, only that range), go into a WebAudio AudioBuffer (de-interleaved), and play once. The
// position is published for the playhead.

import { defineStore } from 'pinia';
import { ref } from 'vue';
import type { FileInfo } from '../../../electron/engine/protocol/messages.js';
import { selectionFrames, type Selection } from '../lib/file-view.js';
import { useConnectionStore } from './connection.js';

/** Longest stretch played at once (floats of all channels): 2^24 ≈ 3 min of 48 kHz stereo. */
export const MAX_PLAY_VALUES = 1 << 24;

/** Splits interleaved frames into one array per channel. */
export function deinterleave(data: Float32Array, channels: number): Float32Array<ArrayBuffer>[] {
  const frames = Math.floor(data.length / channels);
  const out: Float32Array<ArrayBuffer>[] = [];
  for (let c = 0; c < channels; c++) {
    const ch = new Float32Array(frames);
    for (let i = 0, j = c; i < frames; i++, j += channels) ch[i] = data[j];
    out.push(ch);
  }
  return out;
}

export const usePlaybackStore = defineStore('playback', () => {
  const connection = useConnectionStore();
  const playing = ref(false);
  const loading = ref(false);
  /** File time (s) being heard, while playing. */
  const position = ref(NaN);
  const fileId = ref<number | null>(null);
  const error = ref('');
  const note = ref('');

  let context: AudioContext | null = null;
  let source: AudioBufferSourceNode | null = null;
  let raf = 0;
  let token = 0;

  function canPlay(info: FileInfo | null): boolean {
    return !!info && !info.complex && typeof AudioContext !== 'undefined';
  }

  function stop(): void {
    token++;
    if (source) {
      source.onended = null;
      try {
        source.stop();
      } catch {
        // Never started.
      }
      source.disconnect();
      source = null;
    }
    if (raf) cancelAnimationFrame(raf);
    raf = 0;
    playing.value = false;
    loading.value = false;
    position.value = NaN;
    fileId.value = null;
  }

  async function play(info: FileInfo, sel: Selection | null): Promise<void> {
    stop();
    error.value = '';
    note.value = '';
    if (!canPlay(info)) {
      error.value = info.complex
        ? 'I/Q recordings cannot be played as audio'
        : 'this browser has no audio output (WebAudio)';
      return;
    }
    const whole = { t0: 0, t1: info.duration };
    const range = selectionFrames(sel ?? whole, info);
    const start = range.start;
    let end = range.end;
    const maxFrames = Math.floor(MAX_PLAY_VALUES / Math.max(1, info.channels));
    if (end - start > maxFrames) {
      end = start + maxFrames;
      note.value = `playing the first ${(maxFrames / info.sampleRate).toFixed(1)} s of the selection`;
    }
    const mine = ++token;
    loading.value = true;
    try {
      const r = await connection.request('readSamples', { file: info.file, start, end });
      if (mine !== token) return;
      context ??= new AudioContext();
      if (context.state === 'suspended') await context.resume();
      const channels = deinterleave(r.data, r.channels);
      const buffer = context.createBuffer(r.channels, channels[0]?.length || 1, r.sampleRate);
      channels.forEach((ch, c) => buffer.copyToChannel(ch, c));
      const node = context.createBufferSource();
      node.buffer = buffer;
      node.connect(context.destination);
      const startedAt = context.currentTime;
      node.onended = () => {
        if (source === node) stop();
      };
      node.start();
      source = node;
      playing.value = true;
      fileId.value = info.file;
      const ctx = context;
      const t0 = r.start / r.sampleRate;
      const tick = () => {
        if (source !== node) return;
        position.value = t0 + (ctx.currentTime - startedAt);
        raf = requestAnimationFrame(tick);
      };
      tick();
    } catch (e) {
      if (mine === token) error.value = e instanceof Error ? e.message : String(e);
    } finally {
      if (mine === token) loading.value = false;
    }
  }

  return { playing, loading, position, fileId, error, note, canPlay, play, stop };
});
