// The WebGPU FFT planner: plans cached by size, plan once, encode many times, dispose.
//
//   const fft = new WebGpuFft(ctx);
//   const plan = fft.plan(n);                 // complex, any n ≥ 1
//   plan.encode(job, src, inBase, dst, outBase, rows, inverse);   // rows transforms, complex units
//   const real = fft.realPlan(n);             // numpy.fft.rfft / irfft
//   fft.dispose();
//
// Sizes: powers of two up to `onePassMax` (as many vec2<f32> as fit the adapter's workgroup memory, with
// one thread per 8 points: 4096 at 48 KiB and 1024 invocations, 2048 on SwiftShader's 256) in one pass of
// shaders/fft_pow2.wgsl; above it, up to `roundsMax` (8 points a thread: 8192 with 1024 invocations), still
// one pass, the points in registers and each exchange between stages through workgroup memory in rounds
// of what fits (8192 as 2 rounds of 4096), so global memory is read and written once; larger powers of
// two up to onePassMax² (and those sizes too with `rounds: false`) as a four-step FFT of two passes of the
// same kernel (strided columns with the twiddles folded into their stores, then contiguous rows stored
// transposed); every other n by Bluestein (shaders/bluestein.wgsl)
// over a power-of-two plan, unless n = 2^a·3^b·5^c·7^d has a mixed-radix plan (mixed.ts,
// shaders/fft_mixed.wgsl: one pass in workgroup memory, a four-step of two passes above).
// With the `radix16` option (on by default), plan(n) runs 1024 to 4096 (RADIX16_SIZES, or the option's
// radix16Sizes) with the kernel's entry point
// `main16` instead: 16 points a thread, radix-16 stages, one exchange through workgroup memory fewer (also
// on adapters whose invocations stop the 8-point kernel at 2048); of the fused kernels only the FIR's
// 4096-point segments take it (`convolve16`, CONVOLVE16_FROM), the others and the four-step passes keep
// the 8-point kernel.
// Twiddles, chirps and Bluestein's filter come from float64 tables uploaded once per plan.

import { InvalidArgumentError } from '../../errors.js';
import { getFftPlan } from '../../fft/index.js';
import type { WebGpuContext } from './device.js';
import {
  encodeTransformPass,
  grid,
  ScratchBuffers,
  transformLayout,
  UniformArena,
  unitCircle,
  uploadTable,
} from './gpu.js';
import { MixedRadix } from './mixed.js';
import { shaderSource, variant, type ShaderConstants, type ShaderFamily } from './shaders.js';

/** Everything one submit needs: the encoder and its compute pass, the uniform slots, the scratch space. */
export interface FftJob {
  pass: GPUComputePassEncoder;
  arena: UniformArena;
}

export interface ComplexPlan {
  readonly n: number;
  readonly method:
    | 'one-pass'
    | 'one-pass-rounds'
    | 'one-pass-radix16'
    | 'four-step'
    | 'bluestein'
    | 'mixed'
    | 'mixed-four-step';
  /** Complex points of scratch space per transform (beyond input and output). */
  readonly scratchPerRow: number;
  /** Uniform slots one encode takes. */
  readonly dispatches: number;
  /** Encodes `rows` transforms of src[inBase + r·n …] into dst[outBase + r·n …] (complex units).
   * Scratch slots from `slot` up are used. The inverse is scaled by 1/n unless `scale` says otherwise. */
  encode(
    job: FftJob,
    src: GPUBuffer,
    inBase: number,
    dst: GPUBuffer,
    outBase: number,
    rows: number,
    inverse: boolean,
    slot?: number,
    scale?: number,
  ): void;
  describe(): string;
}

export interface RealPlan {
  readonly n: number;
  readonly bins: number;
  readonly scratchPerRow: number;
  readonly dispatches: number;
  /** rows × n reals at src[inBase…] (floats) → rows × bins complex at dst[outBase…] (complex units). */
  forward(job: FftJob, src: GPUBuffer, inBase: number, dst: GPUBuffer, outBase: number, rows: number): void;
  /** rows × bins complex (complex units) → rows × n reals (floats), scaled by 1/n. */
  inverse(job: FftJob, src: GPUBuffer, inBase: number, dst: GPUBuffer, outBase: number, rows: number): void;
}

const ELEMENTWISE_THREADS = 256;
/** Points a workgroup aims to hold: one-pass transforms of the 8-point kernel (and the fused kernels built
 * on it), of the radix-16 kernel, and four-step passes (these at least 4 transforms, so strided loads and
 * transposed stores touch 32-byte runs). Fewer points a workgroup is less workgroup memory, so more
 * workgroups fit a multiprocessor while others wait at their barriers. Swept on the lent H100 at held
 * clocks (bench/webgpu/fft.ts --sweep, two rounds alike, kernel ms before → after): 512 points 0.127 →
 * 0.114 (one pass, 512 instead of 1024 a workgroup), 1024 0.133 → 0.128 (radix 16, 1024 instead of 2048),
 * 16384 0.301 → 0.263, 32768 0.292 → 0.260, 65536 0.300 → 0.278 (four-step, 1024 instead of 2048); 512
 * for the four-step, or 256 for the one pass, were no faster. */
export interface GroupPoints {
  onePass: number;
  radix16: number;
  fourStep: number;
}
export const GROUP_POINTS: Readonly<GroupPoints> = { onePass: 512, radix16: 1024, fourStep: 1024 };

interface Pow2Variant {
  L: number;
  cols: number;
  /** Rounds of each exchange through workgroup memory (shaders/fft_pow2.wgsl `ROUNDS`); 1 when absent. */
  rounds?: number;
  inverse: boolean;
  outer: boolean;
  loadColsFast: boolean;
  storeColsFast: boolean;
  /** Entry point `main16` (16 points a thread, radix-16 stages; contiguous batches only), and whether its
   * workgroup memory skips a word every FIRST16 (shaders/fft_pow2.wgsl `PAD16`). */
  radix16?: { pad: boolean };
}

function log2(n: number): number {
  return 31 - Math.clz32(n);
}

function isPow2(n: number): boolean {
  return n > 0 && (n & (n - 1)) === 0;
}

/** Whether a planner runs the sizes between onePassMax and roundsMax in one pass in rounds (else as a
 * four-step) unless its options say otherwise: the one switch to flip if the four-step times better
 * (bench/webgpu/fft.ts --compare-rounds times both). */
export const ROUNDS_BY_DEFAULT = true;

/** Whether a planner runs RADIX16_SIZES with the radix-16 kernel unless its options say otherwise
 * (bench/webgpu/fft.ts --compare-radix16 times both). On the lent H100 at held clocks (two rounds alike):
 * 1024 points 0.134 ms against 0.143, 2048 0.146 against 0.150, 4096 padded 0.171 against 0.188. */
export const RADIX16_BY_DEFAULT = true;

/** The powers of two the radix-16 kernel serves unless the options say otherwise (one pass, 16 points a
 * thread: it can do 16 up to 4096 where the adapter's threads and workgroup memory allow). */
export const RADIX16_SIZES: Readonly<Radix16Sizes> = { min: 1024, max: 4096 };

/** With the default choice (`true`), the radix-16 kernel skips words in workgroup memory from this size:
 * 4096 points ran 0.171 ms padded against 0.181 plain, where 1024 and 2048 ran slower padded (0.159
 * against 0.134, 0.154 against 0.146). */
export const RADIX16_PADDED_FROM = 4096;

/** The FIR's fused kernel takes 16 points a thread (`convolve16`) for one-pass segments from this size:
 * on the lent H100 at held clocks, 4096-point segments (1024 taps) ran 0.246 ms against 0.263 (real) and
 * 0.478 against 0.525 (complex), while 2048-point ones (255 taps) ran slower, 0.201 against 0.182 and
 * 0.391 against 0.360 (two rounds alike). */
export const CONVOLVE16_FROM = 4096;

export interface Radix16Sizes {
  min: number;
  max: number;
}

/** Which one-pass kernel the planner uses for RADIX16_SIZES: `main` (false: 8 points a thread), or
 * `main16` (16 points a thread) with its workgroup memory plain ('plain'), padded where that fits
 * ('padded'), or padded from RADIX16_PADDED_FROM (true: what measured fastest). */
export type Radix16Choice = false | true | 'plain' | 'padded';

export interface WebGpuFftOptions {
  /** Complex points of workgroup memory the power-of-two kernels may use, when below the adapter's: a
   * test hook, so an adapter with few invocations (SwiftShader's 256) plans sizes in rounds too. */
  storagePoints?: number;
  /** Powers of two above onePassMax up to roundsMax in one pass in rounds (true), or as a four-step
   * (false); ROUNDS_BY_DEFAULT when absent. useRounds changes it later. */
  rounds?: boolean;
  /** Batched complex FFTs of RADIX16_SIZES with the radix-16 kernel (see Radix16Choice), else the
   * default kernel; RADIX16_BY_DEFAULT when absent. plan(n) takes it, and the FIR's fused kernel from
   * convolve16From; the other fused kernels and the four-step passes keep the default kernel.
   * useRadix16 changes it later. */
  radix16?: Radix16Choice;
  /** The sizes `radix16` applies to (within 16…4096); RADIX16_SIZES when absent. */
  radix16Sizes?: Radix16Sizes;
  /** The smallest segment the FIR's fused kernel runs with 16 points a thread (where `radix16` serves
   * it); CONVOLVE16_FROM when absent. useConvolve16From changes it later. */
  convolve16From?: number;
  /** Points a workgroup aims to hold (see GroupPoints); GROUP_POINTS for what is not given. */
  groupPoints?: Partial<GroupPoints>;
}

export class WebGpuFft {
  /** Complex points of workgroup memory a pass may use (the adapter's, or less by the options). */
  readonly storagePoints: number;
  /** The largest power of two one workgroup transforms in its memory. */
  readonly onePassMax: number;
  /** The largest power of two one pass transforms with its exchanges in rounds (onePassMax if none). */
  readonly roundsMax: number;
  /** Points one round holds: the largest power of two within storagePoints. */
  readonly roundPoints: number;
  private rounds: boolean;
  private radix16: Radix16Choice;
  private radix16Sizes: Radix16Sizes;
  private convolve16From: number;
  readonly groupPoints: Readonly<GroupPoints>;
  readonly arena: UniformArena;
  readonly scratch: ScratchBuffers;
  private readonly modules = new Map<string, GPUShaderModule>();
  private readonly pipelines = new Map<string, GPUComputePipeline>();
  private readonly twiddles = new Map<number, GPUBuffer>();
  private readonly plans = new Map<number, ComplexPlan>();
  private readonly realPlans = new Map<number, RealPlan>();
  private readonly pow2Layout: GPUBindGroupLayout;
  private readonly pow2PipelineLayout: GPUPipelineLayout;
  private readonly fusedLayouts = new Map<string, GPUBindGroupLayout>();
  private readonly owned: GPUBuffer[] = [];
  /** Plans for 7-smooth sizes that are not powers of two. */
  readonly mixed: MixedRadix;

  constructor(
    readonly ctx: WebGpuContext,
    options: WebGpuFftOptions = {},
  ) {
    const given = options.storagePoints;
    if (given !== undefined && !(Number.isInteger(given) && given >= 64)) {
      throw new InvalidArgumentError(`fft: storagePoints must be an integer ≥ 64 (got ${given})`);
    }
    this.storagePoints = Math.min(Math.floor(ctx.limits.workgroupStorage / 8), given ?? Infinity);
    this.rounds = options.rounds ?? ROUNDS_BY_DEFAULT;
    this.radix16 = options.radix16 ?? RADIX16_BY_DEFAULT;
    this.radix16Sizes = { ...(options.radix16Sizes ?? RADIX16_SIZES) };
    this.convolve16From = options.convolve16From ?? CONVOLVE16_FROM;
    this.groupPoints = { ...GROUP_POINTS, ...options.groupPoints };
    // a transform of L points takes L·8 bytes of workgroup memory and L/8 threads
    const threads = this.maxThreads;
    let span = 1;
    while (span * 2 <= this.storagePoints) span *= 2;
    this.roundPoints = span;
    let cap = 1;
    while (cap * 2 <= span && (cap * 2) / 8 <= threads) cap *= 2;
    this.onePassMax = cap;
    // in rounds: 8 points a thread, at most 8 rounds (a thread reads at least one register a round)
    let most = cap;
    while (cap === span && most * 2 <= 8 * span && (most * 2) / 8 <= threads) most *= 2;
    this.roundsMax = most;
    this.arena = new UniformArena(ctx.device);
    this.scratch = new ScratchBuffers(ctx.device);
    const pow2 = transformLayout(ctx.device, 'fft_pow2');
    this.pow2Layout = pow2.layout;
    this.pow2PipelineLayout = pow2.pipelineLayout;
    this.mixed = new MixedRadix(this);
  }

  /** The largest n a complex plan accepts. */
  get maxSize(): number {
    return this.onePassMax * this.onePassMax;
  }

  plan(n: number): ComplexPlan {
    let p = this.plans.get(n);
    if (!p) {
      if (!Number.isInteger(n) || n < 1)
        throw new InvalidArgumentError(`fft: n must be an integer ≥ 1 (got ${n})`);
      if (isPow2(n)) {
        if (n > this.maxSize) {
          throw new InvalidArgumentError(
            `fft: n = ${n} is above the largest WebGPU transform on this adapter (${this.maxSize})`,
          );
        }
        if (this.radix16Serves(n)) p = new OnePassPlan(this, n, 1, this.radix16Pad(n));
        else if (n <= this.onePassMax) p = new OnePassPlan(this, n);
        else if (this.rounds && n <= this.roundsMax) p = new OnePassPlan(this, n, n / this.roundPoints);
        else p = new FourStepPlan(this, n);
      } else {
        p = this.mixed.plan(n);
      }
      if (!p) {
        if (2 * n - 1 > this.maxSize) {
          throw new InvalidArgumentError(
            `fft: n = ${n} needs a Bluestein transform above the largest on this adapter (${this.maxSize})`,
          );
        }
        p = new BluesteinPlan(this, n);
      }
      this.plans.set(n, p);
    }
    return p;
  }

  /** Whether sizes above onePassMax up to roundsMax run in one pass in rounds (else as a four-step); a
   * change drops the cached plans, so a benchmark can time both plans of one size in one run. */
  useRounds(on: boolean): void {
    if (on === this.rounds) return;
    this.rounds = on;
    this.plans.clear();
    this.realPlans.clear();
  }

  /** Which kernel plan(n) uses, and for which sizes (see the options; the sizes stay when not given); a
   * change drops the cached plans. */
  useRadix16(choice: Radix16Choice, sizes: Radix16Sizes = this.radix16Sizes): void {
    const same = sizes.min === this.radix16Sizes.min && sizes.max === this.radix16Sizes.max;
    if (choice === this.radix16 && same) return;
    this.radix16 = choice;
    this.radix16Sizes = { ...sizes };
    this.plans.clear();
    this.realPlans.clear();
  }

  /** Whether the radix-16 kernel can transform n points in one pass here (16 ≤ n ≤ 4096, n/16 threads,
   * n points of workgroup memory), whatever sizes the planner gives it. */
  radix16Fits(n: number): boolean {
    return isPow2(n) && n >= 16 && n <= 4096 && n / 16 <= this.maxThreads && n <= this.storagePoints;
  }

  /** Whether plan(n) takes the radix-16 kernel. */
  private radix16Serves(n: number): boolean {
    const { min, max } = this.radix16Sizes;
    return this.radix16 !== false && n >= min && n <= max && this.radix16Fits(n);
  }

  /** The radix-16 kernel's variant for n: padded when asked for and the skipped words fit. */
  private radix16Pad(n: number): { pad: boolean } {
    const asked = this.radix16 === 'padded' || (this.radix16 === true && n >= RADIX16_PADDED_FROM);
    return { pad: asked && n + radix16Skipped(n) <= this.storagePoints };
  }

  realPlan(n: number): RealPlan {
    let p = this.realPlans.get(n);
    if (!p) {
      if (!Number.isInteger(n) || n < 1)
        throw new InvalidArgumentError(`rfft: n must be an integer ≥ 1 (got ${n})`);
      p = n % 2 === 0 ? new EvenRealPlan(this, n) : new OddRealPlan(this, n);
      this.realPlans.set(n, p);
    }
    return p;
  }

  /** A buffer owned until dispose (plan tables). */
  table(data: Float32Array, label: string): GPUBuffer {
    const b = uploadTable(this.ctx, data, label);
    this.owned.push(b);
    return b;
  }

  /** (cos, sin)(2π·m/L) for m < L, shared by every pass of L points. */
  twiddleTable(L: number): GPUBuffer {
    let b = this.twiddles.get(L);
    if (!b) {
      b = this.table(unitCircle(L, L), `twiddles ${L}`);
      this.twiddles.set(L, b);
    }
    return b;
  }

  private module(family: ShaderFamily, constants: ShaderConstants): GPUShaderModule {
    const key = `${family} ${JSON.stringify(constants)}`;
    let m = this.modules.get(key);
    if (!m) {
      m = this.ctx.device.createShaderModule({ label: key, code: variant(shaderSource(family), constants) });
      this.modules.set(key, m);
    }
    return m;
  }

  /** The most threads a workgroup of the pow2 kernel may have. */
  get maxThreads(): number {
    return Math.min(1024, this.ctx.limits.invocations, this.ctx.limits.workgroupSizeX);
  }

  /** The one-pass kernel for a variant (pipelines cached by their constants). */
  pow2Pipeline(v: Pow2Variant): { pipeline: GPUComputePipeline; threads: number; pointsPerGroup: number } {
    const { constants, threads, points } = this.pow2Constants(v);
    const entryPoint = v.radix16 ? 'main16' : 'main';
    const key = `fft_pow2.${entryPoint} ${JSON.stringify(constants)}`;
    let pipeline = this.pipelines.get(key);
    if (!pipeline) {
      pipeline = this.ctx.device.createComputePipeline({
        label: key,
        layout: this.pow2PipelineLayout,
        compute: { module: this.module('fft_pow2', constants), entryPoint },
      });
      this.pipelines.set(key, pipeline);
    }
    return { pipeline, threads, pointsPerGroup: points };
  }

  /**
   * The spectrogram's fused kernel (entry point `spectrum` of shaders/fft_pow2.wgsl) for frames of L
   * complex points (a real frame of 2L samples when `realInput`), L from 8 to onePassMax: its pipeline,
   * bind group layout (bindings 0, 2, 3, 5…10 as the kernel declares them) and frames per workgroup.
   */
  spectrumPipeline(
    L: number,
    realInput: boolean,
  ): { pipeline: GPUComputePipeline; layout: GPUBindGroupLayout; cols: number } {
    // HOIST off: its twiddles loaded before each barrier made it slower (4096 real points 0.378 → 0.395 ms)
    return this.fusedPipeline('spectrum', L, { REAL_INPUT: realInput, HOIST: false }, [
      [0, 'read-only-storage'],
      [2, 'read-only-storage'],
      [3, 'read-only-storage'],
      [5, 'read-only-storage'],
      [6, 'storage'],
      [7, 'storage'],
      [8, 'read-only-storage'],
      [9, 'read-only-storage'],
      [10, 'uniform'],
    ]);
  }

  /** The radix-16 variant the FIR's fused kernel takes for segments of one pass of L points
   * (`convolve16` from convolve16From, padded or not as plan(L) would be), or undefined (`convolve`: 8
   * points a thread). A processor asks once and keeps the answer, so its outputs do not change with the
   * planner's options mid-stream. */
  convolveRadix16(L: number): { pad: boolean } | undefined {
    return L >= this.convolve16From && this.radix16Serves(L) ? this.radix16Pad(L) : undefined;
  }

  /** Sets the smallest segment of `convolve16` (see CONVOLVE16_FROM) for the processors made after. */
  useConvolve16From(n: number): void {
    this.convolve16From = n;
  }

  /**
   * The fused overlap-save kernel (entry point `convolve` of shaders/fft_pow2.wgsl) for segments of L
   * points (2L when `split`), L from 8 to onePassMax: its pipeline, bind group layout (bindings 2, 3, 5,
   * 11, 12 as the kernel declares them) and rows per workgroup; `score`: the correlator's variant;
   * `radix16` (one-pass segments of the FIR only, see convolveRadix16): `convolve16`.
   */
  convolvePipeline(
    L: number,
    split: boolean,
    score = false,
    radix16?: { pad: boolean },
  ): { pipeline: GPUComputePipeline; layout: GPUBindGroupLayout; cols: number } {
    if (radix16 && (split || score || !this.radix16Fits(L))) {
      throw new Error('fft_pow2: convolve16 takes one-pass segments of the FIR only');
    }
    // the FIR's variant compiles the correlator's score store out (SCORE); split segments run without
    // HOIST (the complex FIR with 2048 and 4096 taps: 0.657 → 0.707 and 0.935 → 0.955 ms with it)
    return this.fusedPipeline(
      radix16 ? 'convolve16' : 'convolve',
      L,
      { SPLIT: split, SCORE: score, HOIST: !split },
      [
        [2, 'read-only-storage'],
        [3, 'read-only-storage'],
        [5, 'read-only-storage'],
        [11, 'storage'],
        [12, 'uniform'],
      ],
      radix16,
    );
  }

  /** The pipeline of a fused entry point of shaders/fft_pow2.wgsl around the forward stages of L points
   * (pipelines cached by their constants, one bind group layout an entry point). */
  private fusedPipeline(
    entryPoint: string,
    L: number,
    extra: ShaderConstants,
    bindings: [number, GPUBufferBindingType][],
    radix16?: { pad: boolean },
  ): { pipeline: GPUComputePipeline; layout: GPUBindGroupLayout; cols: number } {
    const cols = radix16 ? radix16Cols(this, L, radix16.pad) : colsFor(this, L);
    const v = { L, cols, inverse: false, outer: false, loadColsFast: false, storeColsFast: false, radix16 };
    const constants = { ...this.pow2Constants(v).constants, ...extra };
    const key = `fft_pow2.${entryPoint} ${JSON.stringify(constants)}`;
    let layout = this.fusedLayouts.get(entryPoint);
    if (!layout) {
      layout = this.ctx.device.createBindGroupLayout({
        label: `fft_pow2.${entryPoint}`,
        entries: bindings.map(([binding, type]) => ({
          binding,
          visibility: 4, // GPUShaderStage.COMPUTE
          buffer: { type },
        })),
      });
      this.fusedLayouts.set(entryPoint, layout);
    }
    let pipeline = this.pipelines.get(key);
    if (!pipeline) {
      pipeline = this.ctx.device.createComputePipeline({
        label: key,
        layout: this.ctx.device.createPipelineLayout({ bindGroupLayouts: [layout] }),
        compute: { module: this.module('fft_pow2', constants), entryPoint },
      });
      this.pipelines.set(key, pipeline);
    }
    return { pipeline, layout, cols };
  }

  /** The constants of a pow2 variant, its threads and the points a workgroup holds. */
  private pow2Constants(v: Pow2Variant): { constants: ShaderConstants; threads: number; points: number } {
    const points = v.L * v.cols;
    const rounds = v.rounds ?? 1;
    if (rounds > 1 && (v.cols !== 1 || v.outer || v.loadColsFast || v.storeColsFast || v.L < 16)) {
      throw new Error('fft_pow2: rounds need one direct sequence of at least 16 points a workgroup');
    }
    const r16 = v.radix16;
    if (r16 && (v.outer || v.loadColsFast || v.storeColsFast || rounds > 1 || v.L < 16)) {
      throw new Error('fft_pow2: the radix-16 kernel needs contiguous sequences of at least 16 points');
    }
    const m = log2(v.L);
    const e = r16 ? 16 : Math.min(8, v.L);
    const first = m === 0 ? 1 : [8, 2, 4][m % 3];
    const stages = m <= 3 ? 0 : (m - log2(first)) / 3;
    // main16: L = FIRST16 · 16^STAGES16 (set for every variant, so the unused entry point stays valid)
    const first16 = m < 4 ? v.L : 1 << (m % 4 || 4);
    const stages16 = (m - log2(first16)) / 4;
    const threads = points / e;
    let pitch = v.cols > 1 ? v.L + 1 : v.L;
    if (r16) pitch = v.L + (r16.pad ? radix16Skipped(v.L) : 0);
    const constants: ShaderConstants = {
      L: v.L,
      LOG2L: m,
      COLS: v.cols,
      E: e,
      FIRST: first,
      STAGES: stages,
      // an odd pitch (in 8-byte words) keeps column-fast accesses of adjacent sequences on distinct banks
      PITCH: pitch,
      SIGN: v.inverse ? 1 : -1,
      OUTER: v.outer,
      LOAD_COLS_FAST: v.loadColsFast,
      STORE_COLS_FAST: v.storeColsFast,
      ROUNDS: rounds,
      FIRST16: first16,
      STAGES16: stages16,
      PAD16: r16 && r16.pad ? log2(first16) : 0,
      // the rounds kernel ran slower with the twiddles loaded before its barriers (8192: 0.257 → 0.265 ms)
      HOIST: rounds === 1,
    };
    return { constants, threads, points };
  }

  /** An elementwise kernel (every family but fft_pow2) with the layout its entry point uses. */
  elementwise(family: ShaderFamily, entryPoint: string): GPUComputePipeline {
    const key = `${family}.${entryPoint}`;
    let pipeline = this.pipelines.get(key);
    if (!pipeline) {
      pipeline = this.ctx.device.createComputePipeline({
        label: key,
        layout: 'auto',
        compute: { module: this.module(family, { WG: ELEMENTWISE_THREADS }), entryPoint },
      });
      this.pipelines.set(key, pipeline);
    }
    return pipeline;
  }

  /** Encodes one pass of the pow2 kernel. */
  pow2Dispatch(
    job: FftJob,
    v: Pow2Variant,
    src: GPUBuffer,
    dst: GPUBuffer,
    outer: GPUBuffer | undefined,
    a: {
      count: number;
      period: number;
      block: number;
      inBase: number;
      inA: number;
      inB: number;
      outBase: number;
      outA: number;
      outB: number;
      outerShift: number;
      outerMask: number;
      scale: number;
    },
  ): void {
    const { pipeline } = this.pow2Pipeline(v);
    const groups = Math.ceil(a.count / v.cols);
    const g = grid(groups, this.ctx.limits.workgroupsPerDimension);
    const uniforms = job.arena.slot(
      [
        a.count,
        a.period,
        a.block,
        g.x,
        a.inBase,
        a.inA,
        a.inB,
        a.outBase,
        a.outA,
        a.outB,
        a.outerShift,
        a.outerMask,
      ],
      [a.scale],
    );
    const tw = this.twiddleTable(v.L);
    encodeTransformPass(
      job.pass,
      this.ctx.device,
      this.pow2Layout,
      pipeline,
      [src, dst, tw, outer ?? tw],
      uniforms,
      g,
    );
  }

  /** Encodes an elementwise kernel over `total` outputs; `words`/`floats` follow the kernel's Params with
   * groupsX inserted at `groupsAt`. Bindings: index → buffer. */
  elementwiseDispatch(
    job: FftJob,
    family: ShaderFamily,
    entryPoint: string,
    total: number,
    words: number[],
    groupsAt: number,
    floats: number[],
    buffers: Record<number, GPUBuffer>,
    uniformBinding: number,
  ): void {
    const pipeline = this.elementwise(family, entryPoint);
    const g = grid(Math.ceil(total / ELEMENTWISE_THREADS), this.ctx.limits.workgroupsPerDimension);
    const w = [...words];
    w.splice(groupsAt, 0, g.x);
    const entries: GPUBindGroupEntry[] = Object.entries(buffers).map(([binding, buffer]) => ({
      binding: Number(binding),
      resource: { buffer },
    }));
    entries.push({ binding: uniformBinding, resource: job.arena.slot(w, floats) });
    const bindGroup = this.ctx.device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries });
    job.pass.setPipeline(pipeline);
    job.pass.setBindGroup(0, bindGroup);
    job.pass.dispatchWorkgroups(g.x, g.y);
  }

  dispose(): void {
    for (const b of this.owned) b.destroy();
    this.owned.length = 0;
    this.twiddles.clear();
    this.plans.clear();
    this.realPlans.clear();
    this.pipelines.clear();
    this.modules.clear();
    this.mixed.dispose();
    this.scratch.destroy();
    this.arena.destroy();
  }
}

/** Words the padded radix-16 kernel skips in a sequence of L points: one every FIRST16. */
function radix16Skipped(L: number): number {
  const first16 = 1 << (log2(L) % 4 || 4);
  return L / first16;
}

/** Transforms per workgroup for a pass of L points: enough to fill about `target` points, within the
 * workgroup's memory (with the padded pitch) and threads. */
function colsFor(fft: WebGpuFft, L: number, target = fft.groupPoints.onePass): number {
  const storage = fft.storagePoints * 8;
  let cols = 1;
  const fits = (c: number) =>
    c * L <= target && c * (L + 1) * 8 <= storage && (c * L) / Math.min(8, L) <= fft.maxThreads;
  while (fits(cols * 2)) cols *= 2;
  return cols;
}

/** Transforms per workgroup of the radix-16 kernel for L points: about groupPoints.radix16 points where
 * the workgroup's memory (with its skipped words) and threads allow. */
function radix16Cols(fft: WebGpuFft, L: number, pad: boolean): number {
  const pitch = L + (pad ? radix16Skipped(L) : 0);
  let cols = 1;
  const fits = (c: number) =>
    c * L <= fft.groupPoints.radix16 && c * pitch <= fft.storagePoints && (c * L) / 16 <= fft.maxThreads;
  while (fits(cols * 2)) cols *= 2;
  return cols;
}

/** n points in one pass: every point read from global memory once and written once. With `rounds` > 1
 * (n above what workgroup memory holds) one transform a workgroup, n/8 threads of 8 points, each exchange
 * between stages through workgroup memory in that many rounds of n/rounds points. With `radix16`, the
 * kernel of 16 points a thread (shaders/fft_pow2.wgsl `main16`). */
class OnePassPlan implements ComplexPlan {
  readonly method: 'one-pass' | 'one-pass-rounds' | 'one-pass-radix16';
  readonly scratchPerRow = 0;
  readonly dispatches = 1;
  private readonly cols: number;

  constructor(
    private readonly fft: WebGpuFft,
    readonly n: number,
    readonly rounds = 1,
    readonly radix16?: { pad: boolean },
  ) {
    this.method = radix16 ? 'one-pass-radix16' : rounds > 1 ? 'one-pass-rounds' : 'one-pass';
    if (radix16) this.cols = radix16Cols(fft, n, radix16.pad);
    else this.cols = rounds > 1 ? 1 : colsFor(fft, n);
  }

  encode(
    job: FftJob,
    src: GPUBuffer,
    inBase: number,
    dst: GPUBuffer,
    outBase: number,
    rows: number,
    inverse: boolean,
    _slot = 0,
    scale = inverse ? 1 / this.n : 1,
  ): void {
    const n = this.n;
    const v = {
      L: n,
      cols: this.cols,
      rounds: this.rounds,
      inverse,
      outer: false,
      loadColsFast: false,
      storeColsFast: false,
      radix16: this.radix16,
    };
    this.fft.pow2Dispatch(job, v, src, dst, undefined, {
      count: rows,
      period: 1,
      block: n,
      inBase,
      inA: 0,
      inB: 1,
      outBase,
      outA: 0,
      outB: 1,
      outerShift: 0,
      outerMask: 0,
      scale,
    });
  }

  describe(): string {
    if (this.rounds > 1) return `one pass in ${this.rounds} rounds (${this.n / this.rounds} points a round)`;
    if (this.radix16) {
      const pad = this.radix16.pad ? ', padded' : '';
      return `one pass, radix 16 (${this.n} points, ${this.cols} a workgroup${pad})`;
    }
    return `one pass (${this.n} points, ${this.cols} a workgroup)`;
  }
}

/** n = n1·n2: n2 columns of n1 points (stride n2) with the twiddles W_n^(column·k1) folded into their
 * stores, then n1 rows of n2 points stored transposed. */
class FourStepPlan implements ComplexPlan {
  readonly method = 'four-step';
  readonly scratchPerRow: number;
  readonly dispatches = 2;
  readonly n1: number;
  readonly n2: number;
  private readonly outer: GPUBuffer;
  private readonly outerShift: number;

  constructor(
    private readonly fft: WebGpuFft,
    readonly n: number,
  ) {
    this.n1 = 1 << Math.floor(log2(n) / 2);
    this.n2 = n / this.n1;
    this.scratchPerRow = n;
    // W_n^m = fine[m & (2^s − 1)] · coarse[m >> s]: two tables of about √n entries each
    this.outerShift = Math.ceil(log2(n) / 2);
    const fine = 1 << this.outerShift;
    const table = new Float32Array(2 * (fine + n / fine));
    table.set(unitCircle(n, fine), 0);
    table.set(unitCircle(n, n / fine, fine), 2 * fine);
    this.outer = fft.table(table, `four-step twiddles ${n}`);
  }

  encode(
    job: FftJob,
    src: GPUBuffer,
    inBase: number,
    dst: GPUBuffer,
    outBase: number,
    rows: number,
    inverse: boolean,
    slot = 0,
    scale = inverse ? 1 / this.n : 1,
  ): void {
    const { n, n1, n2 } = this;
    const tmp = this.fft.scratch.get(slot, rows * n * 8);
    const group = this.fft.groupPoints.fourStep;
    const cols1 = colsFor(this.fft, n1, Math.max(group, 4 * n1));
    const cols2 = colsFor(this.fft, n2, Math.max(group, 4 * n2));
    this.fft.pow2Dispatch(
      job,
      { L: n1, cols: cols1, inverse, outer: true, loadColsFast: true, storeColsFast: true },
      src,
      tmp,
      this.outer,
      {
        count: rows * n2,
        period: n2,
        block: n,
        inBase,
        inA: 1,
        inB: n2,
        outBase: 0,
        outA: 1,
        outB: n2,
        outerShift: this.outerShift,
        outerMask: (1 << this.outerShift) - 1,
        scale: 1,
      },
    );
    this.fft.pow2Dispatch(
      job,
      { L: n2, cols: cols2, inverse, outer: false, loadColsFast: false, storeColsFast: true },
      tmp,
      dst,
      undefined,
      {
        count: rows * n1,
        period: n1,
        block: n,
        inBase: 0,
        inA: n2,
        inB: 1,
        outBase,
        outA: 1,
        outB: n1,
        outerShift: 0,
        outerMask: 0,
        scale,
      },
    );
  }

  describe(): string {
    return `four-step (${this.n1} × ${this.n2})`;
  }
}

/** Any n through power-of-two FFTs of m ≥ 2n − 1 points (see shaders/bluestein.wgsl). */
class BluesteinPlan implements ComplexPlan {
  readonly method = 'bluestein';
  readonly m: number;
  readonly scratchPerRow: number;
  readonly dispatches: number;
  private readonly inner: ComplexPlan;
  private readonly tables: { chirp: GPUBuffer; filter: GPUBuffer }[] = [];

  constructor(
    private readonly fft: WebGpuFft,
    readonly n: number,
  ) {
    let m = 1;
    while (m < 2 * n - 1) m *= 2;
    this.m = m;
    this.inner = fft.plan(m);
    this.scratchPerRow = 2 * m + this.inner.scratchPerRow;
    this.dispatches = 3 + 2 * this.inner.dispatches;
  }

  /** The chirp e^(sign·iπ·j²/n) and the filter FFT_m(conj chirp)/m, in float64, uploaded on first use. */
  private tablesFor(inverse: boolean): { chirp: GPUBuffer; filter: GPUBuffer } {
    const d = inverse ? 1 : 0;
    let t = this.tables[d];
    if (!t) {
      const { n, m } = this;
      const sign = inverse ? 1 : -1;
      const chirp = new Float64Array(2 * n);
      for (let j = 0; j < n; j++) {
        const a = (Math.PI * ((j * j) % (2 * n))) / n;
        chirp[2 * j] = Math.cos(a);
        chirp[2 * j + 1] = sign * Math.sin(a);
      }
      const b = new Float64Array(2 * m);
      for (let j = 0; j < n; j++) {
        b[2 * j] = chirp[2 * j];
        b[2 * j + 1] = -chirp[2 * j + 1];
        if (j > 0) {
          b[2 * (m - j)] = chirp[2 * j];
          b[2 * (m - j) + 1] = -chirp[2 * j + 1];
        }
      }
      const spectrum = new Float64Array(2 * m);
      getFftPlan(m).forward(b, spectrum);
      for (let i = 0; i < spectrum.length; i++) spectrum[i] /= m;
      t = {
        chirp: this.fft.table(Float32Array.from(chirp), `bluestein chirp ${n}`),
        filter: this.fft.table(Float32Array.from(spectrum), `bluestein filter ${n}`),
      };
      this.tables[d] = t;
    }
    return t;
  }

  encode(
    job: FftJob,
    src: GPUBuffer,
    inBase: number,
    dst: GPUBuffer,
    outBase: number,
    rows: number,
    inverse: boolean,
    slot = 0,
    scale = inverse ? 1 / this.n : 1,
  ): void {
    const { n, m } = this;
    const t = this.tablesFor(inverse);
    const a = this.fft.scratch.get(slot, rows * m * 8);
    const b = this.fft.scratch.get(slot + 1, rows * m * 8);
    const ew = (
      entry: string,
      total: number,
      inB: number,
      outB: number,
      s: GPUBuffer,
      d: GPUBuffer,
      table: GPUBuffer,
      sc: number,
    ) =>
      this.fft.elementwiseDispatch(
        job,
        'bluestein',
        entry,
        total,
        [n, m, total, inB, outB],
        3,
        [sc],
        { 0: s, 1: d, 2: table },
        3,
      );
    ew('pre', rows * m, inBase, 0, src, a, t.chirp, 1);
    this.inner.encode(job, a, 0, b, 0, rows, false, slot + 2);
    ew('mul', rows * m, 0, 0, b, a, t.filter, 1);
    this.inner.encode(job, a, 0, b, 0, rows, true, slot + 2, 1);
    ew('post', rows * n, 0, outBase, b, dst, t.chirp, scale);
  }

  describe(): string {
    return `bluestein (${this.m}-point ${this.inner.describe()})`;
  }
}

/** A kernel of shaders/real.wgsl over `total` outputs (Params: n, total, groupsX, inBase, outBase). */
function realKernel(
  fft: WebGpuFft,
  job: FftJob,
  entry: string,
  n: number,
  total: number,
  inBase: number,
  outBase: number,
  buffers: Record<number, GPUBuffer>,
): void {
  fft.elementwiseDispatch(job, 'real', entry, total, [n, total, inBase, outBase], 2, [], buffers, 3);
}

/** Even n: the complex FFT of n/2 points on the reals read as complex, and a post-process. */
class EvenRealPlan implements RealPlan {
  readonly bins: number;
  readonly scratchPerRow: number;
  readonly dispatches: number;
  private readonly half: ComplexPlan;
  private readonly tw: GPUBuffer;

  constructor(
    private readonly fft: WebGpuFft,
    readonly n: number,
  ) {
    const h = n / 2;
    this.bins = h + 1;
    this.half = fft.plan(h);
    this.scratchPerRow = h + this.half.scratchPerRow;
    this.dispatches = 1 + this.half.dispatches;
    this.tw = fft.table(unitCircle(n, h + 1), `real twiddles ${n}`);
  }

  forward(job: FftJob, src: GPUBuffer, inBase: number, dst: GPUBuffer, outBase: number, rows: number): void {
    const h = this.n / 2;
    const z = this.fft.scratch.get(0, rows * h * 8);
    this.half.encode(job, src, inBase / 2, z, 0, rows, false, 1);
    const total = rows * (h + 1);
    realKernel(this.fft, job, 'rfftPost', this.n, total, 0, outBase, { 0: z, 1: dst, 2: this.tw });
  }

  inverse(job: FftJob, src: GPUBuffer, inBase: number, dst: GPUBuffer, outBase: number, rows: number): void {
    const h = this.n / 2;
    const z = this.fft.scratch.get(0, rows * h * 8);
    const total = rows * h;
    realKernel(this.fft, job, 'irfftPre', this.n, total, inBase, 0, { 0: src, 1: z, 2: this.tw });
    this.half.encode(job, z, 0, dst, outBase / 2, rows, true, 1);
  }
}

/** Odd n: the full complex FFT of n points. */
class OddRealPlan implements RealPlan {
  readonly bins: number;
  readonly scratchPerRow: number;
  readonly dispatches: number;
  private readonly full: ComplexPlan;

  constructor(
    private readonly fft: WebGpuFft,
    readonly n: number,
  ) {
    this.bins = (n - 1) / 2 + 1;
    this.full = fft.plan(n);
    this.scratchPerRow = 2 * n + this.full.scratchPerRow;
    this.dispatches = 2 + this.full.dispatches;
  }

  forward(job: FftJob, src: GPUBuffer, inBase: number, dst: GPUBuffer, outBase: number, rows: number): void {
    const n = this.n;
    const y = this.fft.scratch.get(0, rows * n * 8);
    const y2 = this.fft.scratch.get(1, rows * n * 8);
    realKernel(this.fft, job, 'widen', n, rows * n, inBase, 0, { 4: src, 1: y });
    this.full.encode(job, y, 0, y2, 0, rows, false, 2);
    const total = rows * this.bins;
    realKernel(this.fft, job, 'take', n, total, 0, outBase, { 0: y2, 1: dst });
  }

  inverse(job: FftJob, src: GPUBuffer, inBase: number, dst: GPUBuffer, outBase: number, rows: number): void {
    const n = this.n;
    const y = this.fft.scratch.get(0, rows * n * 8);
    const y2 = this.fft.scratch.get(1, rows * n * 8);
    realKernel(this.fft, job, 'hermitian', n, rows * n, inBase, 0, { 0: src, 1: y });
    this.full.encode(job, y, 0, y2, 0, rows, true, 2);
    realKernel(this.fft, job, 'realPart', n, rows * n, 0, outBase, { 0: y2, 5: dst });
  }
}
