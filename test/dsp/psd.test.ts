// psd() and spectrogramPsd() against scipy.signal.welch / scipy.signal.spectrogram on the fixture signals
// (test/fixtures/make_psd_fixtures.py): every scaling × detrend × average, odd and even nperseg, windows,
// a signal shorter than nperseg, real and complex input.
import { afterAll, describe, expect, it } from 'vitest';
import type { Backend } from '../../electron/engine/backends/backend.js';
import { createCpuBackend } from '../../electron/engine/backends/cpu/index.js';
import {
  medianBias,
  psd,
  scipyFrequencies,
  spectrogramPsd,
  type Detrend,
  type PsdAverage,
  type PsdScaling,
} from '../../electron/engine/dsp/index.js';
import { InvalidArgumentError } from '../../electron/engine/errors.js';
import { frameCentreTime } from '../../electron/engine/protocol/shape.js';
import type { StreamFormat } from '../../electron/engine/types.js';
import {
  caseName,
  CENTRE,
  expectClose,
  fftshift,
  fixture,
  inputOf,
  spectrograms,
} from '../support/psd-fixtures.js';
import { blocksOf } from './helpers.js';
import { createReferenceBackend } from './reference-backend.js';

const BACKENDS: Array<{ name: string; create: () => Promise<Backend> }> = [
  { name: 'float64 reference', create: async () => createReferenceBackend() },
  { name: 'cpu (float32)', create: () => createCpuBackend() },
];

for (const { name, create } of BACKENDS) {
  describe(`psd on the ${name} backend equals scipy.signal.welch`, () => {
    let backend: Backend | undefined;
    const get = async (): Promise<Backend> => (backend ??= await create());
    afterAll(async () => {
      await backend?.dispose();
    });

    for (const c of fixture.welch) {
      it(caseName(c), async () => {
        const { data, format } = inputOf(c.input);
        const r = await psd(await get(), blocksOf(data, format, [1000, 777]), {
          nperseg: c.nperseg_used,
          ...(c.noverlap !== undefined ? { noverlap: c.noverlap } : {}),
          ...(c.window !== undefined ? { window: c.window } : {}),
          ...(c.scaling !== undefined ? { scaling: c.scaling } : {}),
          ...(c.detrend !== undefined ? { detrend: c.detrend } : {}),
          ...(c.average !== undefined ? { average: c.average } : {}),
        });
        expect(r.segments).toBe(c.segments);
        expect(r.nperseg).toBe(c.nperseg_used);
        expect(r.noverlap).toBe(c.noverlap_used);
        expect(r.units).toBe((c.scaling ?? 'density') === 'density' ? 'V**2/Hz' : 'V**2');
        const complex = c.input === 'iq';
        const refPsd = complex ? fftshift(c.psd) : c.psd;
        const refF = complex ? fftshift(c.frequencies).map((f) => f + CENTRE) : c.frequencies;
        expectClose(r.psd, refPsd, caseName(c));
        for (let k = 0; k < refF.length; k++) {
          expect(Math.abs(r.frequencies[k] - refF[k])).toBeLessThanOrEqual(1e-12 * Math.abs(refF[k]) + 1e-9);
        }
        expect(r.centerFrequency).toBe(complex ? CENTRE : undefined);
      });
    }

    for (const c of fixture.spectrogram) {
      it(`spectrogram ${c.name}: rows equal scipy.signal.spectrogram's Sxx columns`, async () => {
        const { data, format } = inputOf(c.input);
        const ref = spectrograms.get(`${c.name}_Sxx`)!;
        const [bins, frames] = ref.shape;
        const got = new Float64Array(bins * frames);
        let t = 0;
        const s = await spectrogramPsd(
          await get(),
          blocksOf(data, format, [512, 1500]),
          { nperseg: c.nperseg, noverlap: c.noverlap, window: c.window, scaling: c.scaling },
          (rows, count) => {
            for (let i = 0; i < count; i++, t++) {
              for (let k = 0; k < bins; k++) got[k * frames + t] = rows[i * bins + k];
            }
          },
        );
        expect(s.segments).toBe(frames);
        expect(s.bins).toBe(bins);
        expect(t).toBe(frames);
        for (let f = 0; f < frames; f++) {
          const col = (a: ArrayLike<number>) => Array.from({ length: bins }, (_, k) => a[k * frames + f]);
          expectClose(col(got), col(ref.data), `${c.name} frame ${f}`);
        }
        // the axes, bit for bit
        expect(Array.from(scipyFrequencies(c.nperseg, c.fs, c.input === 'iq'))).toEqual(
          Array.from(spectrograms.get(`${c.name}_f`)!.data),
        );
        const times = Array.from({ length: frames }, (_, i) =>
          frameCentreTime(i, c.nperseg, c.nperseg - c.noverlap, c.fs),
        );
        expect(times).toEqual(Array.from(spectrograms.get(`${c.name}_t`)!.data));
      });
    }
  });
}

describe('psd: the details', () => {
  it("the median's bias is SciPy's _median_bias", () => {
    expect(medianBias(1)).toBe(1);
    expect(medianBias(2)).toBe(1);
    expect(medianBias(3)).toBeCloseTo(1 + 1 / 3 - 1 / 2, 15);
    expect(medianBias(6)).toBeCloseTo(1 + (1 / 3 - 1 / 2) + (1 / 5 - 1 / 4), 15);
    // → ln 2 for many segments
    expect(Math.abs(medianBias(100001) - Math.LN2)).toBeLessThan(1e-5);
  });

  it('the same values whatever the block sizes', async () => {
    const backend = createReferenceBackend();
    const { data, format } = inputOf('real');
    const a = await psd(backend, blocksOf(data, format, [3000]), {
      nperseg: 300,
      average: 'median',
      detrend: 'linear',
    });
    const b = await psd(backend, blocksOf(data, format, [1, 299, 17, 4096]), {
      nperseg: 300,
      average: 'median',
      detrend: 'linear',
    });
    expect(Array.from(b.psd)).toEqual(Array.from(a.psd));
  });

  it('one channel of a multi-channel stream', async () => {
    const backend = createReferenceBackend();
    const { data } = inputOf('real');
    const two = new Float32Array(data.length * 2);
    for (let i = 0; i < data.length; i++) {
      two[2 * i] = 0.25 * Math.sin(i); // another signal on channel 0
      two[2 * i + 1] = data[i];
    }
    const format: StreamFormat = { sampleRate: 48000, complex: false, channels: 2 };
    const one = await psd(backend, blocksOf(data, { ...format, channels: 1 }), { nperseg: 256 });
    const second = await psd(backend, blocksOf(two, format), { nperseg: 256, channel: 1 });
    const first = await psd(backend, blocksOf(two, format), { nperseg: 256 });
    expect(Array.from(second.psd)).toEqual(Array.from(one.psd));
    expect(Array.from(first.psd)).not.toEqual(Array.from(one.psd));
    await expect(psd(backend, blocksOf(two, format), { nperseg: 256, channel: 2 })).rejects.toThrow(
      /channel 2 does not exist/,
    );
  });

  it('a median over more segments than its memory limit is refused with the limit named', async () => {
    const backend = createReferenceBackend();
    const { data, format } = inputOf('real');
    const run = psd(backend, blocksOf(data, format), {
      nperseg: 64,
      average: 'median',
      medianBytesMax: 4096,
    });
    await expect(run).rejects.toThrow(InvalidArgumentError);
    await expect(
      psd(backend, blocksOf(data, format), { nperseg: 64, average: 'median', medianBytesMax: 4096 }),
    ).rejects.toThrow(/passes the 0\.00390625 MiB limit; use average mean/);
  });

  it('refuses bad options with the constraint', async () => {
    const backend = createReferenceBackend();
    const { data, format } = inputOf('real');
    const bad = [
      [{ nperseg: 4 }, /nperseg must be a whole number ≥ 8/],
      [{ nperseg: 64, noverlap: 64 }, /0 ≤ noverlap < nperseg = 64/],
      [{ nperseg: 64, scaling: 'power' as PsdScaling }, /scaling must be density, spectrum/],
      [{ nperseg: 64, detrend: 'quadratic' as Detrend }, /detrend must be constant, linear, none/],
      [{ nperseg: 64, average: 'max' as PsdAverage }, /average must be mean, median/],
      [{ nperseg: 64, window: 'nope' }, /unknown window/],
      [{ nperseg: 4000 }, /fewer than the FFT size 4000/],
    ] as const;
    for (const [options, message] of bad) {
      await expect(psd(backend, blocksOf(data, format), options)).rejects.toThrow(message);
    }
  });
});
