// Streaming spectrogram of the WebGPU backend: the frame cursor and level normalisation of ../stream.ts on
// the JavaScript thread; the kept samples, the window, averages and peaks on the device. Raw integers are
// decoded on the GPU into the kept samples. Each push then runs, for a power-of-two transform that fits
// one workgroup (n/2 points for real input, n for complex), one fused kernel: the `spectrum` entry point
// of shaders/fft_pow2.wgsl reads each frame from the kept samples, windows it in its load, transforms it
// and stores the levels of its display columns (the real input's post-process, power, column max and
// dBFS in workgroup memory). Other sizes run the passes of shaders/spectrogram.wgsl around the FFT
// planner's transforms: windowed frames → FFT (rfft for real input) → levels. Both end with fold (average
// and peak hold, frame by frame in order, so results do not depend on how the stream was split).

import { validateSpectrogramConfig } from '../validate.js';
import { columnBins } from '../../protocol/shape.js';
import type { ProcessorInput, SpectrogramConfig, SpectrogramProcessor, SpectrogramRows } from '../backend.js';
import { FrameCursor, channelSamples, levelNorm, outputArray, spectrogramSettings } from '../stream.js';
import type { ComplexPlan, FftJob, RealPlan } from './fft.js';
import { grid, STORAGE_USAGE, unitCircle, uploadTable } from './gpu.js';
import {
  DeviceWindow,
  PROCESSOR_CHUNK_BYTES,
  WebGpuProcessor,
  inFlight,
  type DeviceInput,
  type DeviceRead,
  type WebGpuDevice,
} from './processor.js';

export class WebGpuSpectrogram extends WebGpuProcessor implements SpectrogramProcessor {
  readonly bins: number;
  readonly width: number;
  private readonly n: number;
  private readonly hop: number;
  private readonly complex: boolean;
  private readonly floorDb: number;
  private readonly norm: number;
  private readonly normEdge: number;
  private readonly alpha: number | undefined;
  private readonly peakHold: boolean;
  private readonly cursor: FrameCursor;
  private readonly window: DeviceWindow;
  private readonly plan: ComplexPlan | null;
  private readonly realPlan: RealPlan | null;
  /** The window function and the display columns' first bins (width + 1 edges). */
  private readonly win: GPUBuffer;
  private readonly edges: GPUBuffer;
  /** The fused kernel's points per transform (n/2 for real input, n for complex), 0 when not fused. */
  private readonly fusedL: number;
  /** Real input, fused: (cos, sin)(2π·k/n) for k ≤ n/2. */
  private readonly realTw: GPUBuffer | null;
  /** Average (linear power) and peak (dB) per column, carried across pushes. */
  private readonly state: GPUBuffer;
  private average: Float32Array | null = null;
  private peak: Float32Array | null = null;

  constructor(device: WebGpuDevice, config: SpectrogramConfig) {
    super(device, 'spectrogram');
    validateSpectrogramConfig(config);
    const settings = spectrogramSettings(config);
    this.n = config.fft;
    this.hop = config.hop;
    this.complex = config.complex;
    this.bins = settings.bins;
    this.width = settings.width;
    this.floorDb = settings.floorDb;
    this.peakHold = settings.peakHold;
    this.alpha = config.averaging;
    ({ norm: this.norm, normEdge: this.normEdge } = levelNorm(config.window, config.complex));
    this.cursor = new FrameCursor(this.n, this.hop);
    const fft = device.fftPlanner;
    const L = this.complex ? this.n : this.n / 2;
    this.fusedL = Number.isInteger(L) && L >= 8 && L <= fft.onePassMax && (L & (L - 1)) === 0 ? L : 0;
    this.plan = this.complex && !this.fusedL ? fft.plan(this.n) : null;
    this.realPlan = this.complex || this.fusedL ? null : fft.realPlan(this.n);
    this.realTw =
      this.fusedL && !this.complex
        ? uploadTable(device.ctx, unitCircle(this.n, L + 1), 'spectrogram real twiddles')
        : null;
    const edges = new Uint32Array(this.width + 1);
    for (let c = 0; c < this.width; c++) [edges[c], edges[c + 1]] = columnBins(c, this.bins, this.width);
    this.win = uploadTable(device.ctx, Float32Array.from(config.window), 'spectrogram window');
    this.edges = uploadTable(device.ctx, new Float32Array(edges.buffer), 'spectrogram columns');
    this.state = device.ctx.device.createBuffer({
      label: 'spectrogram state',
      size: Math.max(16, 8 * this.width),
      usage: STORAGE_USAGE,
    });
    this.window = new DeviceWindow(device, 'spectrogram');
  }

  push(samples: ProcessorInput, into?: Float32Array): Promise<SpectrogramRows> {
    let x: DeviceInput;
    let fresh: number;
    try {
      x = this.input(samples);
      fresh = channelSamples('spectrogram', x.length, this.complex);
    } catch (err) {
      return Promise.reject(err);
    }
    const vps = this.complex ? 2 : 1;
    const count = this.cursor.push(fresh);
    const { skip, first, drop } = this.cursor;
    return this.device.call(() => this.run(x, skip * vps, count, first, drop * vps, into));
  }

  /** Appends x from value `skip`, computes `count` frames, drops `drop` values. The frames go in pieces,
   * two in flight, each appending the input its frames need; the rows are read straight into the result
   * (`into` when it is large enough). */
  private async run(
    x: DeviceInput,
    skip: number,
    count: number,
    first: number,
    drop: number,
    into?: Float32Array,
  ): Promise<SpectrogramRows> {
    const { n, hop, width, bins, device } = this;
    const vps = this.complex ? 2 : 1;
    const rows = outputArray(count * width, into);
    const fold = this.alpha !== undefined || this.peakHold;
    // a piece's rows, within the device memory a submit takes: the fused kernel keeps only rows (and
    // linear rows) per frame, the passes frames and spectra too
    const scratch = this.fusedL
      ? 0
      : 8 * Math.max(n + (this.plan?.scratchPerRow ?? this.realPlan!.scratchPerRow), bins);
    const most = Math.max(
      1,
      Math.min(
        Math.floor(device.ctx.processorPieceBytes / (4 * width)),
        scratch > 0 ? Math.floor(PROCESSOR_CHUNK_BYTES / scratch) : Infinity,
      ),
    );
    // pieces of equal size, so no pass runs a handful of frames
    const chunk = Math.max(1, Math.ceil(count / Math.max(1, Math.ceil(count / most))));
    const pieces = Math.max(1, Math.ceil(count / chunk));
    const w = device.work;
    const out = w.get(2, Math.max(16, (Math.min(chunk, count) + 2) * width * 4));
    const lin = w.get(3, Math.max(16, Math.min(chunk, count) * width * 4));
    // the fold's average and peak after the last piece
    const tail = fold && count > 0 ? new Float32Array(2 * width) : null;
    const kept = this.window.kept;
    let appended = skip;
    await inFlight(pieces, (i) => {
      const f0 = i * chunk;
      const c = Math.min(chunk, count - f0);
      const last = i === pieces - 1;
      // input values up to the end of frame f0 + c − 1 (window value ((f0 + c − 1)·hop + n)·vps)
      const need = last
        ? x.length
        : Math.min(x.length, Math.max(appended, skip + ((f0 + c - 1) * hop + n) * vps - kept));
      if (fold && c > 0 && first + f0 === 0) {
        const init = new Float32Array(2 * width);
        init.fill(-Infinity, width);
        device.ctx.device.queue.writeBuffer(this.state, 0, init.buffer, 0, init.byteLength);
      }
      const reads: DeviceRead[] = [{ at: 0, out: rows.subarray(f0 * width, (f0 + c) * width) }];
      if (last && tail !== null) reads.push({ at: c * width, out: tail });
      return device.submitRead(
        (r) => {
          if (i === 0 || need > appended) this.window.append(r, x, appended, need);
          appended = need;
          if (c > 0) {
            const src = this.window.buffer;
            r.compute((job) => {
              const params = (total: number, inBase = 0, firstFlag = 0) => [
                n,
                hop,
                c,
                bins,
                width,
                this.complex ? 1 : 0,
                total,
                firstFlag,
                inBase,
              ];
              const floats = [this.norm, this.normEdge, this.floorDb, this.alpha ?? 1];
              if (this.fusedL) this.encodeFused(job, src, f0, c, out, lin, fold);
              else this.encodePasses(job, src, f0, c, out, lin, params, floats);
              if (fold) {
                const firstFlag = first + f0 === 0 ? 1 : 0;
                device.fftPlanner.elementwiseDispatch(
                  job,
                  'spectrogram',
                  'fold',
                  width,
                  params(width, 0, firstFlag),
                  3,
                  floats,
                  {
                    4: out,
                    5: lin,
                    6: this.state,
                  },
                  8,
                );
              }
            });
          }
          if (last) this.window.keep(r, drop);
        },
        out,
        reads,
      );
    });
    if (tail !== null) {
      if (this.alpha !== undefined) this.average = tail.slice(0, width);
      if (this.peakHold) this.peak = tail.slice(width);
    }
    const res: SpectrogramRows = { rows, count, width, firstFrame: first };
    if (this.alpha !== undefined)
      res.average = this.average?.slice() ?? new Float32Array(width).fill(this.floorDb);
    if (this.peakHold) res.peak = this.peak?.slice() ?? new Float32Array(width).fill(this.floorDb);
    return res;
  }

  /** Frames f0 … f0 + c − 1 of the window through the fused kernel: rows into `out`, linear power into
   * `lin` when `keepLin`. */
  private encodeFused(
    job: FftJob,
    src: GPUBuffer,
    f0: number,
    c: number,
    out: GPUBuffer,
    lin: GPUBuffer,
    keepLin: boolean,
  ): void {
    const fft = this.device.fftPlanner;
    const L = this.fusedL;
    const { pipeline, layout, cols } = fft.spectrumPipeline(L, !this.complex);
    const g = grid(Math.ceil(c / cols), this.device.ctx.limits.workgroupsPerDimension);
    const uniforms = job.arena.slot(
      [c, g.x, f0 * this.hop, this.hop, this.width, keepLin ? 1 : 0, this.width === this.bins ? 1 : 0],
      [this.norm, this.normEdge, this.floorDb],
    );
    const tw = fft.twiddleTable(L);
    const bindGroup = this.device.ctx.device.createBindGroup({
      layout,
      entries: [
        { binding: 0, resource: { buffer: src } },
        { binding: 2, resource: { buffer: tw } },
        { binding: 3, resource: { buffer: this.realTw ?? tw } },
        { binding: 5, resource: { buffer: src } },
        { binding: 6, resource: { buffer: out } },
        { binding: 7, resource: { buffer: lin } },
        { binding: 8, resource: { buffer: this.win } },
        { binding: 9, resource: { buffer: this.edges } },
        { binding: 10, resource: uniforms },
      ],
    });
    job.pass.setPipeline(pipeline);
    job.pass.setBindGroup(0, bindGroup);
    job.pass.dispatchWorkgroups(g.x, g.y);
  }

  /** The same frames as separate passes: windowed frames, the planner's FFT, levels. */
  private encodePasses(
    job: FftJob,
    src: GPUBuffer,
    f0: number,
    c: number,
    out: GPUBuffer,
    lin: GPUBuffer,
    params: (total: number, inBase?: number) => number[],
    floats: number[],
  ): void {
    const { n, hop, width, bins, device } = this;
    const vps = this.complex ? 2 : 1;
    const planner = device.fftPlanner;
    const frames = device.work.get(0, Math.max(16, c * n * 4 * vps));
    const spec = device.work.get(1, Math.max(16, c * bins * 8));
    planner.elementwiseDispatch(
      job,
      'spectrogram',
      'windowed',
      c * n,
      params(c * n, f0 * hop * vps),
      3,
      floats,
      {
        0: src,
        1: this.win,
        2: frames,
      },
      8,
    );
    if (this.plan) this.plan.encode(job, frames, 0, spec, 0, c, false);
    else this.realPlan!.forward(job, frames, 0, spec, 0, c);
    planner.elementwiseDispatch(
      job,
      'spectrogram',
      'levels',
      c * width,
      params(c * width),
      3,
      floats,
      {
        3: spec,
        4: out,
        5: lin,
        7: this.edges,
      },
      8,
    );
  }

  reset(): void {
    this.cursor.reset();
    this.later(() => {
      this.window.reset();
      this.average = null;
      this.peak = null;
    });
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.later(() => {
      this.window.destroy();
      this.win.destroy();
      this.edges.destroy();
      this.realTw?.destroy();
      this.state.destroy();
    });
  }
}
