// The offline requests of one connection (files, file spectrogram, samples, filter design and application,
// correlation, backends and benchmarks). Each runs as a job beside the connection's request queue, so a
// `cancel` and the live view are served while it runs; it answers with one reply (binary when its result
// carries floats) and, for the long ones, progress events meanwhile.
//
//   const work = new OfflineWork(engine, post);
//   work.run(id, 'fileSpectrogram', params);   // replies through post
//   work.cancel(id);                           // → the job answers with code 'cancelled'
//   await work.close();                        // cancels every job, closes every file

import path from 'node:path';
import type { z } from 'zod';
import type { Backend } from '../backends/backend.js';
import {
  CancelledError,
  InvalidArgumentError,
  errorInfo,
  throwIfAborted,
  type WarningHandler,
} from '../errors.js';
import { resolveRange } from '../io/range.js';
import {
  benchRowCount,
  machineInfo,
  runBench,
  runDeviceBenches,
  type BenchOp,
  type BenchRow,
} from '../pipeline/bench.js';
import { checkChannel, channelOf } from '../pipeline/channels.js';
import { correlateSources } from '../pipeline/correlate.js';
import { extractSource } from '../pipeline/extract.js';
import { filterSource } from '../pipeline/filter.js';
import { measureSource } from '../pipeline/measure.js';
import { spectrogramRegion } from '../pipeline/spectrogram-region.js';
import type { AnnotationEdit } from '../io/sigmf-annotations.js';
import { PresetStore } from '../io/presets.js';
import type {
  AnnotationsResult,
  ApplyFilterResult,
  BenchResult,
  ExtractResult,
  BackendDetails,
  BenchRowInfo,
  CorrelateResult,
  FileInfo,
  FileSpectrogramResult,
  MeasureResult,
  Method,
  ProgressEvent,
  SamplesResult,
  ServerMessage,
  requestSchemas,
} from '../protocol/messages.js';
import { encodeBinaryReply } from '../protocol/rows-codec.js';
import { FILE_SPECTRUM_FFT } from '../protocol/shape.js';
import { toFloat32, valuesPerFrame } from '../types.js';
import { FileAccess } from './access.js';
import { FileAnnotations } from './annotations.js';
import { designFilter } from './design.js';
import { listDirectory } from './directory.js';
import { Envelope } from './envelope.js';
import { fileSpectrum } from './file-spectrum.js';
import { FileRegistry, type FileLease } from './files.js';
import { JobRunner, type JobContext } from './jobs.js';

/** What offline work needs from its host's engine (live/engine.ts's Engine is one): declared here so
 * offline/ sits below live/ and never imports it. */
export interface OfflineEngine {
  /** The host's shared backend (with failover). */
  backend(): Promise<Backend>;
  /** Every backend with its device and details, or why it cannot be used in this host. */
  backendDetails(): Promise<BackendDetails[]>;
  /** A new backend of its own (no failover), disposed by the caller. */
  createBackend(name: string): Promise<Backend>;
}

/** Requests served here (the others are the live session's, answered in order by the connection). */
export const OFFLINE_METHODS: ReadonlySet<Method> = new Set<Method>([
  'openFile',
  'closeFile',
  'listDirectory',
  'fileSpectrogram',
  'fileSpectrum',
  'readSamples',
  'designFilter',
  'applyFilter',
  'extract',
  'correlate',
  'measure',
  'listBackends',
  'runBench',
  'addAnnotation',
  'updateAnnotation',
  'deleteAnnotation',
  'listPresets',
  'savePreset',
  'renamePreset',
  'deletePreset',
]);

/** Largest readSamples reply, in float32 values (64 MiB). */
export const MAX_SAMPLE_VALUES = 1 << 24;
/** Bytes of binary replies one connection may hold, computed or queued, until its transport has taken
 * them (two of the largest readSamples replies): a client that does not read cannot make the server
 * compute more for it. */
export const MAX_PENDING_REPLY_BYTES = 128 << 20;

/** A count of bytes shared by the jobs of one connection, taken in request order. */
class ByteBudget {
  #free: number;
  readonly #capacity: number;
  readonly #waiting: Array<{ n: number; go: () => void }> = [];

  constructor(capacity: number) {
    this.#capacity = capacity;
    this.#free = capacity;
  }

  /** Waits until `n` bytes (at most the capacity) are free and takes them; returns what was taken. */
  async take(n: number, signal: AbortSignal): Promise<number> {
    const want = Math.min(n, this.#capacity);
    if (this.#waiting.length === 0 && this.#free >= want) {
      this.#free -= want;
      return want;
    }
    await new Promise<void>((resolve, reject) => {
      const entry = {
        n: want,
        go: () => {
          signal.removeEventListener('abort', abort);
          resolve();
        },
      };
      const abort = (): void => {
        const i = this.#waiting.indexOf(entry);
        if (i >= 0) this.#waiting.splice(i, 1);
        this.#next();
        reject(new CancelledError());
      };
      if (signal.aborted) return abort();
      signal.addEventListener('abort', abort, { once: true });
      this.#waiting.push(entry);
    });
    return want;
  }

  give(n: number): void {
    this.#free += n;
    this.#next();
  }

  #next(): void {
    while (this.#waiting.length > 0 && this.#free >= this.#waiting[0].n) {
      const w = this.#waiting.shift()!;
      this.#free -= w.n;
      w.go();
    }
  }
}

type Params<M extends Method> = z.infer<(typeof requestSchemas)[M]>;

/** A reply's result: plain JSON, or JSON plus a float32 payload (a binary reply). */
type Outcome = { json: unknown } | { result: Record<string, unknown>; data: Float32Array };

export interface OfflineOptions {
  onWarning?: WarningHandler;
  /** Progress events of one job at most this often (ms); default 100. */
  progressIntervalMs?: number;
  maxJobs?: number;
  /** What the client may read, list and write (default: anything, for tests and the CLI). */
  access?: FileAccess;
  /** Resolves when the transport has sent what is queued down to its low-water mark (default: at once). */
  drained?: () => Promise<void>;
  /** The user's presets file (default: presets.json in the user's config folder, io/presets.ts). */
  presets?: PresetStore;
}

function rowInfo(r: BenchRow): BenchRowInfo {
  const x: BenchRowInfo = {
    backend: r.backend,
    op: r.op,
    size: r.size,
    batch: r.batch,
    samples: r.samples,
    medianMs: r.medianMs,
    samplesPerSecond: r.samplesPerSecond,
    relError: r.relError,
  };
  if (r.gflops !== undefined) x.gflops = r.gflops;
  if (r.vsCpu !== undefined) x.vsCpu = r.vsCpu;
  if (r.vsCuda !== undefined) x.vsCuda = r.vsCuda;
  return x;
}

export class OfflineWork {
  readonly #engine: OfflineEngine;
  readonly #post: (msg: ServerMessage | ArrayBuffer) => void;
  readonly #files: FileRegistry;
  readonly #jobs: JobRunner;
  readonly #access: FileAccess;
  readonly #annotations: FileAnnotations;
  readonly #drained: () => Promise<void>;
  readonly #presets: PresetStore;
  readonly #budget = new ByteBudget(MAX_PENDING_REPLY_BYTES);
  /** Budget bytes each job holds (by request id) until its reply has gone out. */
  readonly #held = new Map<number, number>();
  #closed = false;

  constructor(
    engine: OfflineEngine,
    post: (msg: ServerMessage | ArrayBuffer) => void,
    options: OfflineOptions = {},
  ) {
    this.#engine = engine;
    this.#post = post;
    this.#files = new FileRegistry(options.onWarning);
    this.#access = options.access ?? new FileAccess('any');
    this.#annotations = new FileAnnotations(this.#access);
    this.#drained = options.drained ?? (() => Promise.resolve());
    this.#presets = options.presets ?? new PresetStore();
    this.#jobs = new JobRunner({
      send: (data: ProgressEvent) => this.#post({ type: 'event', event: 'progress', data }),
      ...(options.progressIntervalMs !== undefined ? { intervalMs: options.progressIntervalMs } : {}),
      ...(options.maxJobs !== undefined ? { maxJobs: options.maxJobs } : {}),
    });
  }

  /** Jobs running now. */
  get running(): number {
    return this.#jobs.size;
  }

  /** Runs request `id`; its reply (or error) goes out through post. Never throws. */
  run(id: number, method: Method, params: unknown): void {
    const release = (afterDrain: boolean): void => {
      const n = this.#held.get(id);
      if (n === undefined) return;
      this.#held.delete(id);
      if (!afterDrain || this.#closed) this.#budget.give(n);
      else
        void this.#drained().then(
          () => this.#budget.give(n),
          () => this.#budget.give(n),
        );
    };
    const fail = (err: unknown): void => {
      release(false);
      if (this.#closed) return;
      this.#post({ type: 'reply', id, ok: false, error: errorInfo(err) });
    };
    let promise: Promise<Outcome>;
    try {
      promise = this.#jobs.start(id, async (ctx) => {
        try {
          const out = await this.#handle(method, params, ctx);
          // A cancelled request answers 'cancelled' even when it got to the end; an output file written
          // before the cancel arrived stands, so applyFilter and extract say so.
          if (ctx.signal.aborted && method !== 'applyFilter' && method !== 'extract')
            throw new CancelledError();
          return out;
        } catch (err) {
          if (ctx.signal.aborted && !(err instanceof CancelledError)) throw new CancelledError();
          throw err;
        }
      });
    } catch (err) {
      fail(err);
      return;
    }
    promise.then((out) => {
      if (!this.#closed) {
        if ('json' in out) this.#post({ type: 'reply', id, ok: true, result: out.json });
        else this.#post(encodeBinaryReply(id, out.result, out.data));
      }
      release(true);
    }, fail);
  }

  /** Asks request `request` to stop; false when it is not running. */
  cancel(request: number): boolean {
    return this.#jobs.cancel(request);
  }

  /** Cancels every job, then closes every file. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#jobs.close();
    await this.#files.closeAll();
  }

  /** Takes `bytes` of the reply budget for job `ctx` (held until its reply has gone out). */
  async #reserve(ctx: JobContext, bytes: number): Promise<void> {
    const n = await this.#budget.take(bytes, ctx.signal);
    this.#held.set(ctx.id, (this.#held.get(ctx.id) ?? 0) + n);
  }

  #lease(file: number, ctx: JobContext): FileLease {
    return this.#files.acquire(file, () => this.#jobs.cancel(ctx.id));
  }

  async #backend(): Promise<Backend> {
    return this.#engine.backend();
  }

  async #handle(method: Method, params: unknown, ctx: JobContext): Promise<Outcome> {
    switch (method) {
      case 'openFile':
        return { json: await this.#openFile(params as Params<'openFile'>) };
      case 'closeFile':
        await this.#files.close((params as Params<'closeFile'>).file);
        this.#annotations.forget((params as Params<'closeFile'>).file);
        return { json: {} };
      case 'listDirectory':
        return { json: await listDirectory((params as Params<'listDirectory'>).path, this.#access) };
      case 'fileSpectrogram':
        return this.#fileSpectrogram(params as Params<'fileSpectrogram'>, ctx);
      case 'fileSpectrum':
        return this.#fileSpectrum(params as Params<'fileSpectrum'>, ctx);
      case 'readSamples':
        return this.#readSamples(params as Params<'readSamples'>, ctx);
      case 'designFilter':
        return { json: await designFilter(params as Params<'designFilter'>, ctx.signal) };
      case 'applyFilter':
        return { json: await this.#applyFilter(params as Params<'applyFilter'>, ctx) };
      case 'extract':
        return { json: await this.#extract(params as Params<'extract'>, ctx) };
      case 'correlate':
        return this.#correlate(params as Params<'correlate'>, ctx);
      case 'measure':
        return { json: await this.#measure(params as Params<'measure'>, ctx) };
      case 'listBackends':
        return { json: { backends: await this.#engine.backendDetails() } };
      case 'runBench':
        return { json: await this.#runBench(params as Params<'runBench'>, ctx) };
      case 'addAnnotation': {
        const p = params as Params<'addAnnotation'>;
        return { json: await this.#editAnnotations(p.file, { op: 'add', fields: p.annotation }, ctx) };
      }
      case 'updateAnnotation': {
        const p = params as Params<'updateAnnotation'>;
        const edit = { op: 'update', index: p.id, fields: p.annotation } as const;
        return { json: await this.#editAnnotations(p.file, edit, ctx) };
      }
      case 'deleteAnnotation': {
        const p = params as Params<'deleteAnnotation'>;
        return { json: await this.#editAnnotations(p.file, { op: 'delete', index: p.id }, ctx) };
      }
      case 'listPresets':
        return { json: await this.#presets.list() };
      case 'savePreset': {
        const p = params as Params<'savePreset'>;
        return { json: await this.#presets.save(p.name, p.settings, p.conflict) };
      }
      case 'renamePreset': {
        const p = params as Params<'renamePreset'>;
        return { json: await this.#presets.rename(p.name, p.to) };
      }
      case 'deletePreset':
        return { json: await this.#presets.remove((params as Params<'deletePreset'>).name) };
      default:
        throw new InvalidArgumentError(`${method} is not an offline request`);
    }
  }

  /** Opens a file in the client's roots; a SigMF recording's data file must lie in them too. */
  async #openFile(p: Params<'openFile'>): Promise<FileInfo> {
    const file = await this.#access.check(this.#access.resolve(p.path), 'read');
    const info = await this.#files.open({ ...p, path: file });
    const lease = this.#files.acquire(info.file, () => undefined);
    const data = lease.source.info.path;
    lease.release();
    if (data !== undefined && data !== file) {
      try {
        await this.#access.check(data, 'read');
      } catch (err) {
        await this.#files.close(info.file).catch(() => undefined);
        throw err;
      }
    }
    const opened = this.#files.acquire(info.file, () => undefined);
    try {
      await this.#annotations.opened(info, opened.source);
    } finally {
      opened.release();
    }
    return info;
  }

  async #editAnnotations(file: number, edit: AnnotationEdit, ctx: JobContext): Promise<AnnotationsResult> {
    const lease = this.#lease(file, ctx);
    try {
      return await this.#annotations.edit(lease.info, lease.source, edit);
    } finally {
      lease.release();
    }
  }

  async #fileSpectrogram(p: Params<'fileSpectrogram'>, ctx: JobContext): Promise<Outcome> {
    const lease = this.#lease(p.file, ctx);
    try {
      await this.#reserve(ctx, p.width * p.height * 4);
      const backend = await this.#backend();
      const img = await spectrogramRegion(backend, lease.source, {
        start: p.start,
        ...(p.end !== undefined ? { end: p.end } : {}),
        ...(p.fLow !== undefined ? { fLow: p.fLow } : {}),
        ...(p.fHigh !== undefined ? { fHigh: p.fHigh } : {}),
        ...(p.fft !== undefined ? { fft: p.fft } : {}),
        overlap: p.overlap,
        window: p.window,
        width: p.width,
        height: p.height,
        channel: p.channel,
        signal: ctx.signal,
        onProgress: (done, total) => ctx.progress(done, total, 'frames'),
      });
      const result: FileSpectrogramResult = {
        width: img.width,
        height: img.height,
        frames: img.frames,
        start: img.start,
        end: img.end,
        fft: img.fft,
        hop: img.hop,
        frequencyRange: img.frequencyRange,
      };
      return { result: { ...result }, data: img.levels };
    } finally {
      lease.release();
    }
  }

  async #fileSpectrum(p: Params<'fileSpectrum'>, ctx: JobContext): Promise<Outcome> {
    const lease = this.#lease(p.file, ctx);
    try {
      await this.#reserve(ctx, (p.fft ?? FILE_SPECTRUM_FFT) * 4);
      const { result, levels } = await fileSpectrum(await this.#backend(), lease.source, {
        ...p,
        signal: ctx.signal,
        onProgress: (done, total) => ctx.progress(done, total, 'frames'),
      });
      return { result: { ...result }, data: levels };
    } finally {
      lease.release();
    }
  }

  async #readSamples(p: Params<'readSamples'>, ctx: JobContext): Promise<Outcome> {
    const lease = this.#lease(p.file, ctx);
    try {
      const { source, info } = lease;
      const format = source.info;
      if (p.channel !== undefined) checkChannel(p.channel, format, info.path);
      const { start, end } = resolveRange({ start: p.start, end: p.end }, info.samples);
      const frames = end - start;
      const w = format.complex ? 2 : 1;
      const perFrame = p.channel !== undefined ? w : valuesPerFrame(format);
      if (frames * perFrame > MAX_SAMPLE_VALUES) {
        throw new InvalidArgumentError(
          `readSamples returns at most ${MAX_SAMPLE_VALUES} values (${Math.floor(MAX_SAMPLE_VALUES / perFrame)} frames of this file) at once; ` +
            `${frames} frames were asked for: read a shorter range`,
        );
      }
      await this.#reserve(ctx, frames * perFrame * 4);
      const data = new Float32Array(frames * perFrame);
      let o = 0;
      if (frames > 0) {
        for await (const block of source.blocks({ start, end, signal: ctx.signal })) {
          const floats =
            p.channel !== undefined
              ? toFloat32(channelOf(block.data, format, p.channel))
              : toFloat32(block.data);
          data.set(floats, o);
          o += floats.length;
        }
      }
      const result: SamplesResult = {
        start,
        frames,
        channels: p.channel !== undefined ? 1 : format.channels,
        sampleRate: format.sampleRate,
        complex: format.complex,
      };
      return { result: { ...result }, data };
    } finally {
      lease.release();
    }
  }

  async #applyFilter(p: Params<'applyFilter'>, ctx: JobContext): Promise<ApplyFilterResult> {
    const lease = this.#lease(p.file, ctx);
    try {
      const output = await this.#access.check(path.resolve(path.dirname(lease.info.path), p.output), 'write');
      const taps = Float64Array.from(p.taps);
      const backend = await this.#backend();
      const t0 = performance.now();
      const r = await filterSource(backend, lease.source, output, taps, {
        causal: p.causal,
        ...(p.encoding !== undefined ? { encoding: p.encoding } : {}),
        applied: { filter: 'fir', numtaps: taps.length, causal: p.causal },
        signal: ctx.signal,
        onProgress: (done, total) => ctx.progress(done, total, 'frames'),
      });
      return { ...r, seconds: (performance.now() - t0) / 1000 };
    } finally {
      lease.release();
    }
  }

  async #extract(p: Params<'extract'>, ctx: JobContext): Promise<ExtractResult> {
    const lease = this.#lease(p.file, ctx);
    try {
      const output = await this.#access.check(path.resolve(path.dirname(lease.info.path), p.output), 'write');
      const backend = await this.#backend();
      return await extractSource(backend, lease.source, output, {
        ...(p.start !== undefined ? { start: p.start } : {}),
        ...(p.end !== undefined ? { end: p.end } : {}),
        ...(p.shift !== undefined ? { shift: p.shift } : {}),
        ...(p.lowpass !== undefined ? { lowpass: p.lowpass } : {}),
        ...(p.numtaps !== undefined ? { numtaps: p.numtaps } : {}),
        ...(p.decimate !== undefined ? { decimate: p.decimate } : {}),
        signal: ctx.signal,
        onProgress: (done, total) => ctx.progress(done, total, 'frames'),
      });
    } finally {
      lease.release();
    }
  }

  async #correlate(p: Params<'correlate'>, ctx: JobContext): Promise<Outcome> {
    const signal = this.#lease(p.signal, ctx);
    let template: FileLease | undefined;
    try {
      template = this.#lease(p.template.file, ctx);
      const s = signal.source.info;
      const t = template.source.info;
      const range = resolveRange({ start: p.template.start, end: p.template.end }, t.samples);
      const lags = (s.samples ?? 0) - (range.end - range.start) + 1;
      // When there is no lag, correlateSources says why (template longer than the signal, empty…).
      const envelope = lags >= 1 ? new Envelope(lags, p.points) : null;
      const backend = await this.#backend();
      const r = await correlateSources(backend, signal.source, template.source, {
        top: p.top,
        channel: p.channel,
        templateRange: { start: range.start, end: range.end },
        signal: ctx.signal,
        onProgress: (done, total) => ctx.progress(done, total, 'frames'),
        onScores: (startLag, scores) => envelope?.add(startLag, scores),
      });
      const data = envelope ? envelope.result() : new Float32Array(0);
      const result: CorrelateResult = {
        peaks: r.peaks.map((m) => ({ lag: m.lag, time: m.time, score: m.score })),
        lags: r.lags,
        templateLength: r.templateLength,
        sampleRate: r.sampleRate,
        points: data.length,
        bucket: envelope?.bucket ?? 1,
      };
      return { result: { ...result }, data };
    } finally {
      template?.release();
      signal.release();
    }
  }

  async #measure(p: Params<'measure'>, ctx: JobContext): Promise<MeasureResult> {
    const lease = this.#lease(p.file, ctx);
    try {
      const { fLow, fHigh, fft } = p;
      return await measureSource(await this.#backend(), lease.source, {
        start: p.start,
        ...(p.end !== undefined ? { end: p.end } : {}),
        ...(fLow !== undefined ? { fLow } : {}),
        ...(fHigh !== undefined ? { fHigh } : {}),
        ...(fft !== undefined ? { fft } : {}),
        channel: p.channel,
        window: p.window,
        signal: ctx.signal,
        onProgress: (done, total) => ctx.progress(done, total, 'frames'),
      });
    } finally {
      lease.release();
    }
  }

  async #runBench(p: Params<'runBench'>, ctx: JobContext): Promise<BenchResult> {
    const names = [...new Set(p.backends)];
    // CPU first: its rows are the reference for the speed-up of the others.
    names.sort((a, b) => (a === 'cpu' ? -1 : b === 'cpu' ? 1 : 0));
    const backends: Backend[] = [];
    try {
      for (const name of names) {
        throwIfAborted(ctx.signal);
        backends.push(await this.#engine.createBackend(name));
      }
      const options = {
        ops: p.ops as BenchOp[],
        ...(p.sizes !== undefined ? { sizes: p.sizes } : {}),
        ...(p.samples !== undefined ? { samples: p.samples } : {}),
        ...(p.repeats !== undefined ? { repeats: p.repeats } : {}),
      };
      const total = benchRowCount(backends.length, options);
      let done = 0;
      ctx.progress(0, total, 'rows');
      const rows = await runBench(backends, {
        ...options,
        signal: ctx.signal,
        onRow: (r) => ctx.progress(++done, total, 'rows', rowInfo(r)),
      });
      const result: BenchResult = {
        machine: machineInfo(),
        backends: await this.#engine.backendDetails(),
        rows: rows.map(rowInfo),
      };
      if (p.device) {
        const device = await runDeviceBenches(backends, {
          ops: options.ops,
          ...(p.sizes !== undefined ? { sizes: p.sizes } : {}),
          ...(p.deviceSamples !== undefined ? { samples: p.deviceSamples } : {}),
          ...(p.repeats !== undefined ? { repeats: p.repeats } : {}),
          signal: ctx.signal,
        });
        result.deviceRows = device.rows;
        result.deviceTimers = device.timers;
      }
      return result;
    } finally {
      await Promise.all(backends.map((b) => b.dispose().catch(() => undefined)));
    }
  }
}
