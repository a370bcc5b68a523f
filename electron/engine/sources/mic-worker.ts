// The audio worker: loads audify (RtAudio bindings) lazily and captures float32 blocks from one input
// channel, posting each block with the wall-clock time it arrived. Runs in a child process of the engine
// (audio-process.ts) so that RtAudio's blocking calls never stall the engine's event loop and the audio
// libraries' stderr noise never reaches the terminal; it also runs as a worker thread (blocks transferred).

import { createRequire } from 'node:module';
import { parentPort } from 'node:worker_threads';
import type { AudioDevice } from '../protocol/messages.js';
import type { FromAudioWorker, OpenedStream, ProbeResult, ToAudioWorker } from './mic-messages.js';

// The parts of audify used here (declared locally: audify is an optional dependency).
interface RtDeviceInfo {
  id: number;
  name: string;
  inputChannels: number;
  isDefaultInput: number | boolean;
  sampleRates: number[];
  preferredSampleRate: number;
}
interface RtAudioLike {
  getDevices(): RtDeviceInfo[];
  getDefaultInputDevice(): number;
  getApi(): string;
  openStream(
    output: null,
    input: { deviceId: number; nChannels: number; firstChannel: number },
    format: number,
    sampleRate: number,
    frameSize: number,
    name: string,
    onInput: (data: Buffer) => void,
    onOutput: null,
    flags: number,
    onError: (type: number, message: string) => void,
  ): number;
  getStreamSampleRate(): number;
  start(): void;
  stop(): void;
  isStreamRunning(): boolean;
  isStreamOpen(): boolean;
  closeStream(): void;
}
interface AudifyModule {
  RtAudio: new (api?: number) => RtAudioLike;
}

const API_UNSPECIFIED = 0;
const API_LINUX_ALSA = 2;
const API_LINUX_PULSE = 4;
const FORMAT_FLOAT32 = 0x10;
const ERROR_WARNING = 0;
const ERROR_DEBUG_WARNING = 1;

let audify: AudifyModule | undefined;
let loadError: string | undefined;

function load(): AudifyModule {
  if (audify) return audify;
  if (loadError === undefined) {
    try {
      audify = createRequire(import.meta.url)('audify') as AudifyModule;
      return audify;
    } catch (err) {
      loadError = err instanceof Error ? err.message.split('\n')[0] : String(err);
    }
  }
  throw new Error(
    `audio input needs the optional package audify, which could not be loaded here (${loadError}); ` +
      'install it with `npm install audify`' +
      (process.platform === 'linux' ? ' (it needs the libasound2 and libpulse0 libraries)' : ''),
  );
}

/** RtAudio APIs to try, best first: PulseAudio on Linux (ALSA when no sound server answers). */
function apis(): number[] {
  return process.platform === 'linux' ? [API_LINUX_PULSE, API_LINUX_ALSA] : [API_UNSPECIFIED];
}

/** An RtAudio instance on the first API that lists an input device (or the first API when none does). */
function instance(): { rt: RtAudioLike; devices: RtDeviceInfo[] } {
  const { RtAudio } = load();
  let first: { rt: RtAudioLike; devices: RtDeviceInfo[] } | undefined;
  let lastError: unknown;
  for (const api of apis()) {
    try {
      const rt = new RtAudio(api);
      const devices = rt.getDevices();
      if (devices.some((d) => d.inputChannels > 0)) return { rt, devices };
      first ??= { rt, devices };
    } catch (err) {
      lastError = err;
    }
  }
  if (first) return first;
  throw new Error(
    `no audio system answered (${lastError instanceof Error ? lastError.message : String(lastError)})`,
  );
}

function describe(d: RtDeviceInfo, defaultId: number): AudioDevice {
  return {
    id: d.name,
    name: d.name,
    isDefault: d.id === defaultId || !!d.isDefaultInput,
    channels: d.inputChannels,
    sampleRates: [...d.sampleRates],
    preferredSampleRate: d.preferredSampleRate,
  };
}

function inputs(rt: RtAudioLike, devices: RtDeviceInfo[]): AudioDevice[] {
  let defaultId = -1;
  try {
    defaultId = rt.getDefaultInputDevice();
  } catch {
    // No default: every device is listed without one.
  }
  return devices.filter((d) => d.inputChannels > 0).map((d) => describe(d, defaultId));
}

/** The device asked for: its name, its RtAudio id, or a part of its name that picks one device. */
function pick(rt: RtAudioLike, devices: RtDeviceInfo[], wanted: string): RtDeviceInfo {
  const candidates = devices.filter((d) => d.inputChannels > 0);
  if (candidates.length === 0) throw new Error('no audio input device was found');
  const names = candidates.map((d) => `"${d.name}"`).join(', ');
  if (wanted === '') {
    let id = -1;
    try {
      id = rt.getDefaultInputDevice();
    } catch {
      // fall through to the first input
    }
    return candidates.find((d) => d.id === id) ?? candidates.find((d) => !!d.isDefaultInput) ?? candidates[0];
  }
  const exact = candidates.find((d) => d.name === wanted);
  if (exact) return exact;
  if (/^\d+$/.test(wanted)) {
    const byId = candidates.find((d) => d.id === Number(wanted));
    if (byId) return byId;
  }
  const lower = wanted.toLowerCase();
  const partial = candidates.filter((d) => d.name.toLowerCase().includes(lower));
  if (partial.length === 1) return partial[0];
  if (partial.length > 1) {
    throw new Error(
      `"${wanted}" matches several input devices: ${partial.map((d) => `"${d.name}"`).join(', ')}`,
    );
  }
  throw new Error(`no input device "${wanted}" (unplugged?); input devices: ${names}`);
}

interface Stream {
  rt: RtAudioLike;
  closed: boolean;
}
const streams = new Map<number, Stream>();

function post(message: FromAudioWorker, transfer?: ArrayBuffer[]): void {
  if (parentPort) parentPort.postMessage(message, transfer);
  else if (process.connected) process.send?.(message);
}

function open(msg: Extract<ToAudioWorker, { op: 'open' }>): OpenedStream {
  const { rt, devices } = instance();
  const device = pick(rt, devices, msg.device);
  if (msg.channel < 0 || msg.channel >= device.inputChannels) {
    throw new Error(
      `"${device.name}" has ${device.inputChannels} input channel${device.inputChannels === 1 ? '' : 's'}; ` +
        `channel ${msg.channel + 1} does not exist`,
    );
  }
  const rate = msg.sampleRate > 0 ? msg.sampleRate : device.preferredSampleRate || 48000;
  if (device.sampleRates.length > 0 && !device.sampleRates.includes(rate)) {
    throw new Error(
      `"${device.name}" does not capture at ${rate} Hz; it offers ${device.sampleRates.join(', ')} Hz`,
    );
  }
  const stream: Stream = { rt, closed: false };
  const id = msg.stream;
  const onInput = (data: Buffer): void => {
    if (stream.closed) return;
    const time = performance.timeOrigin + performance.now();
    const n = data.byteLength >>> 2;
    const out = new Float32Array(n);
    if ((data.byteOffset & 3) === 0) out.set(new Float32Array(data.buffer, data.byteOffset, n));
    else for (let i = 0; i < n; i++) out[i] = data.readFloatLE(4 * i);
    post({ op: 'data', stream: id, data: out, time }, [out.buffer]);
  };
  const onError = (type: number, message: string): void => {
    if (stream.closed) return;
    // RtAudio reports a failing read (the device went away) as a mere warning, then keeps calling back
    // as fast as it can: that is the end of the stream.
    const readFailed = /read error|stream error/i.test(message);
    if ((type === ERROR_WARNING || type === ERROR_DEBUG_WARNING) && !readFailed) return;
    post({
      op: 'error',
      stream: id,
      message: readFailed ? `the device stopped delivering audio (unplugged?): ${message}` : message,
    });
    closeNow(id);
  };
  const frameSize = rt.openStream(
    null,
    { deviceId: device.id, nChannels: 1, firstChannel: msg.channel },
    FORMAT_FLOAT32,
    rate,
    msg.frameSize,
    'Phasor',
    onInput,
    null,
    0,
    onError,
  );
  rt.start();
  streams.set(id, stream);
  let actual = rate;
  try {
    actual = rt.getStreamSampleRate() || rate;
  } catch {
    // keep the requested rate
  }
  return { sampleRate: actual, frameSize, deviceName: device.name, api: rt.getApi() };
}

/** Stops and closes a stream at once (from this thread). */
function closeNow(id: number): void {
  const s = streams.get(id);
  if (!s) return;
  streams.delete(id);
  s.closed = true;
  try {
    if (s.rt.isStreamRunning()) s.rt.stop();
  } finally {
    if (s.rt.isStreamOpen()) s.rt.closeStream();
  }
}

function handle(msg: ToAudioWorker): unknown {
  switch (msg.op) {
    case 'probe': {
      try {
        load();
        return {
          available: true,
          api: process.platform === 'linux' ? 'pulse/alsa' : 'default',
        } as ProbeResult;
      } catch (err) {
        return { available: false, reason: (err as Error).message } as ProbeResult;
      }
    }
    case 'list': {
      const { rt, devices } = instance();
      return { devices: inputs(rt, devices), api: rt.getApi() };
    }
    case 'open':
      return open(msg);
    case 'close':
      closeNow(msg.stream);
      return {};
  }
}

// After a stream closes, audify may still have blocks queued for this thread; a worker torn down with
// calls pending aborts the whole process (audify builds a Buffer on a dying environment). So a close is
// answered only after the queue had time to drain, and the host stops the worker only after that.
const DRAIN_MS = 50;

// The engine went away (its IPC channel closed): so does this process.
if (!parentPort) process.once('disconnect', () => process.exit(0));

const port = parentPort ?? process;
port.on('message', (msg: ToAudioWorker) => {
  let reply: FromAudioWorker;
  try {
    reply = { op: 'reply', id: msg.id, ok: true, result: handle(msg) };
  } catch (err) {
    reply = { op: 'reply', id: msg.id, ok: false, message: err instanceof Error ? err.message : String(err) };
  }
  if (msg.op === 'close') setTimeout(() => post(reply), DRAIN_MS);
  else post(reply);
});
