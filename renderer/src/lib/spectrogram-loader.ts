// Fetches the file spectrogram for what a plot shows: the whole file first (with progress, cancellable),
// then, as the user zooms and pans, the visible region at the plot's resolution — debounced, so a burst of
// wheel events makes one request, and any request still running for an older view is cancelled. The file
// is never loaded whole: each request asks for at most one pixel's worth of levels per pixel.

import type {
  FileInfo,
  FileSpectrogramResult,
  MethodParams,
  ProgressEvent,
} from '../../../electron/engine/protocol/messages.js';
import type { RequestOptions } from '../transport/connection.js';
import { isCancelled } from '../transport/connection.js';
import { chooseAnalysis, isWhole, regionRequest, type Region } from './file-view.js';

export interface SpectrogramImage extends FileSpectrogramResult {
  file: number;
  data: Float32Array;
  /** Seconds covered: start / rate … end / rate. */
  t0: number;
  t1: number;
  whole: boolean;
}

export interface LoaderState {
  /** The whole file (the base layer, stretched while a zoomed view loads). */
  overview: SpectrogramImage | null;
  /** The latest image (may equal the overview). */
  detail: SpectrogramImage | null;
  loading: boolean;
  /** Whether the running request computes the whole file (the prominent progress bar). */
  loadingWhole: boolean;
  progress: ProgressEvent | null;
  error: string;
  cancelled: boolean;
}

export type FetchSpectrogram = (
  params: MethodParams['fileSpectrogram'],
  options: RequestOptions,
) => Promise<FileSpectrogramResult & { data: Float32Array }>;

export interface LoaderOptions {
  debounceMs?: number;
  window?: string;
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (handle: unknown) => void;
}

type Want = { info: FileInfo; region: Region; width: number; height: number };

export class SpectrogramLoader {
  readonly state: LoaderState = {
    overview: null,
    detail: null,
    loading: false,
    loadingWhole: false,
    progress: null,
    error: '',
    cancelled: false,
  };
  private file = -1;
  /** Key of the request in flight or of the image shown. */
  private key = '';
  private controller: AbortController | null = null;
  private timer: unknown = null;
  private pendingWant: Want | null = null;
  private disposed = false;
  private readonly debounceMs: number;
  private readonly setTimer: (fn: () => void, ms: number) => unknown;
  private readonly clearTimer: (handle: unknown) => void;
  window: string;
  /** Frame length the user fixed (null: chosen per view). */
  fft: number | null = null;

  constructor(
    private readonly fetch: FetchSpectrogram,
    private readonly onChange: (state: LoaderState) => void,
    options: LoaderOptions = {},
  ) {
    this.debounceMs = options.debounceMs ?? 180;
    this.window = options.window ?? 'hann';
    this.setTimer = options.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
    this.clearTimer = options.clearTimer ?? ((h) => clearTimeout(h as ReturnType<typeof setTimeout>));
  }

  /** The request parameters for a view (exposed for tests). */
  params(w: Want): MethodParams['fileSpectrogram'] {
    const r = regionRequest(w.region, w.info, w.width, w.height);
    const a = chooseAnalysis(w.region, w.info, r.width, r.height);
    return { file: w.info.file, window: this.window, ...r, fft: this.fft ?? a.fft, overlap: a.overlap };
  }

  private keyOf(p: MethodParams['fileSpectrogram']): string {
    return [p.file, p.start, p.end, p.fLow, p.fHigh, p.width, p.height, p.window, p.fft, p.overlap].join('|');
  }

  /** Says what the plot shows now; fetches it when it is not what is shown or coming. */
  want(info: FileInfo, region: Region, width: number, height: number): void {
    if (this.disposed || width < 1 || height < 1) return;
    const w: Want = { info, region, width, height };
    if (info.file !== this.file) {
      // Another file: nothing shown belongs to it.
      this.abort();
      this.file = info.file;
      this.state.overview = this.state.detail = null;
      this.state.error = '';
      this.state.cancelled = false;
      this.key = '';
      this.start(w);
      return;
    }
    const p = this.params(w);
    const key = this.keyOf(p);
    if (key === this.key) {
      this.clearPending();
      return;
    }
    const o = this.state.overview;
    if (o && isWhole(region, info) && o.width === p.width && o.height === p.height) {
      // Back to the whole file at the same size: the overview is that image.
      this.abort();
      this.clearPending();
      this.key = key;
      this.state.detail = o;
      this.emit();
      return;
    }
    if (!o && !this.state.loading && !this.state.cancelled) {
      this.start(w);
      return;
    }
    if (this.state.cancelled && !this.state.loading) return; // the user stopped it; Refresh goes on
    this.pendingWant = w;
    if (this.timer !== null) this.clearTimer(this.timer);
    this.timer = this.setTimer(() => {
      this.timer = null;
      const next = this.pendingWant;
      this.pendingWant = null;
      if (next) this.start(next);
    }, this.debounceMs);
  }

  /** Computes the last wanted view again (after a cancel or an error). */
  refresh(info: FileInfo, region: Region, width: number, height: number): void {
    this.state.cancelled = false;
    this.state.error = '';
    this.key = '';
    this.clearPending();
    this.start({ info, region, width, height });
  }

  /** Stops the running request (the engine answers 'cancelled'). */
  cancel(): void {
    this.clearPending();
    if (this.controller) {
      this.state.cancelled = true;
      this.controller.abort();
    }
  }

  dispose(): void {
    this.disposed = true;
    this.clearPending();
    this.abort();
  }

  private clearPending(): void {
    if (this.timer !== null) this.clearTimer(this.timer);
    this.timer = null;
    this.pendingWant = null;
  }

  private abort(): void {
    const c = this.controller;
    this.controller = null;
    c?.abort();
    this.state.loading = false;
    this.state.loadingWhole = false;
    this.state.progress = null;
  }

  private emit(): void {
    if (!this.disposed) this.onChange(this.state);
  }

  private start(w: Want): void {
    this.abort();
    const p = this.params(w);
    const key = this.keyOf(p);
    const whole = isWhole(w.region, w.info);
    const c = new AbortController();
    this.controller = c;
    this.key = key;
    this.state.loading = true;
    this.state.loadingWhole = whole && !this.state.overview;
    this.state.progress = null;
    this.state.error = '';
    this.state.cancelled = false;
    this.emit();
    const fs = w.info.sampleRate;
    this.fetch(p, {
      signal: c.signal,
      onProgress: (e) => {
        if (this.controller !== c) return;
        this.state.progress = e;
        this.emit();
      },
    }).then(
      (r) => {
        if (this.controller !== c) return;
        this.controller = null;
        const img: SpectrogramImage = { ...r, file: p.file, t0: r.start / fs, t1: r.end / fs, whole };
        if (whole) this.state.overview = img;
        this.state.detail = img;
        this.state.loading = this.state.loadingWhole = false;
        this.state.progress = null;
        this.emit();
      },
      (e: unknown) => {
        if (this.controller !== c && !c.signal.aborted) return;
        const mine = this.controller === c;
        if (mine) this.controller = null;
        if (!mine && !this.state.cancelled) return; // superseded by a newer view
        this.state.loading = this.state.loadingWhole = false;
        this.state.progress = null;
        if (isCancelled(e) || c.signal.aborted) this.state.cancelled = true;
        else this.state.error = e instanceof Error ? e.message : String(e);
        this.key = '';
        this.emit();
      },
    );
  }
}
