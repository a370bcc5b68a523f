// Powers of two above what workgroup memory holds at once, in one pass with each exchange between stages
// in rounds (shaders/fft_pow2.wgsl `ROUNDS`). SwiftShader's 256 invocations keep its one-pass sizes within
// its workgroup memory, so these tests plan with less memory than the adapter has (the planner's
// storagePoints hook): n = 2048 in 2, 4 and 8 rounds, and smaller sizes, forward and inverse, batches,
// against float64 and against the one-pass kernel's output.
import { afterAll, describe, expect, it } from 'vitest';
import {
  RADIX16_BY_DEFAULT,
  RADIX16_SIZES,
  WebGpuFft,
  type ComplexPlan,
} from '../../electron/engine/backends/webgpu/fft.js';
import { MAP_READ, STORAGE_USAGE, USAGE } from '../../electron/engine/backends/webgpu/gpu.js';
import { referenceFft } from '../conformance/reference.js';
import { randomF32 } from '../conformance/util.js';
import { needsWebGpu, tolerance, webgpuSuite, worstRowError } from './gpu.js';

const { b, errors } = await webgpuSuite();

/** rows transforms of x through `plan` of `fft`, read back. */
async function run(
  fft: WebGpuFft,
  plan: ComplexPlan,
  x: Float32Array,
  rows: number,
  inverse: boolean,
): Promise<Float32Array> {
  const device = fft.ctx.device;
  const bytes = x.byteLength;
  const src = device.createBuffer({ size: bytes, usage: STORAGE_USAGE });
  const dst = device.createBuffer({ size: bytes, usage: STORAGE_USAGE });
  const rb = device.createBuffer({ size: bytes, usage: MAP_READ | USAGE.COPY_DST });
  try {
    device.queue.writeBuffer(src, 0, x.buffer, x.byteOffset, bytes);
    const encoder = device.createCommandEncoder();
    const pass = encoder.beginComputePass();
    plan.encode({ pass, arena: fft.arena }, src, 0, dst, 0, rows, inverse);
    pass.end();
    encoder.copyBufferToBuffer(dst, 0, rb, 0, bytes);
    fft.arena.flush(device.queue);
    device.queue.submit([encoder.finish()]);
    await rb.mapAsync(MAP_READ, 0, bytes);
    return new Float32Array(rb.getMappedRange(0, bytes).slice(0));
  } finally {
    if (rb.mapState === 'mapped') rb.unmap();
    for (const buf of [src, dst, rb]) buf.destroy();
  }
}

describe('webgpu fft: one pass in rounds', needsWebGpu(b), () => {
  const planners = new Map<number, WebGpuFft>();
  const planner = (storagePoints: number) => {
    let f = planners.get(storagePoints);
    if (!f)
      planners.set(
        storagePoints,
        (f = new WebGpuFft(b!.ctx, { storagePoints, rounds: true, radix16: false })),
      );
    return f;
  };

  it('plans rounds between the storage limit and 8 points a thread, the four-step when told', () => {
    const f = planner(1024);
    expect(f.onePassMax).toBe(1024);
    expect(f.roundPoints).toBe(1024);
    expect(f.roundsMax).toBe(Math.min(8 * 1024, 8 * f.maxThreads));
    expect(f.plan(1024).method).toBe('one-pass');
    const p = f.plan(2048);
    expect(p.method).toBe('one-pass-rounds');
    expect(p.describe()).toBe('one pass in 2 rounds (1024 points a round)');
    f.useRounds(false);
    expect(f.plan(2048).method).toBe('four-step');
    expect(f.plan(2048).describe()).toMatch(/^four-step \(\d+ × \d+\)$/);
    f.useRounds(true);
    expect(f.plan(2048).method).toBe('one-pass-rounds');
    expect(planner(256).plan(2048).describe()).toBe('one pass in 8 rounds (256 points a round)');
    // no rounds where the threads, not workgroup memory, limit one pass (SwiftShader's own planner)
    const own = b!.fftPlanner;
    if (own.onePassMax < own.roundPoints) expect(own.roundsMax).toBe(own.onePassMax);
    expect(() => new WebGpuFft(b!.ctx, { storagePoints: 8 })).toThrow(/storagePoints must be an integer/);
  });

  for (const [storage, n, rows] of [
    [1024, 2048, 3],
    [512, 1024, 3],
    [512, 2048, 2],
    [256, 2048, 2],
    [256, 512, 4],
    [64, 128, 5],
    [64, 512, 3],
  ] as const) {
    const rounds = n / Math.min(storage, n);
    it(`n = ${n} in ${rounds} rounds of ${storage}, batch ${rows}, forward and inverse`, async () => {
      const f = planner(storage);
      const plan = f.plan(n);
      expect(plan.method).toBe('one-pass-rounds');
      expect(plan.describe()).toContain(`in ${rounds} rounds`);
      const x = randomF32(2 * n * rows, n + storage);
      for (const inverse of [false, true]) {
        const y = await run(f, plan, x, rows, inverse);
        const e = worstRowError(y, x, rows, (r) => referenceFft(r, inverse));
        errors.push(`  ${n} ${inverse ? 'inverse' : 'forward'} ${plan.describe()}: ${e.toExponential(2)}`);
        expect(e).toBeLessThanOrEqual(tolerance(n));
        // the same arithmetic as the kernel holding all points in workgroup memory
        if (n <= b!.fftPlanner.onePassMax) {
          // the 8-point kernel (the backend's planner takes the radix-16 one for some sizes)
          b!.fftPlanner.useRadix16(false);
          try {
            const whole = await b!.fft(x, n, { inverse });
            expect(b!.fftPlanner.plan(n).method).toBe('one-pass');
            expect(Array.from(y)).toEqual(Array.from(whole));
          } finally {
            b!.fftPlanner.useRadix16(RADIX16_BY_DEFAULT, RADIX16_SIZES);
          }
        }
      }
    });
  }

  it('the four-step of the same planner above its rounds, and for a rounds size when told', async () => {
    const f = planner(256);
    const rows = 2;
    for (const [n, on] of [
      [4096, true],
      [1024, false],
    ] as const) {
      f.useRounds(on);
      const plan = f.plan(n);
      expect(plan.method).toBe('four-step');
      const x = randomF32(2 * n * rows, n + 1);
      for (const inverse of [false, true]) {
        const y = await run(f, plan, x, rows, inverse);
        const e = worstRowError(y, x, rows, (r) => referenceFft(r, inverse));
        errors.push(`  ${n} ${inverse ? 'inverse' : 'forward'} ${plan.describe()}: ${e.toExponential(2)}`);
        expect(e).toBeLessThanOrEqual(tolerance(n));
      }
    }
    f.useRounds(true);
  });

  afterAll(() => {
    for (const f of planners.values()) f.dispose();
  });
});
