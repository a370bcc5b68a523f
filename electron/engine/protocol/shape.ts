// The shape of a spectral analysis, declared once for the engine, the CLI and the renderer: how many bins
// an FFT of n gives, the hop for an overlap, how many frames a stream gives. Browser-safe, like the rest
// of the protocol (the renderer imports it).

/** Bins of an n-point spectrum: n for complex input (fftshift order), floor(n/2)+1 for real (rfft). */
export function spectrumBins(n: number, complex: boolean): number {
  return complex ? n : Math.floor(n / 2) + 1;
}

/** Samples between frame starts for a fraction `overlap` ∈ [0, 1) shared with the next frame (≥ 1). */
export function hopFromOverlap(fft: number, overlap: number): number {
  return Math.max(1, Math.round(fft * (1 - overlap)));
}

/** Frames a stream of `samples` samples gives: floor((samples − fft) / hop) + 1, or 0 when too short. */
export function frameCount(samples: number, fft: number, hop: number): number {
  return samples < fft ? 0 : Math.floor((samples - fft) / hop) + 1;
}
