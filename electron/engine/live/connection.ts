// One client of the engine over any transport (Electron MessagePort, WebSocket, a test): parses and
// validates every message, answers every request with a reply, runs at most one live session, and turns
// its rows into binary messages. A host only adapts this to its transport:
//
//   const conn = createEngineConnection((msg) => ws.send(msg instanceof ArrayBuffer ? msg : JSON.stringify(msg)));
//   ws.on('message', (data, binary) => conn.receive(binary ? data : data.toString()));
//   ws.on('close', () => conn.close());
//
// receive() never throws: a malformed message gets an error reply (code 'bad-request'; id −1 when the
// message has no usable id); a request that fails gets the PhasorError's code and message.
//
// The live session's requests (hello … setPeaks) are answered one at a time, in order. The offline ones
// (files, spectrogram of a file, filters, correlation, benchmarks: electron/engine/offline) run as jobs
// beside that queue, and `cancel` is answered at once, so a long job never holds up the live view.

import type { z } from 'zod';
import { PhasorError, errorInfo, type PhasorWarning } from '../errors.js';
import type { FileAccess } from '../offline/access.js';
import { OFFLINE_METHODS, OfflineWork } from '../offline/work.js';
import {
  clientMessageSchema,
  requestSchemas,
  type MeasureResult,
  type Method,
  type MethodResults,
  type RecordingStatus,
  type ServerMessage,
} from '../protocol/messages.js';
import { audioFrameSession } from '../protocol/audio-frames.js';
import { encodeRows } from '../protocol/rows-codec.js';
import { Recorder, STOPPED } from '../record/recorder.js';
import { ClientAudioSource } from '../sources/client-audio.js';
import { defaultEngine, type Engine } from './engine.js';
import { LiveMeasure } from './measure.js';
import type { NetworkAccess } from './network-access.js';
import { LiveSession, planAnalysis } from './session.js';

/** Largest JSON message accepted (characters). */
export const MAX_MESSAGE_CHARS = 1 << 20;

export interface EngineConnection {
  /** A message from the client: a JSON string, or an already parsed value. */
  receive(raw: unknown): void;
  /** Stops the live session; later messages are ignored. */
  close(): void;
  readonly closed: boolean;
}

export interface ConnectionOptions {
  engine?: Engine;
  /** Non-fatal warnings of the sources (e.g. a truncated file), also sent nowhere else. */
  onWarning?: (warning: PhasorWarning) => void;
  /** What the client may read, list and write (files, the live file source); default anything. */
  access?: FileAccess;
  /** Which servers a networked source (rtl_tcp) may connect to; default any. */
  network?: NetworkAccess;
  /** Resolves when the transport has sent what is queued down to its low-water mark: large replies wait
   * for it, so a client that does not read is not computed for (default: at once). */
  drained?: () => Promise<void>;
  /** The transport carries audio its client captures (web mode): binary messages are audio blocks for
   * a `browser-mic` session (protocol/audio-frames.ts). Without it the kinds the client would capture are
   * left out of hello and binary messages are refused. */
  clientAudio?: boolean;
}

function issues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((i) => (i.path.length > 0 ? `${i.path.join('.')}: ${i.message}` : i.message))
    .join('; ');
}

/** The request id of a message that failed validation, when it has a usable one. */
function idOf(msg: unknown): number {
  if (typeof msg === 'object' && msg !== null && !Array.isArray(msg)) {
    const id = (msg as { id?: unknown }).id;
    if (typeof id === 'number' && Number.isSafeInteger(id) && id >= 0) return id;
  }
  return -1;
}

/** A recording of the running session's source. */
interface ActiveRecording {
  recorder: Recorder;
  session: number;
  untap: () => void;
  timer: ReturnType<typeof setInterval>;
}

class Connection implements EngineConnection {
  readonly #send: (msg: ServerMessage | ArrayBuffer) => void;
  readonly #engine: Engine;
  readonly #options: ConnectionOptions;
  readonly #offline: OfflineWork;
  #session: LiveSession | null = null;
  /** The live source's recording (recordStart), fed by the session's tap; at most one. */
  #recording: ActiveRecording | null = null;
  /** Measurements of the running session's newest samples (measureLive); its ring only while wanted. */
  #measure: LiveMeasure | null = null;
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;

  constructor(send: (msg: ServerMessage | ArrayBuffer) => void, options: ConnectionOptions) {
    this.#send = send;
    this.#options = options;
    this.#engine = options.engine ?? defaultEngine();
    this.#offline = new OfflineWork(this.#engine, (msg) => this.#post(msg), {
      ...(options.onWarning ? { onWarning: options.onWarning } : {}),
      ...(options.access ? { access: options.access } : {}),
      ...(options.drained ? { drained: options.drained } : {}),
      ...(this.#engine.options.progressIntervalMs !== undefined
        ? { progressIntervalMs: this.#engine.options.progressIntervalMs }
        : {}),
    });
  }

  get closed(): boolean {
    return this.#closed;
  }

  #post(msg: ServerMessage | ArrayBuffer): void {
    if (this.#closed) return;
    try {
      this.#send(msg);
    } catch {
      // The transport is going away; its close will end the connection.
    }
  }

  #fail(id: number, code: string, message: string): void {
    this.#post({ type: 'reply', id, ok: false, error: { code, message } });
  }

  receive(raw: unknown): void {
    if (this.#closed) return;
    try {
      this.#receive(raw);
    } catch (err) {
      // Validation should have caught everything; never let a message take the host down.
      this.#fail(
        idOf(raw),
        'bad-request',
        `bad request: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }

  #receive(raw: unknown): void {
    let msg: unknown = raw;
    if (typeof raw === 'string') {
      if (raw.length > MAX_MESSAGE_CHARS) {
        this.#fail(
          -1,
          'bad-request',
          `bad request: a message may have at most ${MAX_MESSAGE_CHARS} characters`,
        );
        return;
      }
      try {
        msg = JSON.parse(raw);
      } catch {
        this.#fail(-1, 'bad-request', 'bad request: the message is not valid JSON');
        return;
      }
    } else if (raw instanceof ArrayBuffer || ArrayBuffer.isView(raw)) {
      if (this.#options.clientAudio) this.#receiveAudio(raw);
      else this.#fail(-1, 'bad-request', 'bad request: binary messages are not requests (send JSON)');
      return;
    }
    const env = clientMessageSchema.safeParse(msg);
    if (!env.success) {
      this.#fail(idOf(msg), 'bad-request', `bad request: ${issues(env.error)}`);
      return;
    }
    const m = env.data;
    if (m.type === 'ack') {
      if (this.#session?.id === m.session) this.#session.ack(m.seq);
      return;
    }
    const { id, method } = m;
    if (!Object.hasOwn(requestSchemas, method)) {
      this.#fail(
        id,
        'bad-request',
        `bad request: unknown method "${method.slice(0, 64)}"; methods: ${Object.keys(requestSchemas).join(', ')}`,
      );
      return;
    }
    const schema = requestSchemas[method as Method];
    const params = schema.safeParse(m.params ?? {});
    if (!params.success) {
      this.#fail(id, 'bad-request', `bad request: ${method}: ${issues(params.error)}`);
      return;
    }
    if (method === 'cancel') {
      const { request } = params.data as z.infer<(typeof requestSchemas)['cancel']>;
      this.#post({ type: 'reply', id, ok: true, result: { cancelled: this.#offline.cancel(request) } });
      return;
    }
    if (OFFLINE_METHODS.has(method as Method)) {
      this.#offline.run(id, method as Method, params.data);
      return;
    }
    // Beside the queue: a first measurement waits for its samples and must not hold up a stop.
    if (method === 'measureLive') {
      this.#measureLive(params.data as z.infer<(typeof requestSchemas)['measureLive']>).then(
        (result) => this.#post({ type: 'reply', id, ok: true, result }),
        (err: unknown) => {
          const e = errorInfo(err);
          this.#fail(id, e.code, e.message);
        },
      );
      return;
    }
    // One live request at a time, in order (a stop never overtakes the start before it).
    this.#queue = this.#queue.then(async () => {
      if (this.#closed) return;
      try {
        const result = await this.#handle(method as Method, params.data);
        this.#post({ type: 'reply', id, ok: true, result });
      } catch (err) {
        const e = errorInfo(err);
        this.#fail(id, e.code, e.message);
      }
    });
  }

  /** A binary audio block of the client's own capture, for its running browser-mic session. */
  #receiveAudio(raw: ArrayBuffer | ArrayBufferView): void {
    const bytes =
      raw instanceof ArrayBuffer
        ? new Uint8Array(raw)
        : new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength);
    const session = audioFrameSession(bytes);
    if (session === undefined) {
      this.#fail(-1, 'bad-request', 'bad request: a binary message is not an audio block');
      return;
    }
    const s = this.#session;
    // Blocks still in flight for a session that stopped or was replaced: dropped without a word.
    if (!s || s.id !== session || s.ended) return;
    if (!(s.source instanceof ClientAudioSource)) {
      this.#fail(-1, 'bad-request', `bad request: the ${s.source.label} source takes no audio blocks`);
      return;
    }
    try {
      s.source.push(bytes);
    } catch (err) {
      this.#fail(-1, 'bad-request', `bad request: ${errorInfo(err).message}`);
    }
  }

  async #handle(method: Method, params: unknown): Promise<MethodResults[Method]> {
    switch (method) {
      case 'hello': {
        const hello = await this.#engine.hello();
        // Kinds the client captures itself only where the transport carries its audio.
        return this.#options.clientAudio
          ? hello
          : { ...hello, sources: hello.sources.filter((k) => k.capture === undefined) };
      }
      case 'listDevices': {
        const { kind } = params as z.infer<(typeof requestSchemas)['listDevices']>;
        return { devices: await this.#engine.kinds.listDevices(kind) };
      }
      case 'start':
        return this.#start(params as z.infer<(typeof requestSchemas)['start']>);
      case 'configure': {
        const s = this.#session;
        if (!s || s.ended)
          throw new PhasorError('invalid-argument', 'no live session is running: start one first');
        return s.configure((params as z.infer<(typeof requestSchemas)['configure']>).analysis);
      }
      case 'stop':
        await this.#stopSession();
        return {};
      case 'resetPeak':
        this.#session?.resetPeak();
        return {};
      case 'setPeaks':
        this.#session?.setPeaks(params as z.infer<(typeof requestSchemas)['setPeaks']>);
        return {};
      case 'recordStart':
        return this.#recordStart((params as z.infer<(typeof requestSchemas)['recordStart']>).path);
      case 'recordStop': {
        if (!this.#recording) throw new PhasorError('invalid-argument', 'no recording is running');
        return this.#endRecording(STOPPED.requested);
      }
      case 'retune': {
        const s = this.#session;
        if (!s || s.ended)
          throw new PhasorError('invalid-argument', 'no live session is running: start one first');
        if (!s.tunable)
          throw new PhasorError('invalid-argument', `the ${s.source.label} source cannot be retuned`);
        return s.retune((params as z.infer<(typeof requestSchemas)['retune']>).centerFrequency);
      }
      default:
        throw new PhasorError('invalid-argument', `${method} is not a live-session request`);
    }
  }

  async #start(p: z.infer<(typeof requestSchemas)['start']>): Promise<MethodResults['start']> {
    await this.#stopSession();
    // Refuse bad analysis settings before opening a device.
    planAnalysis(p.analysis, { complex: false });
    const backend = await this.#engine.backend();
    const onWarning = this.#options.onWarning;
    // A file played as a live source is read like any other: only inside the client's roots.
    const params =
      p.source.kind === 'file' && typeof p.source.path === 'string' && this.#options.access
        ? { ...p.source, path: await this.#options.access.check(p.source.path, 'read') }
        : p.source;
    this.#checkNetwork(params);
    const source = await this.#engine.kinds.open(params, {
      ...(onWarning ? { onWarning } : {}),
      ...(this.#options.clientAudio ? { clientAudio: true } : {}),
    });
    let session: LiveSession;
    try {
      session = new LiveSession({
        id: this.#engine.sessionId(),
        backend,
        source,
        analysis: p.analysis,
        sink: {
          rows: (m) => this.#post(encodeRows(m)),
          event: (e) => {
            this.#post(e);
            // The source ended or failed: so does its recording (after the blocks it had).
            if (e.event === 'source' && e.data.state !== 'running' && this.#recording) {
              const why =
                e.data.state === 'error'
                  ? STOPPED.sourceFailed(e.data.message ?? 'unknown error')
                  : STOPPED.sourceEnded;
              void this.#endRecording(why).catch(() => undefined);
            }
          },
        },
        ...(this.#engine.options.maxInFlight !== undefined
          ? { maxInFlight: this.#engine.options.maxInFlight }
          : {}),
        ...(this.#engine.options.statusIntervalMs !== undefined
          ? { statusIntervalMs: this.#engine.options.statusIntervalMs }
          : {}),
      });
    } catch (err) {
      await source.close().catch(() => undefined);
      throw err;
    }
    if (this.#closed) {
      await session.stop();
      return session.info();
    }
    this.#session = session;
    session.start();
    return session.info();
  }

  /** A networked source (one with a host and port, rtl_tcp) only to a server the client was granted. */
  #checkNetwork(source: Record<string, unknown> & { kind: string }): void {
    const net = this.#options.network;
    if (!net || net.unrestricted) return;
    let params: Record<string, unknown> = source;
    try {
      params = this.#engine.kinds.parse(source); // the kind's default host and port
    } catch {
      // opening it says what is wrong; the endpoint as given is still checked
    }
    const { host, port } = params;
    if (typeof host === 'string' || typeof port === 'number') {
      net.check(source.kind, typeof host === 'string' ? host : '', typeof port === 'number' ? port : 0);
    }
  }

  async #measureLive(p: z.infer<(typeof requestSchemas)['measureLive']>): Promise<MeasureResult> {
    const backend = await this.#engine.backend();
    const s = this.#session;
    if (!s) throw new PhasorError('invalid-argument', 'no live session is running: start one first');
    if (this.#measure?.session !== s) {
      this.#measure?.dispose();
      this.#measure = new LiveMeasure(s, backend);
    }
    return this.#measure.measure(p);
  }

  async #recordStart(path: string): Promise<RecordingStatus> {
    const s = this.#session;
    if (!s || s.ended)
      throw new PhasorError('invalid-argument', 'no live session is running: start one first');
    if (this.#recording) {
      throw new PhasorError(
        'invalid-argument',
        `a recording is running already (${this.#recording.recorder.path}); stop it first`,
      );
    }
    // Written only inside the client's roots, as a filter's output.
    const target = this.#options.access ? await this.#options.access.check(path, 'write') : path;
    const source = s.source;
    const recorder = await Recorder.create({
      path: target,
      format: source.info,
      encoding: source.info.encoding,
      label: source.label,
      ...(source.info.path !== undefined ? { inputs: [source.info.path] } : {}),
    });
    if (this.#session !== s || s.ended || this.#closed) {
      await recorder.stop(s.ended ? STOPPED.sourceEnded : STOPPED.requested);
      throw new PhasorError('invalid-argument', 'the live session stopped before the recording started');
    }
    const untap = s.tap((block) => recorder.push(block));
    const period = this.#engine.options.statusIntervalMs ?? 1000;
    const timer = setInterval(() => {
      const r = this.#recording;
      if (r?.recorder !== recorder) return;
      // Stopped by itself (a full disk): finish it; else tell how far it got.
      if (recorder.stopped !== undefined) void this.#endRecording(recorder.stopped).catch(() => undefined);
      else
        void this.#recordingStatus(r).then((st) =>
          this.#post({ type: 'event', event: 'recording', data: st }),
        );
    }, period);
    timer.unref?.();
    this.#recording = { recorder, session: s.id, untap, timer };
    return this.#recordingStatus(this.#recording);
  }

  async #recordingStatus(r: ActiveRecording): Promise<RecordingStatus> {
    const st = r.recorder.stats();
    const free = await r.recorder.freeBytes();
    const status: RecordingStatus = {
      session: r.session,
      state: st.stopped === undefined ? 'recording' : st.failed ? 'failed' : 'stopped',
      path: st.path,
      frames: st.frames,
      seconds: st.seconds,
      bytes: st.bytes,
      droppedFrames: st.droppedFrames,
      gaps: st.gaps,
    };
    if (free !== undefined) status.freeBytes = free;
    if (st.stopped !== undefined && st.stopped !== STOPPED.requested) status.reason = st.stopped;
    return status;
  }

  /** Stops the recording (its files finished) and sends its last `recording` event. */
  async #endRecording(reason: string): Promise<RecordingStatus> {
    const r = this.#recording;
    if (!r) throw new PhasorError('invalid-argument', 'no recording is running');
    this.#recording = null;
    r.untap();
    clearInterval(r.timer);
    await r.recorder.stop(reason);
    const status = await this.#recordingStatus(r);
    this.#post({ type: 'event', event: 'recording', data: status });
    return status;
  }

  async #stopSession(): Promise<void> {
    if (this.#recording) await this.#endRecording('session stopped').catch(() => undefined);
    this.#measure?.dispose();
    this.#measure = null;
    const s = this.#session;
    this.#session = null;
    await s?.stop();
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    void this.#stopSession().catch(() => undefined);
    // Cancels the running jobs (a filter leaves no output) and closes the files.
    void this.#offline.close().catch(() => undefined);
  }
}

/** A connection to the engine speaking the protocol of electron/engine/protocol over `send`. */
export function createEngineConnection(
  send: (msg: ServerMessage | ArrayBuffer) => void,
  options: ConnectionOptions = {},
): EngineConnection {
  return new Connection(send, options);
}
