// The engine's side of the WebGPU bridge: a Backend whose every call runs on a backend elsewhere (the
// WebGpuBackend on Chromium's navigator.gpu in the desktop app) through a port (protocol.ts).
//
//   const gpu = await connectWebGpuBridge(port);       // hello: the adapter's description, or its error
//   const X = await gpu.fft(x, 1024);
//   await gpu.dispose();
//
// Creating a processor needs no round trip: its configuration is checked here as every backend checks it
// (validate.ts, stream.ts), its number chosen here, and the far side builds it when the message arrives.
// Host arrays are copied once into a buffer of their own, which is transferred (the caller keeps its array);
// results arrive in transferred buffers. A sticky BackendFailedError from the far side, or the port closing
// (`disconnect`), fails this backend: every later call throws it, and the failover moves on.

import { BackendFailedError, BackendUnavailableError, InvalidArgumentError } from '../../../errors.js';
import { isRawSamples, type RawSamples } from '../../../types.js';
import type {
  ArrayInput,
  Availability,
  Backend,
  BackendProvider,
  CorrelationChunk,
  Correlator,
  CorrelatorConfig,
  DeviceArray,
  DeviceBenchResult,
  FirConfig,
  FirFilter,
  ProcessorInput,
  SpectrogramConfig,
  SpectrogramProcessor,
  SpectrogramRows,
  TransformOptions,
} from '../../backend.js';
import { correlatorSettings, firMethod, spectrogramSettings } from '../../stream.js';
import { WEBGPU_CORRELATOR_PUSH_BYTES } from '../limits.js';
import { validateCorrelatorConfig, validateFirConfig, validateSpectrogramConfig } from '../../validate.js';
import {
  BRIDGE_VERSION,
  fromWireError,
  isBridgeReply,
  transferables,
  type BridgeHello,
  type BridgePort,
  type BridgeRequest,
  type BridgeResult,
  type FirResult,
  type WireInput,
} from './protocol.js';

type Pending = { resolve(result: BridgeResult): void; reject(err: unknown): void };

/** Distributes the keys of a union, so Omit keeps each member's own fields. */
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
type Call = DistributiveOmit<BridgeRequest, 'id'>;

class BridgedDeviceArray implements DeviceArray {
  #freed = false;
  constructor(
    readonly owner: BridgedWebGpuBackend,
    readonly handle: number,
    readonly length: number,
  ) {}

  get freed(): boolean {
    return this.#freed;
  }

  async download(out?: Float32Array): Promise<Float32Array> {
    if (out !== undefined && (!(out instanceof Float32Array) || out.length !== this.length)) {
      throw new InvalidArgumentError(`download: out must be a Float32Array of length ${this.length}`);
    }
    if (this.#freed) throw new InvalidArgumentError('the DeviceArray was freed and cannot be used');
    const values = (await this.owner.request({ op: 'download', handle: this.handle })) as Float32Array;
    if (!out) return values;
    out.set(values);
    return out;
  }

  free(): void {
    if (this.#freed) return;
    this.#freed = true;
    this.owner.post({ op: 'free', handle: this.handle });
  }
}

export class BridgedWebGpuBackend implements Backend {
  readonly name = 'webgpu' as const;
  readonly device: string;
  readonly details: Record<string, string | number>;
  readonly #port: BridgePort;
  readonly #pending: Map<number, Pending>;
  readonly #firDirectMaxTaps: number;
  #nextId = 1;
  #nextObject = 1;
  #failure: Error | null = null;
  #disposed = false;

  /** Use connectWebGpuBridge, which asks the far side for its hello first. */
  constructor(port: BridgePort, hello: BridgeHello, pending: Map<number, Pending>, nextId: number) {
    this.#port = port;
    this.#pending = pending;
    this.#nextId = nextId;
    this.device = hello.device;
    this.details = { ...hello.details, bridge: 'the WebGPU bridge (a MessagePort)' };
    this.#firDirectMaxTaps = hello.firDirectMaxTaps;
    if (hello.deviceTimer) {
      // Present only when the far side has it: hasDeviceTimer() looks for the method.
      Object.defineProperty(this, 'benchmark', {
        value: (
          name: string,
          n: number,
          batch: number,
          reference?: boolean,
          options?: { reps?: number; endToEnd?: boolean },
        ): Promise<DeviceBenchResult> =>
          this.request({ op: 'benchmark', name, n, batch, reference, options }) as Promise<DeviceBenchResult>,
      });
    }
    port.onmessage = (event) => settle(this.#pending, event.data, (err) => this.#failed(err));
    port.onclose = () => this.disconnect('the WebGPU bridge closed (its window or worker went away)');
  }

  /** Fails every call in flight and every later one: the far side went away (its window or worker). */
  disconnect(reason: string): void {
    this.#failed(new BackendFailedError('webgpu', reason, { sticky: true }));
  }

  #failed(err: unknown): void {
    if (!(err instanceof BackendFailedError) || !err.sticky || this.#failure) return;
    this.#failure = err;
    for (const p of this.#pending.values()) p.reject(err);
    this.#pending.clear();
  }

  #alive(): void {
    if (this.#failure) throw this.#failure;
    if (this.#disposed) throw new InvalidArgumentError('the webgpu backend was disposed and cannot be used');
  }

  /** Sends a call and waits for its reply. */
  request(call: Call): Promise<BridgeResult> {
    try {
      this.#alive();
    } catch (err) {
      return Promise.reject(err);
    }
    const id = this.#nextId++;
    return new Promise<BridgeResult>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#send({ ...call, id } as BridgeRequest);
    });
  }

  /** Sends a call that has no reply (free, reset, close); nothing once failed or disposed. */
  post(call: Call): void {
    if (this.#failure || this.#disposed) return;
    this.#send({ ...call, id: 0 } as BridgeRequest);
  }

  #send(message: BridgeRequest): void {
    try {
      this.#port.postMessage(message, transferables(message));
    } catch (err) {
      this.disconnect(
        `the WebGPU bridge's port refused a message: ${err instanceof Error ? err.message : String(err)}`,
      );
      throw this.#failure;
    }
  }

  /** A number for a new DeviceArray or processor (chosen here: no round trip). */
  nextObject(): number {
    return this.#nextObject++;
  }

  /** How an input crosses: host values copied once into a buffer that is then transferred. */
  wire(input: ProcessorInput, what: string): WireInput {
    if (input instanceof Float32Array) return { array: input.slice() };
    if (isRawSamples(input)) {
      const raw: RawSamples = { data: input.data.slice(), offset: input.offset, scale: input.scale };
      return { raw };
    }
    if (input instanceof BridgedDeviceArray && input.owner === this) {
      if (input.freed) throw new InvalidArgumentError('the DeviceArray was freed and cannot be used');
      return { handle: input.handle };
    }
    if (typeof input === 'object' && input !== null && 'owner' in input) {
      throw new InvalidArgumentError(`${what}: the DeviceArray belongs to another backend`);
    }
    throw new InvalidArgumentError(`${what}: expected a Float32Array or a DeviceArray`);
  }

  async upload(data: Float32Array): Promise<DeviceArray> {
    this.#alive();
    if (!(data instanceof Float32Array))
      throw new InvalidArgumentError('upload: data must be a Float32Array');
    const handle = this.nextObject();
    await this.request({ op: 'upload', handle, data: data.slice() });
    return new BridgedDeviceArray(this, handle, data.length);
  }

  async fft(
    input: ArrayInput,
    n: number,
    options: TransformOptions & { inverse?: boolean } = {},
  ): Promise<Float32Array> {
    const w = this.#arrayInput(input, 'fft');
    const r = (await this.request({
      op: 'fft',
      input: w,
      n,
      inverse: options.inverse ?? false,
    })) as Float32Array;
    return into(r, options.out, 'fft');
  }

  async rfft(input: ArrayInput, n: number, options: TransformOptions = {}): Promise<Float32Array> {
    const r = (await this.request({ op: 'rfft', input: this.#arrayInput(input, 'rfft'), n })) as Float32Array;
    return into(r, options.out, 'rfft');
  }

  async irfft(input: ArrayInput, n: number, options: TransformOptions = {}): Promise<Float32Array> {
    const r = (await this.request({
      op: 'irfft',
      input: this.#arrayInput(input, 'irfft'),
      n,
    })) as Float32Array;
    return into(r, options.out, 'irfft');
  }

  #arrayInput(input: ArrayInput, what: string): WireInput {
    if (isRawSamples(input))
      throw new InvalidArgumentError(`${what}: expected a Float32Array or a DeviceArray`);
    return this.wire(input, what);
  }

  createSpectrogram(config: SpectrogramConfig): SpectrogramProcessor {
    this.#alive();
    validateSpectrogramConfig(config);
    const s = spectrogramSettings(config);
    const proc = this.nextObject();
    this.post({ op: 'create', proc, kind: 'spectrogram', config: copyConfig(config) });
    return new BridgedSpectrogram(this, proc, s.bins, s.width);
  }

  createFir(config: FirConfig): FirFilter {
    this.#alive();
    validateFirConfig(config);
    const proc = this.nextObject();
    this.post({ op: 'create', proc, kind: 'fir', config: copyConfig(config) });
    return new BridgedFir(this, proc, config.taps.length, firMethod(config, this.#firDirectMaxTaps));
  }

  createCorrelator(config: CorrelatorConfig): Correlator {
    this.#alive();
    validateCorrelatorConfig(config);
    const proc = this.nextObject();
    this.post({ op: 'create', proc, kind: 'correlator', config: copyConfig(config) });
    return new BridgedCorrelator(this, proc, correlatorSettings(config).templateLength);
  }

  async dispose(): Promise<void> {
    if (this.#disposed) return;
    const done = this.#failure ? Promise.resolve(null) : this.request({ op: 'dispose' });
    this.#disposed = true;
    await done.catch(() => undefined);
  }
}

/** Replies to their calls; a sticky failure fails the backend (`fail`). */
function settle(pending: Map<number, Pending>, data: unknown, fail: (err: unknown) => void): void {
  if (!isBridgeReply(data)) return;
  const p = pending.get(data.id);
  if (!p) return;
  pending.delete(data.id);
  if (data.ok) {
    p.resolve(data.result);
  } else {
    const err = fromWireError(data.error);
    p.reject(err);
    fail(err);
  }
}

function into(result: Float32Array, out: Float32Array | undefined, what: string): Float32Array {
  if (out === undefined) return result;
  if (!(out instanceof Float32Array) || out.length !== result.length) {
    throw new InvalidArgumentError(`${what}: out must be a Float32Array of length ${result.length}`);
  }
  out.set(result);
  return out;
}

/** A configuration's arrays copied, so the caller may reuse its own (they are transferred). */
function copyConfig<T extends object>(config: T): T {
  const c: Record<string, unknown> = { ...(config as Record<string, unknown>) };
  for (const [k, v] of Object.entries(c)) if (ArrayBuffer.isView(v)) c[k] = (v as Float32Array).slice();
  return c as T;
}

class BridgedProcessor {
  #disposed = false;
  constructor(
    protected readonly b: BridgedWebGpuBackend,
    protected readonly proc: number,
    private readonly what: string,
  ) {}

  protected alive(): void {
    if (this.#disposed) throw new InvalidArgumentError(`the ${this.what} was disposed and cannot be used`);
  }

  reset(): void {
    this.alive();
    this.b.post({ op: 'reset', proc: this.proc });
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.b.post({ op: 'close', proc: this.proc });
  }
}

class BridgedSpectrogram extends BridgedProcessor implements SpectrogramProcessor {
  constructor(
    b: BridgedWebGpuBackend,
    proc: number,
    readonly bins: number,
    readonly width: number,
  ) {
    super(b, proc, 'spectrogram');
  }

  async push(samples: ProcessorInput): Promise<SpectrogramRows> {
    this.alive();
    return (await this.b.request({
      op: 'push',
      proc: this.proc,
      input: this.b.wire(samples, 'push'),
    })) as SpectrogramRows;
  }
}

class BridgedFir extends BridgedProcessor implements FirFilter {
  #pending = 0;
  constructor(
    b: BridgedWebGpuBackend,
    proc: number,
    readonly numtaps: number,
    readonly method: 'direct' | 'overlap-save',
  ) {
    super(b, proc, 'FIR filter');
  }

  /** Frames held back after the latest call that returned. */
  get pending(): number {
    return this.#pending;
  }

  async process(input: ProcessorInput): Promise<Float32Array> {
    this.alive();
    const r = (await this.b.request({
      op: 'process',
      proc: this.proc,
      input: this.b.wire(input, 'process'),
    })) as FirResult;
    this.#pending = r.pending;
    return r.output;
  }

  async flush(): Promise<Float32Array> {
    this.alive();
    const r = (await this.b.request({ op: 'flush', proc: this.proc })) as FirResult;
    this.#pending = r.pending;
    return r.output;
  }

  override reset(): void {
    super.reset();
    this.#pending = 0;
  }
}

class BridgedCorrelator extends BridgedProcessor implements Correlator {
  readonly pushBytes = WEBGPU_CORRELATOR_PUSH_BYTES;

  constructor(
    b: BridgedWebGpuBackend,
    proc: number,
    readonly templateLength: number,
  ) {
    super(b, proc, 'correlator');
  }

  async process(input: ProcessorInput): Promise<CorrelationChunk> {
    this.alive();
    return (await this.b.request({
      op: 'process',
      proc: this.proc,
      input: this.b.wire(input, 'process'),
    })) as CorrelationChunk;
  }

  async flush(): Promise<CorrelationChunk> {
    this.alive();
    return (await this.b.request({ op: 'flush', proc: this.proc })) as CorrelationChunk;
  }
}

/**
 * Connects to a bridge server on `port`: asks for its hello (the adapter it opened) and returns the
 * backend. Throws the far side's error (BackendUnavailableError when it found no adapter), or
 * BackendUnavailableError when no answer comes within `timeoutMs`.
 */
export async function connectWebGpuBridge(
  port: BridgePort,
  options: { timeoutMs?: number } = {},
): Promise<BridgedWebGpuBackend> {
  const pending = new Map<number, Pending>();
  port.onmessage = (event) => settle(pending, event.data, () => undefined);
  const hello = new Promise<BridgeResult>((resolve, reject) => pending.set(1, { resolve, reject }));
  const timeoutMs = options.timeoutMs ?? 20_000;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(new BackendFailedError('webgpu', `the WebGPU bridge did not answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  try {
    port.postMessage({ id: 1, op: 'hello' } satisfies BridgeRequest, []);
    const h = (await Promise.race([hello, timeout])) as BridgeHello;
    if (h.version !== BRIDGE_VERSION) {
      throw new InvalidArgumentError(
        `the WebGPU bridge speaks version ${h.version}, the engine ${BRIDGE_VERSION}`,
      );
    }
    return new BridgedWebGpuBackend(port, h, pending, 2);
  } finally {
    clearTimeout(timer);
  }
}

/** A port to a new bridge server, or why there is none. */
export type BridgeConnect = () => Promise<{ port: BridgePort } | { reason: string }>;

/**
 * The registry's provider for a bridged WebGPU backend. `connect` gives a port to a new server each time
 * (one backend each). The probe opens one, keeps its description (the adapter does not change while the
 * app runs) and disposes it; probes at the same time share one, and a failed probe is tried again next time.
 */
export function webGpuBridgeProvider(connect: BridgeConnect): BackendProvider {
  let found: Promise<Availability> | undefined;
  const create = async (): Promise<BridgedWebGpuBackend> => {
    const c = await connect();
    if ('reason' in c) throw new BackendUnavailableError('webgpu', c.reason);
    return connectWebGpuBridge(c.port);
  };
  const probe = async (): Promise<Availability> => {
    try {
      const b = await create();
      const a: Availability = { available: true, device: b.device, details: b.details };
      if (b.details.software === 'yes')
        a.autoSkip = 'a software adapter, slower than the CPU backend: --backend webgpu asks for it';
      await b.dispose();
      return a;
    } catch (err) {
      return { available: false, reason: err instanceof Error ? err.message : String(err) };
    }
  };
  return {
    name: 'webgpu',
    probe: () => {
      const p = (found ??= probe());
      void p.then((a) => {
        if (!a.available && found === p) found = undefined;
      });
      return p;
    },
    create,
  };
}
