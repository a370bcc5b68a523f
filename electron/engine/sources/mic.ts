// Microphone capture: a live source fed by the audio worker (electron/engine/sources/mic-worker.ts, in a
// child process: audio-process.ts), which hosts audify (RtAudio; PulseAudio on Linux, the platform's default API elsewhere).
//
//   const mic = await openMicrophone({ device: '', sampleRate: 48000, channel: 0 });
//   for await (const block of mic.blocks({ signal })) …   // float32 mono blocks, endless
//   await mic.close();
//
// The capture side never waits for the consumer: blocks queue up to `maxQueueSeconds`, then the oldest are
// dropped and counted (an overrun). A stream error, or no audio at all for `stallTimeoutMs` (a device
// unplugged), ends the iteration with a PhasorError ('io') whose message says what happened.
// audify is loaded lazily in the worker: when it cannot load, probeMicrophone() says why and how to fix it.

import { InvalidArgumentError, PhasorError } from '../errors.js';
import type { AudioDevice } from '../protocol/messages.js';
import type { ReadOptions, SourceInfo } from './source.js';
import type { StreamFormat } from '../types.js';
import type { LiveBlock, LiveSource } from './live-source.js';
import type {
  FromAudioWorker,
  ListResult,
  OpenedStream,
  ProbeResult,
  ToAudioWorker,
} from './mic-messages.js';
import { startAudioProcess, type AudioProcess } from './audio-process.js';
import { PushedBlocks } from './pushed-blocks.js';
import { findWorkerScript } from './worker-url.js';

// ---------------------------------------------------------------------------------------------------
// Driver: how the source talks to the audio library (the worker by default; a fake in tests)

export interface MicStreamHandlers {
  /** A block of float32 samples of the channel asked for, and when it reached the engine (wall clock, ms). */
  data(samples: Float32Array, captureTime: number): void;
  /** The stream failed (the device went away, the sound server stopped…). */
  error(message: string): void;
}

export interface MicStream {
  readonly sampleRate: number;
  readonly frameSize: number;
  readonly deviceName: string;
  close(): Promise<void>;
}

export interface MicOpenRequest {
  /** Device id or name, a part of a name, or '' for the default input. */
  device: string;
  /** Hz; 0 = the device's preferred rate. */
  sampleRate: number;
  /** 0-based input channel. */
  channel: number;
  /** Frames per block delivered by the audio library. */
  frameSize: number;
}

export interface MicDriver {
  /** Why audio input cannot work here, or undefined when it can. Never throws. */
  probe(): Promise<string | undefined>;
  listDevices(): Promise<AudioDevice[]>;
  open(request: MicOpenRequest, handlers: MicStreamHandlers): Promise<MicStream>;
}

let workerUrlOverride: URL | undefined;

/** Overrides where the audio worker script is (a host that bundles the engine can point at its copy). */
export function setAudioWorkerUrl(url: URL | undefined): void {
  workerUrlOverride = url;
}

interface Pending {
  resolve(value: unknown): void;
  reject(err: Error): void;
}

/** The audio worker, started on first use and stopped when idle (so it never keeps a CLI alive). */
class AudioWorkerHost implements MicDriver {
  #worker: AudioProcess | null = null;
  #nextId = 1;
  readonly #pending = new Map<number, Pending>();
  readonly #streams = new Map<number, MicStreamHandlers>();
  #idleTimer: ReturnType<typeof setTimeout> | null = null;
  #probe: Promise<string | undefined> | null = null;

  #start(): AudioProcess {
    if (this.#worker) return this.#worker;
    const script = workerUrlOverride
      ? { url: workerUrlOverride }
      : findWorkerScript(import.meta.url, ['./mic-worker']);
    if (!script) {
      throw new PhasorError(
        'io',
        'audio input is not available: the audio worker script (mic-worker.js) is missing from this build',
      );
    }
    // A process of its own, not a thread: the audio library's stderr noise must not reach the terminal.
    const w = startAudioProcess(script);
    w.onMessage((m) => this.#onMessage(m as FromAudioWorker));
    w.onError((err) => this.#fail(`the audio worker failed: ${err.message}`));
    w.onExit((code) => {
      if (this.#worker === w) {
        this.#worker = null;
        this.#fail(`the audio worker stopped (exit code ${code})`);
      }
    });
    this.#worker = w;
    this.#refresh();
    return w;
  }

  #fail(message: string): void {
    for (const p of this.#pending.values()) p.reject(new PhasorError('io', message));
    this.#pending.clear();
    for (const h of this.#streams.values()) h.error(message);
    this.#streams.clear();
    this.#refresh();
  }

  /** Keeps the process alive only while something waits on the worker; stops it after 5 s idle. */
  #refresh(): void {
    const w = this.#worker;
    if (!w) return;
    const busy = this.#pending.size > 0 || this.#streams.size > 0;
    if (busy) {
      w.ref();
      if (this.#idleTimer) clearTimeout(this.#idleTimer);
      this.#idleTimer = null;
    } else {
      w.unref();
      if (!this.#idleTimer) {
        this.#idleTimer = setTimeout(() => {
          this.#idleTimer = null;
          if (this.#pending.size === 0 && this.#streams.size === 0 && this.#worker === w) {
            this.#worker = null;
            void w.terminate();
          }
        }, 5000);
        this.#idleTimer.unref();
      }
    }
  }

  #onMessage(m: FromAudioWorker): void {
    if (m.op === 'reply') {
      const p = this.#pending.get(m.id);
      if (!p) return;
      this.#pending.delete(m.id);
      if (m.ok) p.resolve(m.result);
      else p.reject(new PhasorError('io', m.message));
      this.#refresh();
    } else if (m.op === 'data') {
      this.#streams.get(m.stream)?.data(m.data, m.time);
    } else if (m.op === 'error') {
      const h = this.#streams.get(m.stream);
      if (h) {
        this.#streams.delete(m.stream);
        h.error(m.message);
        void this.#request({ op: 'close', id: 0, stream: m.stream }).catch(() => undefined);
      }
    }
  }

  #request<T>(msg: ToAudioWorker): Promise<T> {
    let w: AudioProcess;
    try {
      w = this.#start();
    } catch (err) {
      return Promise.reject(err);
    }
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.#refresh();
      w.postMessage({ ...msg, id });
    });
  }

  /** Closes every stream (letting queued blocks drain), waits for every request in flight (a close
   * still draining), then stops the worker: never tear the worker down under audify's queued calls. */
  async shutdown(): Promise<void> {
    const ids = [...this.#streams.keys()];
    this.#streams.clear();
    await Promise.all(
      ids.map((stream) => this.#request({ op: 'close', id: 0, stream }).catch(() => undefined)),
    );
    const deadline = performance.now() + 3000;
    while (this.#pending.size > 0 && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const w = this.#worker;
    this.#worker = null;
    if (this.#idleTimer) clearTimeout(this.#idleTimer);
    this.#idleTimer = null;
    if (w) await w.terminate();
  }

  probe(): Promise<string | undefined> {
    this.#probe ??= this.#request<ProbeResult>({ op: 'probe', id: 0 }).then(
      (r) => (r.available ? undefined : r.reason),
      (err: Error) => err.message,
    );
    return this.#probe;
  }

  async listDevices(): Promise<AudioDevice[]> {
    const reason = await this.probe();
    if (reason !== undefined) throw new PhasorError('io', reason);
    const r = await this.#request<ListResult>({ op: 'list', id: 0 });
    return r.devices;
  }

  async open(request: MicOpenRequest, handlers: MicStreamHandlers): Promise<MicStream> {
    const reason = await this.probe();
    if (reason !== undefined) throw new PhasorError('io', reason);
    const stream = this.#nextId++;
    this.#streams.set(stream, handlers);
    let opened: OpenedStream;
    try {
      opened = await this.#request<OpenedStream>({ op: 'open', id: 0, stream, ...request });
    } catch (err) {
      this.#streams.delete(stream);
      this.#refresh();
      throw err;
    }
    return {
      sampleRate: opened.sampleRate,
      frameSize: opened.frameSize,
      deviceName: opened.deviceName,
      close: async () => {
        if (!this.#streams.delete(stream)) return;
        try {
          await this.#request({ op: 'close', id: 0, stream });
        } finally {
          this.#refresh();
        }
      },
    };
  }
}

let sharedHost: AudioWorkerHost | undefined;

/** The audio library in its worker process (one per engine process). */
export function audioDriver(): MicDriver {
  sharedHost ??= new AudioWorkerHost();
  return sharedHost;
}

/** Closes every microphone stream and stops the audio worker (before a host exits). */
export async function shutdownAudio(): Promise<void> {
  await sharedHost?.shutdown();
}

// ---------------------------------------------------------------------------------------------------
// The source

export interface MicrophoneOptions {
  /** Device id or name, a unique part of a name, or '' (default) for the default input. */
  device?: string;
  /** Hz; 0 (default) = the device's preferred rate. */
  sampleRate?: number;
  /** 0-based input channel. Default 0. */
  channel?: number;
  /** Frames per block; default about 5 ms of audio (a power of two). */
  frameSize?: number;
  /** Audio kept waiting for a slow consumer before the oldest blocks are dropped (s). Default 0.5. */
  maxQueueSeconds?: number;
  /** No audio for this long once blocks flowed means the device is gone (ms). Default 3000. */
  stallTimeoutMs?: number;
  /** No first block within this long means the device does not deliver (ms). Default 10000. */
  startupTimeoutMs?: number;
  driver?: MicDriver;
}

/** A power of two near 5 ms of audio (256 frames at 48 kHz), between 64 and 8192. */
export function micFrameSize(sampleRate: number): number {
  const target = Math.max(64, Math.min(8192, sampleRate * 0.005));
  return 2 ** Math.round(Math.log2(target));
}

class MicrophoneSource implements LiveSource {
  info: SourceInfo;
  readonly channel = 0;
  label = 'microphone';
  #format: StreamFormat = { sampleRate: 48000, complex: false, channels: 1 };
  #stream: MicStream | null = null;
  readonly #blocks = new PushedBlocks(1 << 20); // its size set from the stream once open
  #frames = 0;

  constructor(private readonly options: MicrophoneOptions) {
    this.info = { ...this.#format, container: 'live', encoding: 'rf32_le' };
  }

  get droppedBlocks(): number {
    return this.#blocks.dropped;
  }

  async open(): Promise<void> {
    const o = this.options;
    const driver = o.driver ?? audioDriver();
    const rate = o.sampleRate ?? 0;
    const stream = await driver.open(
      {
        device: o.device ?? '',
        sampleRate: rate,
        channel: o.channel ?? 0,
        frameSize: o.frameSize ?? micFrameSize(rate > 0 ? rate : 48000),
      },
      { data: (d, t) => this.#onData(d, t), error: (m) => this.#onError(m) },
    );
    this.#stream = stream;
    if (this.#blocks.closed) {
      await stream.close();
      return;
    }
    this.#format = Object.freeze({ sampleRate: stream.sampleRate, complex: false, channels: 1 });
    this.info = { ...this.#format, container: 'live', encoding: 'rf32_le' };
    this.label = stream.deviceName;
    this.#blocks.maxFrames = Math.max(
      stream.frameSize * 4,
      Math.round(stream.sampleRate * (o.maxQueueSeconds ?? 0.5)),
    );
    const stall = o.stallTimeoutMs ?? 3000;
    const startup = o.startupTimeoutMs ?? 10000;
    this.#blocks.watch({ startupMs: startup, stallMs: stall }, (why) =>
      this.#onError(
        why === 'startup'
          ? `no audio arrived in ${Math.round(startup / 1000)} s: the device is not delivering (in use, muted at the system level, or unplugged?)`
          : `no audio for ${Math.round(stall / 1000)} s: the device was unplugged or stopped`,
      ),
    );
  }

  #onData(data: Float32Array, captureTime: number): void {
    if (this.#blocks.ended) return;
    const block: LiveBlock = {
      format: this.#format,
      start: this.#frames,
      frames: data.length,
      data,
      captureTime,
    };
    this.#frames += data.length;
    this.#blocks.push(block);
  }

  #onError(message: string): void {
    if (!this.#blocks.fail(new PhasorError('io', `microphone "${this.label}": ${message}`))) return;
    const s = this.#stream;
    this.#stream = null;
    void s?.close().catch(() => undefined);
  }

  blocks(options: ReadOptions = {}): AsyncIterable<LiveBlock> {
    return this.#blocks.read(options.signal);
  }

  async close(): Promise<void> {
    if (!this.#blocks.close()) return;
    const s = this.#stream;
    this.#stream = null;
    await s?.close();
  }
}

/** Opens an input device and starts capturing (see the file comment). */
export async function openMicrophone(options: MicrophoneOptions = {}): Promise<LiveSource> {
  const { sampleRate, channel } = options;
  if (sampleRate !== undefined && !(Number.isFinite(sampleRate) && sampleRate >= 0 && sampleRate <= 1e6)) {
    throw new InvalidArgumentError(
      `microphone: sample rate must be between 0 (device default) and 1 MHz, got ${sampleRate}`,
    );
  }
  if (channel !== undefined && !(Number.isInteger(channel) && channel >= 0 && channel < 1024)) {
    throw new InvalidArgumentError(`microphone: channel must be a whole number ≥ 1, got ${channel + 1}`);
  }
  const source = new MicrophoneSource(options);
  await source.open();
  return source;
}

/** Why the microphone cannot be used here (with how to fix it), or undefined when it can. */
export function probeMicrophone(driver: MicDriver = audioDriver()): Promise<string | undefined> {
  return driver.probe();
}

/** The input devices (empty when there is no sound server or device). */
export function listMicrophones(driver: MicDriver = audioDriver()): Promise<AudioDevice[]> {
  return driver.listDevices();
}
