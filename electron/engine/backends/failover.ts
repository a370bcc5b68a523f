// Hands work to the next backend when one fails while running, so no block is lost.
//
// A backend that throws BackendFailedError (a CUDA sticky error, a lost WebGPU device…) is disposed and the
// next available one (the CPU last) redoes the call. Stateful processors keep, on the host (a HostTail of
// ./stream.ts), just enough of their recent input to rebuild their state on the new backend: from the
// keepFrom of the same cursor the backends use, i.e. the last numtaps−1 frames plus any held back for a FIR
// filter, the samples of the frames not yet complete for a spectrogram, the samples of the lags not yet
// returned for a correlator. Every failover is reported through the warning handler: a fallback is never
// silent. Errors other than BackendFailedError (bad arguments, cancellation) propagate.

import { BackendFailedError, type WarningHandler } from '../errors.js';
import { isRawSamples } from '../types.js';
import type {
  ArrayInput,
  Backend,
  BackendName,
  BackendProvider,
  CorrelationChunk,
  Correlator,
  CorrelatorConfig,
  DeviceArray,
  FirConfig,
  FirFilter,
  HostBlocks,
  ProcessorInput,
  SpectrogramConfig,
  SpectrogramProcessor,
  SpectrogramRows,
  TransformOptions,
} from './backend.js';
import { FirCursor, HostTail, LagCursor, inputLength, plainHostBlocks } from './stream.js';

export class FailoverBackend implements Backend {
  private current: Backend;
  private index: number;
  private readonly chain: readonly BackendProvider[];
  private readonly onWarning: WarningHandler | undefined;
  private switching: Promise<void> | null = null;
  private disposed = false;

  private constructor(
    chain: readonly BackendProvider[],
    index: number,
    first: Backend,
    warn?: WarningHandler,
  ) {
    this.chain = chain;
    this.index = index;
    this.current = first;
    this.onWarning = warn;
  }

  /** Creates the first backend of the chain that starts (the first is usable, the others are probed
   * when reached: see usable()); later ones are created only when needed. */
  static async open(chain: readonly BackendProvider[], onWarning?: WarningHandler): Promise<Backend> {
    let lastError: unknown;
    for (let i = 0; i < chain.length; i = await nextUsable(chain, i)) {
      try {
        const backend = await chain[i].create();
        if (i === chain.length - 1) return backend; // nothing to fail over to
        return new FailoverBackend(chain, i, backend, onWarning);
      } catch (err) {
        lastError = err;
        const next = await nextUsable(chain, i);
        if (next < chain.length) {
          onWarning?.({ message: `${describe(err)}; using ${chain[next].name} instead` });
        }
      }
    }
    throw lastError;
  }

  get name(): BackendName {
    return this.current.name;
  }
  get device(): string {
    return this.current.device;
  }
  get details(): Record<string, string | number> | undefined {
    return this.current.details;
  }

  /** The backend doing the work now. */
  get active(): Backend {
    return this.current;
  }

  /** Runs op on the current backend, moving to the next one while backends fail. */
  async run<T>(op: (backend: Backend) => Promise<T>): Promise<T> {
    for (;;) {
      const backend = this.current;
      try {
        return await op(backend);
      } catch (err) {
        if (!(err instanceof BackendFailedError)) throw err;
        await this.advance(backend, err);
      }
    }
  }

  /** Disposes `failed` (if still current) and creates the next backend of the chain. */
  async advance(failed: Backend, err: BackendFailedError): Promise<void> {
    if (this.current !== failed) return; // another caller already moved on
    if (this.switching) return this.switching;
    this.switching = (async () => {
      try {
        failed.dispose().catch(() => undefined);
        for (;;) {
          this.index = await nextUsable(this.chain, this.index);
          const next = this.chain[this.index];
          if (!next) throw err;
          this.onWarning?.({ message: `${err.message}; continuing on ${next.name}` });
          try {
            this.current = await next.create();
            return;
          } catch (createErr) {
            err =
              createErr instanceof BackendFailedError
                ? createErr
                : new BackendFailedError(next.name, describe(createErr));
          }
        }
      } finally {
        this.switching = null;
      }
    })();
    return this.switching;
  }

  upload(data: Float32Array): Promise<DeviceArray> {
    return this.run((b) => b.upload(data));
  }

  fft(
    input: ArrayInput,
    n: number,
    options?: TransformOptions & { inverse?: boolean },
  ): Promise<Float32Array> {
    return this.run((b) => b.fft(input, n, options));
  }

  rfft(input: ArrayInput, n: number, options?: TransformOptions): Promise<Float32Array> {
    return this.run((b) => b.rfft(input, n, options));
  }

  irfft(input: ArrayInput, n: number, options?: TransformOptions): Promise<Float32Array> {
    return this.run((b) => b.irfft(input, n, options));
  }

  hostBlocks(count: number, bytes: number): Promise<HostBlocks> {
    // the buffers stay usable after a failover (any backend takes plain memory); a failed backend's
    // registration ends with its disposal
    return this.run((b) =>
      b.hostBlocks ? b.hostBlocks(count, bytes) : Promise.resolve(plainHostBlocks(count, bytes)),
    );
  }

  createSpectrogram(config: SpectrogramConfig): SpectrogramProcessor {
    return new FailoverSpectrogram(this, config);
  }

  createFir(config: FirConfig): FirFilter {
    return new FailoverFir(this, config);
  }

  createCorrelator(config: CorrelatorConfig): Correlator {
    return new FailoverCorrelator(this, config);
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.current.dispose();
  }
}

/** Whether work may move to a provider: available, and not one `auto` passes over (a software adapter).
 * Providers are probed when the work reaches them; the probes remember what they found. */
export async function usable(p: BackendProvider): Promise<boolean> {
  const a = await p.probe();
  return a.available && a.autoSkip === undefined;
}

/** The index of the first usable provider after `i` (chain.length when there is none). */
async function nextUsable(chain: readonly BackendProvider[], i: number): Promise<number> {
  let j = i + 1;
  while (j < chain.length && !(await usable(chain[j]))) j++;
  return j;
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

class FailoverFir implements FirFilter {
  private inner: FirFilter;
  private owner: Backend;
  private readonly vpf: number; // float values per frame
  /** Frames pushed and returned (the inner filter's segments are its own: only the counts are used). */
  private readonly cursor: FirCursor;
  private discard = 0; // values of output still to drop after a rebuild
  private readonly tail = new HostTail();

  constructor(
    private readonly failover: FailoverBackend,
    private readonly config: FirConfig,
  ) {
    this.owner = failover.active;
    this.inner = this.owner.createFir(config);
    this.vpf = config.channels * (config.complex ? 2 : 1);
    this.cursor = new FirCursor(config.taps.length, 0);
  }

  get numtaps(): number {
    return this.inner.numtaps;
  }
  get method(): 'direct' | 'overlap-save' {
    return this.inner.method;
  }
  get pending(): number {
    return this.cursor.pending;
  }

  process(input: ProcessorInput, into?: Float32Array): Promise<Float32Array> {
    return this.step(input, (f) => f.process(input, into));
  }

  async flush(): Promise<Float32Array> {
    const out = await this.step(null, (f) => f.flush());
    this.cursor.reset();
    this.tail.clear();
    return out;
  }

  reset(): void {
    this.inner.reset();
    this.cursor.reset();
    this.discard = 0;
    this.tail.clear();
  }

  dispose(): void {
    this.inner.dispose();
  }

  private async step(
    input: ProcessorInput | null,
    op: (f: FirFilter) => Promise<Float32Array>,
  ): Promise<Float32Array> {
    let replayed: Float32Array = new Float32Array(0);
    for (;;) {
      try {
        const out = this.take(await op(this.inner));
        if (input) this.cursor.push(inputLength(input) / this.vpf);
        this.cursor.produce(out.length / this.vpf);
        if (input) this.tail.append(input, this.cursor.keepFrom * this.vpf);
        return concat(replayed, out);
      } catch (err) {
        if (!(err instanceof BackendFailedError) || !this.tail.hostOnly) throw err;
        await this.failover.advance(this.owner, err);
        replayed = concat(replayed, await this.rebuild());
      }
    }
  }

  /** A new filter on the current backend, primed with the kept input; returns outputs it completes. */
  private async rebuild(): Promise<Float32Array> {
    this.owner = this.failover.active;
    this.inner = this.owner.createFir(this.config);
    const from = Math.max(0, this.cursor.keepFrom);
    this.discard = (this.cursor.next - from) * this.vpf;
    const out = this.take(await this.inner.process(this.tail.slice(from * this.vpf)));
    this.cursor.produce(out.length / this.vpf);
    return out;
  }

  private take(out: Float32Array): Float32Array {
    if (this.discard === 0) return out;
    const drop = Math.min(this.discard, out.length);
    this.discard -= drop;
    return out.subarray(drop);
  }
}

class FailoverSpectrogram implements SpectrogramProcessor {
  private inner: SpectrogramProcessor;
  private owner: Backend;
  private readonly vps: number; // values per sample
  private frames = 0; // frames returned
  private frameOffset = 0; // frame index of the inner processor's frame 0
  /** Values of the coming input that lie before the inner processor's frame 0 (a rebuild in the gap
   * between two frames when hop > fft): they are dropped on the way in. */
  private skip = 0;
  private readonly tail = new HostTail();

  constructor(
    private readonly failover: FailoverBackend,
    private readonly config: SpectrogramConfig,
  ) {
    this.owner = failover.active;
    this.inner = this.owner.createSpectrogram(config);
    this.vps = config.complex ? 2 : 1;
  }

  get bins(): number {
    return this.inner.bins;
  }
  get width(): number {
    return this.inner.width;
  }

  async push(samples: ProcessorInput, into?: Float32Array): Promise<SpectrogramRows> {
    let replayed: SpectrogramRows | null = null;
    for (;;) {
      try {
        const drop = Math.min(this.skip, inputLength(samples));
        const r = await this.inner.push(drop > 0 ? dropFront(samples, drop) : samples, into);
        this.skip -= drop;
        const rows = this.shift(r);
        this.frames = rows.firstFrame + rows.count;
        this.tail.append(samples, this.frames * this.config.hop * this.vps);
        return replayed ? joinRows(replayed, rows) : rows;
      } catch (err) {
        if (!(err instanceof BackendFailedError) || !this.tail.hostOnly) throw err;
        await this.failover.advance(this.owner, err);
        this.owner = this.failover.active;
        this.inner = this.owner.createSpectrogram(this.config);
        this.frameOffset = this.frames;
        const from = this.frames * this.config.hop * this.vps;
        this.skip = Math.max(0, from - this.tail.end);
        replayed = this.shift(await this.inner.push(this.tail.slice(from)));
      }
    }
  }

  private shift(r: SpectrogramRows): SpectrogramRows {
    return { ...r, firstFrame: r.firstFrame + this.frameOffset };
  }

  reset(): void {
    this.inner.reset();
    this.frames = this.frameOffset = this.skip = 0;
    this.tail.clear();
  }

  dispose(): void {
    this.inner.dispose();
  }
}

/** The input without its first `values` values (host inputs only: a device input never reaches a rebuild). */
function dropFront(input: ProcessorInput, values: number): ProcessorInput {
  if (input instanceof Float32Array) return input.subarray(values);
  if (isRawSamples(input)) return { ...input, data: input.data.subarray(values) };
  return input;
}

function joinRows(a: SpectrogramRows, b: SpectrogramRows): SpectrogramRows {
  if (a.count === 0) return b;
  return { ...b, rows: concat(a.rows, b.rows), count: a.count + b.count, firstFrame: a.firstFrame };
}

class FailoverCorrelator implements Correlator {
  private inner: Correlator;
  private owner: Backend;
  private readonly vps: number;
  /** Lags returned (the inner correlator's segments are its own: only the count is used). */
  private readonly cursor: LagCursor;
  private lagOffset = 0; // lag index of the inner correlator's lag 0
  private readonly tail = new HostTail();

  constructor(
    private readonly failover: FailoverBackend,
    private readonly config: CorrelatorConfig,
  ) {
    this.owner = failover.active;
    this.inner = this.owner.createCorrelator(config);
    this.vps = config.complex ? 2 : 1;
    this.cursor = new LagCursor(this.inner.templateLength, 0);
  }

  get templateLength(): number {
    return this.inner.templateLength;
  }

  get pushBytes(): number | undefined {
    return this.inner.pushBytes;
  }

  process(input: ProcessorInput): Promise<CorrelationChunk> {
    return this.step(input, (c) => c.process(input));
  }

  async flush(): Promise<CorrelationChunk> {
    const chunk = await this.step(null, (c) => c.flush());
    this.cursor.reset();
    this.lagOffset = 0;
    this.tail.clear();
    return chunk;
  }

  reset(): void {
    this.inner.reset();
    this.cursor.reset();
    this.lagOffset = 0;
    this.tail.clear();
  }

  dispose(): void {
    this.inner.dispose();
  }

  private async step(
    input: ProcessorInput | null,
    op: (c: Correlator) => Promise<CorrelationChunk>,
  ): Promise<CorrelationChunk> {
    let replayed: CorrelationChunk | null = null;
    for (;;) {
      try {
        const chunk = this.shift(await op(this.inner));
        this.cursor.take(chunk.count);
        if (input) this.tail.append(input, this.cursor.keepFrom * this.vps);
        return replayed ? joinChunks(replayed, chunk) : chunk;
      } catch (err) {
        if (!(err instanceof BackendFailedError) || !this.tail.hostOnly) throw err;
        await this.failover.advance(this.owner, err);
        this.owner = this.failover.active;
        this.inner = this.owner.createCorrelator(this.config);
        this.lagOffset = this.cursor.next;
        replayed = this.shift(await this.inner.process(this.tail.slice(this.cursor.keepFrom * this.vps)));
        this.cursor.take(replayed.count);
      }
    }
  }

  private shift(c: CorrelationChunk): CorrelationChunk {
    if (this.lagOffset === 0) return c;
    return {
      ...c,
      startLag: c.startLag + this.lagOffset,
      peaks: c.peaks.map((p) => ({ lag: p.lag + this.lagOffset, score: p.score })),
    };
  }
}

function joinChunks(a: CorrelationChunk, b: CorrelationChunk): CorrelationChunk {
  if (a.count === 0) return { ...b, peaks: [...a.peaks, ...b.peaks].sort((x, y) => y.score - x.score) };
  const out: CorrelationChunk = {
    startLag: a.startLag,
    count: a.count + b.count,
    peaks: [...a.peaks, ...b.peaks].sort((x, y) => y.score - x.score),
  };
  if (a.scores && b.scores) out.scores = concat(a.scores, b.scores);
  return out;
}

function concat(a: Float32Array, b: Float32Array): Float32Array {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  const out = new Float32Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}
