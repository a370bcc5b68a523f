// Messages between the engine and the audio worker (sources/mic-worker.ts), which hosts the native audio library
// so that its blocking calls (connecting to the sound server, opening a device) never stall the engine.

import type { AudioDevice } from '../protocol/messages.js';

export type ToAudioWorker =
  | { op: 'probe'; id: number }
  | { op: 'list'; id: number }
  | {
      op: 'open';
      id: number;
      stream: number;
      /** Device id or name (from list), a part of a name, or '' for the default input device. */
      device: string;
      /** Hz; 0 = the device's preferred rate. */
      sampleRate: number;
      /** 0-based input channel to capture. */
      channel: number;
      frameSize: number;
    }
  | { op: 'close'; id: number; stream: number };

export interface OpenedStream {
  sampleRate: number;
  frameSize: number;
  deviceName: string;
  api: string;
}

export type FromAudioWorker =
  | { op: 'reply'; id: number; ok: true; result: unknown }
  | { op: 'reply'; id: number; ok: false; message: string }
  | { op: 'data'; stream: number; data: Float32Array; time: number }
  | { op: 'error'; stream: number; message: string };

export type ListResult = { devices: AudioDevice[]; api: string };
export type ProbeResult = { available: true; api: string } | { available: false; reason: string };
