// The shape of a spectral analysis, declared once for the engine, the CLI and the renderer: the limits
// and defaults of its settings, how many bins an FFT of n gives, the hop for an overlap, how many frames a
// stream gives, and where those frames and bins lie in time and frequency. Browser-safe, like the rest of
// the protocol (the renderer imports it).
//
// Conventions (NumPy / SciPy): a real spectrum holds bins 0…⌊n/2⌋ at k·fs/n (numpy.fft.rfftfreq); a
// complex one holds all n bins in ascending frequency from −⌊n/2⌋·fs/n (numpy.fft.fftshift of fftfreq),
// offset by the centre frequency when the stream knows it. Frame f starts at sample f·hop and its centre
// lies fft/2 samples later (scipy.signal.spectrogram's segment times).

// ---------------------------------------------------------------------------------------------------
// Limits

/** Shortest frame of a spectrogram (live analysis, the file view, the monitor). */
export const FFT_SIZE_MIN = 16;
/** Longest frame of the live analysis. */
export const LIVE_FFT_SIZE_MAX = 262144;
/** Longest frame of the file view's spectrogram (fileSpectrogram and its default choice). */
export const FILE_FFT_SIZE_MAX = 1 << 20;
/** Longest frame of a spectrogram processor or an averaged (Welch, peaks) spectrum; the largest size a
 * benchmark runs. */
export const SPECTRUM_FFT_SIZE_MAX = 2 ** 24;
/** Largest single transform any backend plans. */
export const TRANSFORM_SIZE_MAX = 2 ** 26;
/** Shortest segment of an averaged (Welch) spectrum and of peak finding. */
export const WELCH_FFT_SIZE_MIN = 8;
/** Largest fraction of a frame shared with the next one that a request may ask for. */
export const OVERLAP_MAX = 0.95;
/** Most display columns a live analysis may ask for. */
export const COLUMNS_MAX = 16384;
/** Most peaks a peak finder reports per update. */
export const PEAK_COUNT_MAX = 16;

// ---------------------------------------------------------------------------------------------------
// Defaults

/** Frame length of the live analysis. */
export const DEFAULT_FFT = 2048;
/** Overlap of the live analysis and of a whole-file spectrogram. */
export const DEFAULT_OVERLAP = 0.75;
/** Overlap of the file view's spectrogram regions. */
export const DEFAULT_FILE_OVERLAP = 0.5;
/** Segment length of the file view's averaged spectrum (fileSpectrum), when the range holds that many. */
export const FILE_SPECTRUM_FFT = 4096;
/** Analysis window. */
export const DEFAULT_WINDOW = 'hann';
/** Weight of a new frame in the live average trace. */
export const DEFAULT_AVERAGING = 0.1;
/** Display columns of the live analysis. */
export const DEFAULT_COLUMNS = 2048;
/** Levels (dBFS) mapped onto a colormap, low to high. */
export const DEFAULT_DB_RANGE: readonly [number, number] = [-120, 0];

// ---------------------------------------------------------------------------------------------------
// Hop, bins, frames

/** Bins of an n-point spectrum: n for complex input (fftshift order), floor(n/2)+1 for real (rfft). */
export function spectrumBins(n: number, complex: boolean): number {
  return complex ? n : Math.floor(n / 2) + 1;
}

/** Samples between frame starts for a fraction `overlap` ∈ [0, 1) shared with the next frame (≥ 1). */
export function hopFromOverlap(fft: number, overlap: number): number {
  return Math.max(1, Math.round(fft * (1 - overlap)));
}

/** The fraction of a frame of `fft` samples that the next one shares when frames start `hop` apart. */
export function overlapFromHop(fft: number, hop: number): number {
  return 1 - hop / fft;
}

/** Frames a stream of `samples` samples gives: floor((samples − fft) / hop) + 1, or 0 when too short. */
export function frameCount(samples: number, fft: number, hop: number): number {
  return samples < fft ? 0 : Math.floor((samples - fft) / hop) + 1;
}

/** Bins [lo, hi) that display column c of `width` holds when `bins` bins are reduced (by max) to `width`
 * columns; one bin per column when there are no more bins than columns. */
export function columnBins(c: number, bins: number, width: number): [number, number] {
  if (width >= bins) return [c, c + 1];
  return [Math.floor((c * bins) / width), Math.floor(((c + 1) * bins) / width)];
}

/** Columns [x0, x1) that frame f of `frames` covers in an image `width` wide (every column is covered). */
export function frameColumns(f: number, frames: number, width: number): [number, number] {
  const x0 = Math.floor((f * width) / frames);
  const x1 = Math.max(x0 + 1, Math.floor(((f + 1) * width) / frames));
  return [x0, Math.min(x1, width)];
}

// ---------------------------------------------------------------------------------------------------
// Time axis

/** Frames per second of stream time when frames start `hop` samples apart. */
export function frameRate(hop: number, sampleRate: number): number {
  return sampleRate / hop;
}

/** Seconds of stream time between frame starts. */
export function framePeriod(hop: number, sampleRate: number): number {
  return hop / sampleRate;
}

/** Time (s) at which frame f starts, for frames counted from sample `offset` of the stream. */
export function frameStartTime(f: number, hop: number, sampleRate: number, offset = 0): number {
  return (offset + f * hop) / sampleRate;
}

/** Time (s) of frame f's centre, fft/2 samples after its start (scipy.signal.spectrogram's `t`). */
export function frameCentreTime(f: number, fft: number, hop: number, sampleRate: number, offset = 0): number {
  return (offset + f * hop + fft / 2) / sampleRate;
}

// ---------------------------------------------------------------------------------------------------
// Frequency axis

/** Hz between neighbouring bins of an fft-point spectrum. */
export function binWidth(sampleRate: number, fft: number): number {
  return sampleRate / fft;
}

/** Index of the 0 Hz (centre) bin: ⌊n/2⌋ in a complex spectrum (fftshift order), 0 in a real one. */
export function binShift(fft: number, complex: boolean): number {
  return complex ? Math.floor(fft / 2) : 0;
}

/** Frequency (Hz) of bin k (fractional k interpolates): k·fs/n for real input; (k − ⌊n/2⌋)·fs/n + centre
 * for complex input in fftshift order, where centre is the stream's centre frequency (0 when unknown). */
export function binFrequency(
  k: number,
  fft: number,
  sampleRate: number,
  complex: boolean,
  centre = 0,
): number {
  const f = (k - binShift(fft, complex)) * binWidth(sampleRate, fft);
  return complex ? centre + f : f;
}

/** Every bin's frequency (Hz), in the order of spectrumBins (relative to the centre unless one is given). */
export function binFrequencies(fft: number, sampleRate: number, complex: boolean, centre = 0): Float64Array {
  const out = new Float64Array(spectrumBins(fft, complex));
  for (let k = 0; k < out.length; k++) out[k] = binFrequency(k, fft, sampleRate, complex, centre);
  return out;
}

/** The bin index (fractional) at which frequency f lies: the inverse of binFrequency. */
export function frequencyBin(
  f: number,
  fft: number,
  sampleRate: number,
  complex: boolean,
  centre = 0,
): number {
  return (f - binFrequency(0, fft, sampleRate, complex, centre)) / binWidth(sampleRate, fft);
}

/** Frequencies (Hz) of the first and the last bin of a spectrum. */
export function binRange(fft: number, sampleRate: number, complex: boolean, centre = 0): [number, number] {
  return [
    binFrequency(0, fft, sampleRate, complex, centre),
    binFrequency(spectrumBins(fft, complex) - 1, fft, sampleRate, complex, centre),
  ];
}

/** The band a stream's samples can hold: [0, fs/2] for real input, centre ± fs/2 for complex input. */
export function streamBand(sampleRate: number, complex: boolean, centre = 0): [number, number] {
  if (!complex) return [0, sampleRate / 2];
  return [centre - sampleRate / 2, centre + sampleRate / 2];
}

/** Frequency i of a filter response drawn at `points` frequencies from 0 to fs/2 inclusive. */
export function responseFrequency(i: number, points: number, fs: number): number {
  return points > 1 ? (i * (fs / 2)) / (points - 1) : 0;
}

// ---------------------------------------------------------------------------------------------------
// Resolution bandwidth

/** Equivalent noise bandwidth (bins, N·Σw²/(Σw)²) of each periodic window of dsp/windows.ts: exact at every
 * size ≥ 16 for the cosine-sum windows, the large-N value for kaiser at its default β (within 3e-4 of it
 * from N = 16 on). The engine computes the exact value from the window (windowProperties); this table lets
 * the renderer show an RBW without the window's samples. test/dsp/enbw.test.ts holds it to the windows. */
export const WINDOW_ENBW: Readonly<Record<string, number>> = {
  rectangular: 1,
  hann: 1.5,
  hamming: 1.3628257887517146,
  blackman: 1.7267573696145126,
  blackmanharris: 2.0043529382170475,
  flattop: 3.7702464474434283,
  kaiser: 1.7213742270351535,
};

/** ENBW (bins) of a window by its canonical name ('hann', 'kaiser', 'kaiser:8.6'); undefined for a kaiser
 * of another β (the engine reports the exact value of any window). */
export function windowEnbw(window: string): number | undefined {
  const text = window.trim().toLowerCase();
  const name = text === 'kaiser:8.6' ? 'kaiser' : text;
  return Object.hasOwn(WINDOW_ENBW, name) ? WINDOW_ENBW[name] : undefined;
}

/** Resolution bandwidth (Hz) of an fft-point spectrum through a window of `enbw` bins: ENBW·fs/N. */
export function resolutionBandwidth(enbw: number, sampleRate: number, fft: number): number {
  return enbw * binWidth(sampleRate, fft);
}

// ---------------------------------------------------------------------------------------------------
// Live measurements (measureLive)

/** Seconds of the newest live samples a measurement takes by default, and at most. */
export const LIVE_MEASURE_SECONDS_DEFAULT = 1;
export const LIVE_MEASURE_SECONDS_MAX = 10;
/** Frames the live measurement ring holds at most (4 bytes a value, 2 values a frame for I/Q: 64 MiB). */
export const LIVE_MEASURE_FRAMES_MAX = 1 << 23;
