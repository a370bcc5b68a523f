// Mixed-radix plans of the WebGPU FFT planner for n = 2^a·3^b·5^c·7^d (the planner keeps powers of two
// for shaders/fft_pow2.wgsl and asks here first for every other n; what this returns nothing for takes
// Bluestein).
//
//   const mixed = new MixedRadix(planner);
//   const plan = mixed.plan(n);     // a ComplexPlan, or undefined when n has a prime factor above 7
//
// Sizes up to `onePassMax` (the points of vec2<f32> that fit the adapter's workgroup memory: 4096 in
// 32 KiB, 6144 in 48 KiB) run in one pass of shaders/fft_mixed.wgsl, a Stockham auto-sort of radix 8, 7,
// 5, 4, 3 and 2 stages, several transforms a workgroup for small n. Larger n = n1·n2 with both factors
// within one pass run as a four-step FFT of two passes of the same kernel, as the power-of-two four-step
// does: strided columns of n1 points with the twiddles W_n^(column·k1) folded into their stores, then
// rows of n2 points stored transposed. Twiddles come from float64 tables.

import type { WebGpuContext } from './device.js';
import {
  encodeTransformPass,
  grid,
  type ScratchBuffers,
  transformLayout,
  type UniformArena,
  unitCircle,
} from './gpu.js';
import { shaderSource, variant, type ShaderConstants } from './shaders.js';

/** What the mixed-radix plans use of the planner (WebGpuFft). */
export interface MixedHost {
  readonly ctx: WebGpuContext;
  readonly scratch: ScratchBuffers;
  /** (cos, sin)(2π·m/L) for m < L, one table per L. */
  twiddleTable(L: number): GPUBuffer;
  /** A table owned by the planner until it is disposed. */
  table(data: Float32Array, label: string): GPUBuffer;
}

/** The planner's FftJob: the compute pass and the uniform slots of one submit. */
interface Job {
  pass: GPUComputePassEncoder;
  arena: UniformArena;
}

/** Stages one pass of shaders/fft_mixed.wgsl has constants for (R0 … R9). */
export const MIXED_STAGES = 10;
/** The largest one-pass size, whatever the workgroup memory (bounds the registers a thread holds). */
const ONE_PASS_CAP = 16384;
/** Points a workgroup holds when it transforms several short sequences at once. */
const GROUP_POINTS = 1024;
const MAX_THREADS = 256;

/** The stage radices of one pass over n points (radix 8 first, then 4 or 2, 7, 5, 3), or undefined
 * when n has a prime factor above 7. */
export function mixedRadices(n: number): number[] | undefined {
  if (!Number.isInteger(n) || n < 1) return undefined;
  let m = n;
  const count = (p: number): number => {
    let c = 0;
    while (m % p === 0) {
      m /= p;
      c++;
    }
    return c;
  };
  const twos = count(2);
  const threes = count(3);
  const fives = count(5);
  const sevens = count(7);
  if (m !== 1) return undefined;
  const out: number[] = [];
  let eights = Math.floor(twos / 3);
  const rest = twos % 3;
  // 2^(3k+1): 8^(k−1)·4·4 rather than 8^k·2 where there is an 8 to split
  if (rest === 1 && eights > 0) eights--;
  for (let i = 0; i < eights; i++) out.push(8);
  if (rest === 1) out.push(...(twos >= 4 ? [4, 4] : [2]));
  if (rest === 2) out.push(4);
  for (const [r, c] of [
    [7, sevens],
    [5, fives],
    [3, threes],
  ]) {
    for (let i = 0; i < c; i++) out.push(r);
  }
  return out;
}

interface MixedVariant {
  L: number;
  cols: number;
  inverse: boolean;
  outer: boolean;
  loadColsFast: boolean;
  storeColsFast: boolean;
}

/** Where sequence t's element i lives: base + (t / period)·block + (t % period)·a + i·b. */
type Strides = [base: number, a: number, b: number];

/** One dispatch's sequences, reads, writes and scale (the kernel's Params, see shaders/fft_mixed.wgsl). */
interface MixedArgs {
  count: number;
  period: number;
  block: number;
  read: Strides;
  write: Strides;
  outerSplit: number;
  scale: number;
}

export class MixedRadix {
  /** The largest n one workgroup transforms in its memory. */
  readonly onePassMax: number;
  private readonly layout: GPUBindGroupLayout;
  private readonly pipelineLayout: GPUPipelineLayout;
  private readonly pipelines = new Map<string, { pipeline: GPUComputePipeline; threads: number }>();

  constructor(readonly host: MixedHost) {
    const ctx = host.ctx;
    this.onePassMax = Math.min(ONE_PASS_CAP, Math.floor(ctx.limits.workgroupStorage / 8));
    const layouts = transformLayout(ctx.device, 'fft_mixed');
    this.layout = layouts.layout;
    this.pipelineLayout = layouts.pipelineLayout;
  }

  /** Whether one pass transforms n points. */
  fitsOnePass(n: number): boolean {
    const r = mixedRadices(n);
    return r !== undefined && n <= this.onePassMax && r.length <= MIXED_STAGES;
  }

  /** The plan for a 7-smooth n (one pass or four-step), or undefined where neither reaches. */
  plan(n: number): MixedPlan | undefined {
    if (mixedRadices(n) === undefined) return undefined;
    if (this.fitsOnePass(n)) return new MixedPlan(this, n);
    const split = this.fourStepSplit(n);
    return split ? new MixedPlan(this, n, split[0], split[1]) : undefined;
  }

  /** n = n1·n2 with n1 ≤ n2 both within one pass, n1 the largest such divisor up to √n. */
  fourStepSplit(n: number): [number, number] | undefined {
    for (let n1 = Math.floor(Math.sqrt(n)); n1 >= 2; n1--) {
      if (n % n1 !== 0) continue;
      const n2 = n / n1;
      if (n2 > this.onePassMax) return undefined;
      if (this.fitsOnePass(n1) && this.fitsOnePass(n2)) return [n1, n2];
    }
    return undefined;
  }

  /** Transforms of L points a workgroup holds: about `target` points, within the workgroup memory. */
  colsFor(L: number, target = GROUP_POINTS): number {
    return Math.max(1, Math.floor(Math.min(this.onePassMax, Math.max(L, target)) / L));
  }

  /** The kernel for a variant (pipelines cached by their constants) and its threads a workgroup. */
  pipeline(v: MixedVariant): { pipeline: GPUComputePipeline; threads: number } {
    const radices = mixedRadices(v.L);
    if (!radices || radices.length > MIXED_STAGES) throw new Error(`no mixed-radix pass for ${v.L}`);
    const points = v.L * v.cols;
    const limits = this.host.ctx.limits;
    // enough threads for the widest stage (the smallest radix), within the adapter's limits
    const widest = Math.max(...radices.map((r) => points / r), 1);
    const threads = Math.max(1, Math.min(MAX_THREADS, limits.invocations, limits.workgroupSizeX, widest));
    const rounds = Math.max(...radices.map((r) => Math.ceil(points / r / threads)), 1);
    const constants: ShaderConstants = {
      L: v.L,
      COLS: v.cols,
      T: threads,
      ROUNDS: rounds,
      OUTER: v.outer,
      LOAD_COLS_FAST: v.loadColsFast,
      STORE_COLS_FAST: v.storeColsFast,
    };
    constants.STAGES = radices.length;
    for (let s = 0; s < MIXED_STAGES; s++) constants[`R${s}`] = radices[s] ?? 1;
    const key = JSON.stringify(constants);
    let found = this.pipelines.get(key);
    if (!found) {
      const device = this.host.ctx.device;
      const label = `fft_mixed ${key}`;
      const module = device.createShaderModule({
        label,
        code: variant(shaderSource('fft_mixed'), constants),
      });
      const pipeline = device.createComputePipeline({
        label,
        layout: this.pipelineLayout,
        compute: { module, entryPoint: 'main' },
      });
      found = { pipeline, threads };
      this.pipelines.set(key, found);
    }
    return found;
  }

  /** Encodes one pass of the kernel. */
  dispatch(
    job: Job,
    v: MixedVariant,
    src: GPUBuffer,
    dst: GPUBuffer,
    outer: GPUBuffer | undefined,
    a: MixedArgs,
  ): void {
    const { pipeline } = this.pipeline(v);
    const g = grid(Math.ceil(a.count / v.cols), this.host.ctx.limits.workgroupsPerDimension);
    const uniforms = job.arena.slot(
      [a.count, a.period, a.block, g.x, ...a.read, 0, ...a.write, a.outerSplit],
      [a.scale, v.inverse ? 1 : -1],
    );
    const tw = this.host.twiddleTable(v.L);
    encodeTransformPass(
      job.pass,
      this.host.ctx.device,
      this.layout,
      pipeline,
      [src, dst, tw, outer ?? tw],
      uniforms,
      g,
    );
  }

  dispose(): void {
    this.pipelines.clear();
  }
}

/** One pass in workgroup memory (`cols` transforms a workgroup), or for n = n1·n2 a four-step: n2
 * columns of n1 points (stride n2) with the twiddles W_n^(column·k1) folded into their stores, then n1
 * rows of n2 points stored transposed. */
export class MixedPlan {
  readonly method: 'mixed' | 'mixed-four-step';
  readonly scratchPerRow: number;
  readonly dispatches: number;
  /** Four-step twiddles W_n^m = outer[m % split] · outer[split + m / split]: two tables of about √n. */
  private readonly outer: GPUBuffer | undefined;
  private readonly split: number;

  constructor(
    private readonly mixed: MixedRadix,
    readonly n: number,
    /** 1 for one pass */
    readonly n1 = 1,
    readonly n2 = n,
  ) {
    const fourStep = n1 > 1;
    this.method = fourStep ? 'mixed-four-step' : 'mixed';
    this.scratchPerRow = fourStep ? n : 0;
    this.dispatches = fourStep ? 2 : 1;
    this.split = fourStep ? Math.ceil(Math.sqrt(n)) : 1;
    if (fourStep) {
      const coarse = Math.ceil(n / this.split);
      const table = new Float32Array(2 * (this.split + coarse));
      table.set(unitCircle(n, this.split), 0);
      table.set(unitCircle(n, coarse, this.split), 2 * this.split);
      this.outer = mixed.host.table(table, `mixed four-step twiddles ${n}`);
    }
  }

  encode(
    job: Job,
    src: GPUBuffer,
    inBase: number,
    dst: GPUBuffer,
    outBase: number,
    rows: number,
    inverse: boolean,
    slot = 0,
    scale = inverse ? 1 / this.n : 1,
  ): void {
    const { n, n1, n2, mixed } = this;
    const pass = (L: number, colsFast: boolean) => ({
      L,
      cols: mixed.colsFor(L),
      inverse,
      outer: false,
      loadColsFast: false,
      storeColsFast: colsFast,
    });
    if (!this.outer) {
      mixed.dispatch(job, pass(n, false), src, dst, undefined, {
        count: rows,
        period: 1,
        block: n,
        read: [inBase, 0, 1],
        write: [outBase, 0, 1],
        outerSplit: 1,
        scale,
      });
      return;
    }
    const tmp = mixed.host.scratch.get(slot, rows * n * 8);
    // columns: element i of column c at c + i·n2, twiddled by W_n^(c·i) before the store
    const columns = { ...pass(n1, true), outer: true, loadColsFast: true };
    mixed.dispatch(job, columns, src, tmp, this.outer, {
      count: rows * n2,
      period: n2,
      block: n,
      read: [inBase, 1, n2],
      write: [0, 1, n2],
      outerSplit: this.split,
      scale: 1,
    });
    // rows: row k1 at k1·n2 … (contiguous), element k2 stored at k1 + k2·n1
    mixed.dispatch(job, pass(n2, true), tmp, dst, undefined, {
      count: rows * n1,
      period: n1,
      block: n,
      read: [0, n2, 1],
      write: [outBase, 1, n1],
      outerSplit: 1,
      scale,
    });
  }

  describe(): string {
    const r = (m: number) => mixedRadices(m)!.join('·');
    if (!this.outer)
      return `mixed radix (${this.n} = ${r(this.n)}, ${this.mixed.colsFor(this.n)} a workgroup)`;
    return `mixed four-step (${this.n1} × ${this.n2}: ${r(this.n1)} | ${r(this.n2)})`;
  }
}
