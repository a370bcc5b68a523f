// The browser's own microphone (web mode, the browser-mic source): getUserMedia with the browser's voice
// processing off, an AudioContext at the device's rate, and an AudioWorklet (browser-mic.worklet.ts) that
// hands over blocks of audioBlockFrames() frames. Once the engine's session is known, each block gets its
// header (session, seq, start frame) and goes to the engine as one binary message.
//
//   const mic = await openBrowserMic();                 // asks for the permission; throws one line
//   const session = await start({ kind: 'browser-mic', sampleRate: mic.sampleRate, device: mic.label });
//   mic.stream(connection, session.session);            // blocks flow until close()
//   mic.close();                                        // stops the tracks and the audio context
//
// Backpressure: the socket's send queue is the bounded queue. While more than AUDIO_SEND_QUEUE_SECONDS of
// audio waits in it, whole blocks are dropped and counted; their seq and frames still advance, so the
// engine counts them with its own drops and the stream's time stays true.

import {
  AUDIO_FRAME_HEADER_BYTES,
  AUDIO_SEND_QUEUE_SECONDS,
  AUDIO_WORKLET_PROCESSOR,
  audioBlockFrames,
  writeAudioHeader,
} from '../../../electron/engine/protocol/audio-frames.js';
// Vite bundles the worklet as a script of its own and gives its URL on the app's origin.
import workletUrl from './browser-mic.worklet.ts?worker&url';

/** Where the blocks go: the engine connection (web mode's WebSocket). */
export interface AudioSink {
  sendBinary?(data: ArrayBuffer): void;
  bufferedAmount?(): number;
}

/** The constraints asked for: the signal as the device gives it, as a measuring tool needs. */
export const CAPTURE_CONSTRAINTS: MediaStreamConstraints = {
  audio: { echoCancellation: false, noiseSuppression: false, autoGainControl: false },
  video: false,
};

/** How long the audio context may stay suspended (the browser waiting for a click) before giving up (ms). */
const RESUME_TIMEOUT_MS = 3000;

/**
 * Why this page cannot capture its microphone, or undefined when it may try. Browsers give the microphone
 * only to secure contexts: https:// pages, and http:// on localhost or 127.0.0.1.
 */
export function browserMicUnavailable(
  win: Pick<Window, 'isSecureContext' | 'location'> & { navigator: Pick<Navigator, 'mediaDevices'> } = window,
): string | undefined {
  if (!win.isSecureContext) {
    const port = win.location.port || '8080';
    return (
      `the browser gives the microphone only to https:// pages and to http://localhost or 127.0.0.1, not to ` +
      `http://${win.location.hostname}: serve it over HTTPS (phasor serve --tls-cert FILE --tls-key FILE), ` +
      `open it on the server's machine, or through an SSH tunnel ` +
      `(ssh -L ${port}:127.0.0.1:${port} SERVER, then http://127.0.0.1:${port}/ with the same ?token=)`
    );
  }
  if (!win.navigator.mediaDevices?.getUserMedia)
    return 'this browser has no microphone capture (getUserMedia)';
  return undefined;
}

/** One line for a getUserMedia or AudioContext failure. */
export function captureError(e: unknown): string {
  const name =
    e instanceof Error || (typeof e === 'object' && e !== null && 'name' in e)
      ? String((e as Error).name)
      : '';
  switch (name) {
    case 'NotAllowedError':
    case 'SecurityError':
      return 'browser microphone: permission denied: allow the microphone for this page (the icon in the address bar) and press Start';
    case 'NotFoundError':
    case 'OverconstrainedError':
      return 'browser microphone: no microphone found on this computer';
    case 'NotReadableError':
    case 'AbortError':
      return 'browser microphone: the microphone could not be opened (in use by another program, or disabled in the system settings)';
    default:
      return `browser microphone: ${e instanceof Error ? e.message : String(e)}`.split('\n')[0];
  }
}

/**
 * Numbers the worklet's blocks for one session and sends them, dropping whole blocks while more than
 * AUDIO_SEND_QUEUE_SECONDS of audio waits in the sink (their seq and frames still count).
 */
export class AudioBlockSender {
  #seq = 0;
  #start = 0;
  readonly #limitBytes: number;
  /** Blocks sent to the engine, and blocks dropped because the socket fell behind. */
  sent = 0;
  dropped = 0;

  constructor(
    private readonly sink: AudioSink,
    private readonly session: number,
    sampleRate: number,
  ) {
    if (!sink.sendBinary)
      throw new Error('browser microphone: this connection carries no audio from the page');
    this.#limitBytes = AUDIO_SEND_QUEUE_SECONDS * sampleRate * 4;
  }

  /** One block from the worklet (samples at AUDIO_FRAME_HEADER_BYTES); throws when the sink cannot send. */
  push(buffer: ArrayBuffer): 'sent' | 'dropped' {
    const frames = (buffer.byteLength - AUDIO_FRAME_HEADER_BYTES) / 4;
    const seq = this.#seq++;
    const start = this.#start;
    this.#start += frames;
    if ((this.sink.bufferedAmount?.() ?? 0) > this.#limitBytes) {
      this.dropped++;
      return 'dropped';
    }
    writeAudioHeader(buffer, { session: this.session, seq, frames, start });
    this.sink.sendBinary!(buffer);
    this.sent++;
    return 'sent';
  }
}

export class BrowserMic {
  #sender: AudioBlockSender | null = null;
  #closed = false;
  #failure: ((message: string) => void) | null = null;

  private constructor(
    private readonly media: MediaStream,
    private readonly context: AudioContext,
    private readonly node: AudioWorkletNode,
    private readonly input: MediaStreamAudioSourceNode,
  ) {
    node.port.onmessage = (e: MessageEvent) => this.#block(e.data as ArrayBuffer);
    for (const t of media.getAudioTracks()) {
      t.addEventListener('ended', () =>
        this.#fail('browser microphone: the microphone stopped (unplugged, or its permission was withdrawn)'),
      );
    }
  }

  /** The capture's sample rate (the audio context's). */
  get sampleRate(): number {
    return this.context.sampleRate;
  }

  /** The device as the browser names it. */
  get label(): string {
    return this.media.getAudioTracks()[0]?.label ?? '';
  }

  /** Called once, with one line, when the capture fails while it streams. */
  onFailure(listener: (message: string) => void): void {
    this.#failure = listener;
  }

  /** Starts sending blocks for `session`; blocks captured before are not part of the stream. */
  stream(sink: AudioSink, session: number): void {
    this.#sender = new AudioBlockSender(sink, session, this.sampleRate);
  }

  /** What the sender did so far (blocks sent, and dropped because the socket fell behind). */
  get counts(): { sent: number; dropped: number } {
    return { sent: this.#sender?.sent ?? 0, dropped: this.#sender?.dropped ?? 0 };
  }

  #block(buffer: ArrayBuffer): void {
    const sender = this.#sender;
    if (this.#closed || !sender) return;
    try {
      sender.push(buffer);
    } catch {
      // The link went down: the connection's own state says so; stop capturing.
      this.close();
    }
  }

  #fail(message: string): void {
    if (this.#closed) return;
    const f = this.#failure;
    this.close();
    f?.(message);
  }

  /** Stops the tracks (the browser's recording indicator goes off) and the audio processing. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#failure = null;
    this.node.port.onmessage = null;
    this.node.port.postMessage('stop');
    this.input.disconnect();
    this.node.disconnect();
    for (const t of this.media.getTracks()) t.stop();
    void this.context.close().catch(() => undefined);
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Asks for the microphone and starts the audio processing; throws an Error with one line. */
  static async open(): Promise<BrowserMic> {
    const why = browserMicUnavailable();
    if (why !== undefined) throw new Error(`browser microphone: ${why}`);
    let media: MediaStream;
    try {
      media = await navigator.mediaDevices.getUserMedia(CAPTURE_CONSTRAINTS);
    } catch (e) {
      throw new Error(captureError(e), { cause: e });
    }
    let context: AudioContext | null = null;
    try {
      context = new AudioContext({ latencyHint: 'interactive' });
      await context.audioWorklet.addModule(workletUrl);
      const input = context.createMediaStreamSource(media);
      const node = new AudioWorkletNode(context, AUDIO_WORKLET_PROCESSOR, {
        numberOfInputs: 1,
        numberOfOutputs: 0,
        channelCount: 1,
        channelCountMode: 'explicit',
        channelInterpretation: 'speakers',
        processorOptions: { blockFrames: audioBlockFrames(context.sampleRate) },
      });
      input.connect(node);
      await resume(context);
      return new BrowserMic(media, context, node, input);
    } catch (e) {
      for (const t of media.getTracks()) t.stop();
      void context?.close().catch(() => undefined);
      throw new Error(captureError(e), { cause: e });
    }
  }
}

/** Resumes a context the browser started suspended; fails when it stays so (no click on the page yet). */
async function resume(context: AudioContext): Promise<void> {
  if (context.state === 'running') return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error('the browser holds audio back until the page is clicked: press Start')),
      RESUME_TIMEOUT_MS,
    );
  });
  try {
    await Promise.race([context.resume(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Opens the capture (see BrowserMic.open). */
export function openBrowserMic(): Promise<BrowserMic> {
  return BrowserMic.open();
}
