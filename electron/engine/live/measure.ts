// Band measurements of a live session's newest samples (the measureLive request): while measurements are
// wanted, a tap on the session copies the analysed channel of every block into a preallocated ring of
// float32 (raw integers decoded as they are copied: nothing allocated per block); a request copies the
// newest `seconds` out of it and measures them with dsp/measure.ts, as the File view measures a
// selection. The ring is dropped (and the tap removed) after `idleMs` without a request.
//
//   const m = new LiveMeasure(session, backend);
//   const r = await m.measure({ seconds: 1, fLow: 900, fHigh: 1100 }); // waits until 1 s is buffered
//   m.dispose();
//
// A block at another centre frequency (a retune) empties the ring: one measurement never mixes centres.

import type { Backend } from '../backends/backend.js';
import { formatWindow, measureSamples, parseWindow } from '../dsp/index.js';
import { InvalidArgumentError, PhasorError } from '../errors.js';
import type { MeasureResult } from '../protocol/messages.js';
import {
  DEFAULT_WINDOW,
  LIVE_MEASURE_FRAMES_MAX,
  LIVE_MEASURE_SECONDS_DEFAULT,
  LIVE_MEASURE_SECONDS_MAX,
} from '../protocol/shape.js';
import type { LiveBlock } from '../sources/live-source.js';
import type { LiveSession } from './session.js';

/** Without a request for this long (ms), the ring goes and the session is no longer tapped. */
export const LIVE_MEASURE_IDLE_MS = 15_000;
/** How long past the samples' own duration a request waits for them to arrive (ms). */
const WAIT_MARGIN_MS = 2000;

export interface LiveMeasureRequest {
  /** The newest seconds of samples to measure (default LIVE_MEASURE_SECONDS_DEFAULT). */
  seconds?: number;
  /** Band edges (Hz, absolute as the session's frequencyRange); default the whole spectrum. */
  fLow?: number;
  fHigh?: number;
  window?: string;
  fft?: number;
  signal?: AbortSignal;
}

export interface LiveMeasureOptions {
  /** Default LIVE_MEASURE_IDLE_MS. */
  idleMs?: number;
}

function fmtSeconds(s: number): string {
  return `${Number(s.toPrecision(3))} s`;
}

function fmtHz(f: number): string {
  return `${Number(f.toPrecision(6))} Hz`;
}

export class LiveMeasure {
  readonly #session: LiveSession;
  readonly #backend: Backend;
  readonly #idleMs: number;
  readonly #channel: number;
  readonly #sampleRate: number;
  /** Values per frame: 2 for I/Q. */
  readonly #w: number;
  #untap: (() => void) | null = null;
  /** capacity × w values; frame slot s holds values [s·w, (s+1)·w). */
  #ring = new Float32Array(0);
  #capacity = 0;
  /** Slot the next frame goes to. */
  #head = 0;
  /** Frames held (≤ capacity). */
  #filled = 0;
  /** Stream frame one past the newest held. */
  #end = 0;
  /** Centre (Hz) of the samples held (I/Q with a known centre). */
  #centre: number | undefined;
  #idleTimer: ReturnType<typeof setTimeout> | null = null;
  /** Called after each block (a request waiting for samples). */
  readonly #waiters = new Set<() => void>();
  /** Requests under way. */
  #pending = 0;
  #disposed = false;

  constructor(session: LiveSession, backend: Backend, options: LiveMeasureOptions = {}) {
    this.#session = session;
    this.#backend = backend;
    this.#idleMs = options.idleMs ?? LIVE_MEASURE_IDLE_MS;
    const info = session.source.info;
    this.#channel = session.source.channel;
    this.#sampleRate = info.sampleRate;
    this.#w = info.complex ? 2 : 1;
    this.#centre = info.complex ? info.centerFrequency : undefined;
  }

  /** The session measured. */
  get session(): LiveSession {
    return this.#session;
  }

  /** Frames the ring holds at most now (0 while not tapping). */
  get capacity(): number {
    return this.#capacity;
  }

  /** Frames buffered now. */
  get buffered(): number {
    return this.#filled;
  }

  /** Whether the session is being tapped (a measurement was wanted within idleMs). */
  get active(): boolean {
    return this.#untap !== null;
  }

  /** Measures the newest `seconds` of the session's samples, waiting for them when the ring has fewer
   * (a first request, or one after a retune). */
  async measure(request: LiveMeasureRequest = {}): Promise<MeasureResult> {
    if (this.#disposed) throw new InvalidArgumentError('the live session stopped');
    const seconds = request.seconds ?? LIVE_MEASURE_SECONDS_DEFAULT;
    if (!(Number.isFinite(seconds) && seconds > 0 && seconds <= LIVE_MEASURE_SECONDS_MAX))
      throw new InvalidArgumentError(`seconds must be > 0 and ≤ ${LIVE_MEASURE_SECONDS_MAX}, got ${seconds}`);
    const fs = this.#sampleRate;
    const frames = Math.max(1, Math.round(seconds * fs));
    if (frames > LIVE_MEASURE_FRAMES_MAX)
      throw new InvalidArgumentError(
        `at most ${fmtSeconds(LIVE_MEASURE_FRAMES_MAX / fs)} of a ${fmtHz(fs)} stream can be measured ` +
          `(${LIVE_MEASURE_FRAMES_MAX} frames), got ${seconds} s`,
      );
    const window = formatWindow(parseWindow(request.window ?? DEFAULT_WINDOW));
    this.#checkBand(request.fLow, request.fHigh);
    this.#keep(frames);
    this.#pending++;
    try {
      await this.#waitFor(frames, seconds, request.signal);
      if (this.#disposed) throw new InvalidArgumentError('the live session stopped');
      if (this.#filled < frames) {
        const why = this.#session.ended ? 'the live source ended' : 'not enough live samples yet';
        throw new InvalidArgumentError(
          `${why}: ${fmtSeconds(this.#filled / fs)} buffered, ${fmtSeconds(seconds)} wanted`,
        );
      }
      const start = this.#end - frames;
      const end = this.#end;
      const centre = this.#centre;
      const samples = this.#newest(frames);
      const format = {
        sampleRate: fs,
        complex: this.#w === 2,
        ...(centre !== undefined ? { centerFrequency: centre } : {}),
      };
      const m = await measureSamples(this.#backend, samples, format, {
        window,
        ...(request.fft !== undefined ? { fft: request.fft } : {}),
        ...(request.fLow !== undefined ? { fLow: request.fLow } : {}),
        ...(request.fHigh !== undefined ? { fHigh: request.fHigh } : {}),
        ...(request.signal ? { signal: request.signal } : {}),
      });
      return { ...m, window, start, end };
    } finally {
      // the idle time counts from the last reply
      this.#pending--;
      this.#armIdle();
    }
  }

  /** Removes the tap and frees the ring; waiting requests fail. */
  dispose(): void {
    this.#disposed = true;
    this.#release();
    for (const wake of this.#waiters) wake();
    this.#waiters.clear();
  }

  /** The band must overlap the session's spectrum (as its frequencyRange reads). */
  #checkBand(fLow: number | undefined, fHigh: number | undefined): void {
    const fs = this.#sampleRate;
    const c = this.#w === 2 ? (this.#session.info().centerFrequency ?? 0) : 0;
    const [bottom, top] = this.#w === 2 ? [c - fs / 2, c + fs / 2] : [0, fs / 2];
    const lo = fLow ?? bottom;
    const hi = fHigh ?? top;
    if (!(lo < hi))
      throw new InvalidArgumentError(`the band's low edge must be below its high edge, got ${lo} … ${hi} Hz`);
    if (hi <= bottom || lo >= top)
      throw new InvalidArgumentError(
        `the band ${fmtHz(lo)} … ${fmtHz(hi)} lies outside the live spectrum ${fmtHz(bottom)} … ${fmtHz(top)}`,
      );
  }

  /** Taps the session with a ring of at least `frames` (keeping what it holds); no idle release until
   * the request is answered. */
  #keep(frames: number): void {
    if (this.#disposed) return;
    if (frames > this.#capacity) {
      const capacity = Math.min(
        LIVE_MEASURE_FRAMES_MAX,
        Math.max(frames, Math.round(LIVE_MEASURE_SECONDS_DEFAULT * this.#sampleRate)),
      );
      const ring = new Float32Array(capacity * this.#w);
      const held = this.#filled;
      if (held > 0) ring.set(this.#newest(held));
      this.#ring = ring;
      this.#capacity = capacity;
      this.#head = held % capacity;
    }
    if (!this.#untap) this.#untap = this.#session.tap((block) => this.#push(block));
    if (this.#idleTimer) clearTimeout(this.#idleTimer);
    this.#idleTimer = null;
  }

  /** Releases the ring after idleMs unless a request is under way. */
  #armIdle(): void {
    if (this.#disposed || this.#pending > 0 || !this.#untap) return;
    if (this.#idleTimer) clearTimeout(this.#idleTimer);
    this.#idleTimer = setTimeout(() => this.#release(), this.#idleMs);
    this.#idleTimer.unref?.();
  }

  #release(): void {
    this.#untap?.();
    this.#untap = null;
    if (this.#idleTimer) clearTimeout(this.#idleTimer);
    this.#idleTimer = null;
    this.#ring = new Float32Array(0);
    this.#capacity = 0;
    this.#head = 0;
    this.#filled = 0;
  }

  /** Resolves when `frames` are buffered, the wait (the samples' duration and a margin) is over, the
   * session ended, the request was cancelled or this was disposed. */
  async #waitFor(frames: number, seconds: number, signal?: AbortSignal): Promise<void> {
    const deadline = performance.now() + seconds * 1000 + WAIT_MARGIN_MS;
    while (this.#filled < frames && !this.#disposed && !this.#session.ended) {
      if (signal?.aborted) throw new PhasorError('cancelled', 'the measurement was cancelled');
      const left = deadline - performance.now();
      if (left <= 0) return;
      await new Promise<void>((resolve) => {
        const wake = (): void => {
          clearTimeout(timer);
          this.#waiters.delete(wake);
          resolve();
        };
        // woken by a block, or now and then to see the session end
        const timer = setTimeout(wake, Math.min(left, 100));
        this.#waiters.add(wake);
      });
    }
  }

  /** A copy of the newest `frames` frames, oldest first. */
  #newest(frames: number): Float32Array {
    const w = this.#w;
    const out = new Float32Array(frames * w);
    const first = (this.#head - frames + this.#capacity) % this.#capacity;
    const tail = Math.min(frames, this.#capacity - first);
    out.set(this.#ring.subarray(first * w, (first + tail) * w), 0);
    if (tail < frames) out.set(this.#ring.subarray(0, (frames - tail) * w), tail * w);
    return out;
  }

  /** Copies the analysed channel of a block into the ring (its newest `capacity` frames at most). */
  #push(block: LiveBlock): void {
    const cap = this.#capacity;
    if (cap === 0) return;
    const f = block.format;
    const centre = f.complex ? f.centerFrequency : undefined;
    if (centre !== this.#centre) {
      this.#centre = centre;
      this.#filled = 0;
    }
    const w = this.#w;
    const ring = this.#ring;
    const n = block.frames;
    const skip = Math.max(0, n - cap);
    const data = block.data;
    if (data instanceof Float32Array && f.channels === 1) {
      // one channel of floats: at most two copies
      let i = skip;
      while (i < n) {
        const count = Math.min(n - i, cap - this.#head);
        ring.set(data.subarray(i * w, (i + count) * w), this.#head * w);
        this.#head = (this.#head + count) % cap;
        i += count;
      }
    } else {
      const stride = f.channels * w;
      const src = data instanceof Float32Array ? data : data.data;
      const offset = data instanceof Float32Array ? 0 : data.offset;
      const scale = data instanceof Float32Array ? 1 : data.scale;
      let slot = this.#head * w;
      for (let i = skip, j = skip * stride + this.#channel * w; i < n; i++, j += stride) {
        ring[slot] = (src[j] - offset) * scale;
        if (w === 2) ring[slot + 1] = (src[j + 1] - offset) * scale;
        slot += w;
        if (slot === ring.length) slot = 0;
      }
      this.#head = slot / w;
    }
    this.#filled = Math.min(cap, this.#filled + n - skip);
    this.#end = block.start + n;
    for (const wake of this.#waiters) wake();
  }
}
