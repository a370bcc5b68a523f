"""The jobs of bench/files.ts written as a user would write them with NumPy/SciPy or CuPy.

    python3 bench/files_scipy.py filter      --lib numpy --rate 2.4e6 --input IN.cf32 --output OUT.cf32
    python3 bench/files_scipy.py spectrogram --lib cupy  --rate 2.4e6 --input IN.cf32 --output OUT.npy
    python3 bench/files_scipy.py correlate   --lib numpy --rate 2.4e6 --input IN.cf32 --template T.cf32
    python3 bench/files_scipy.py peaks       --lib numpy --rate 2.4e6 --input IN.cf32
    python3 bench/files_scipy.py psd         --lib numpy --rate 2.4e6 --input IN.cf32 --output OUT.csv
    python3 bench/files_scipy.py extract     --lib cupy  --rate 2.4e6 --input IN.cf32 --output OUT.cf32 \
        --shift 700e3 --lowpass 100e3 --decimate 8
    python3 bench/files_scipy.py npz         --lib numpy --rate 2.4e6 --input IN.cf32 --output OUT.npz

Each job reads the whole raw cf32 file with np.fromfile and computes what the phasor command of the same
name computes (same taps, window, hop, scaling and output layout):
  filter       firwin(numtaps, lowpass, fs) (Hamming) applied with oaconvolve(mode="same"), written as cf32;
  spectrogram  |STFT|^2 / (sum w)^2 with a periodic Hann window, no detrending, fftshift order, in dB,
               saved as a frames x fft float32 .npy;
  correlate    |correlate(x, t, mode="valid")| / (||t|| * ||x window||), the top distinct lags as JSON;
  peaks        the Welch spectrum (Hann, 50 % overlap, same scaling), the strongest local maxima as JSON;
  psd          welch(x, fs, nperseg=fft) with its defaults (Hann, half overlap, constant detrend, density),
               two-sided, fftshift order, saved with np.savetxt as frequency,psd CSV lines;
  extract      x times exp(-2 pi i shift n / fs), oaconvolve(mode="same") with firwin(numtaps, lowpass, fs),
               every decimate-th sample ([::decimate]), written as cf32;
  npz          spectrogram(x, fs, "hann", nperseg=fft, noverlap, detrend=False, return_onesided=False)
               (density, mode psd) saved as f, t, Sxx with np.savez.
The taps and templates are cast to float32/complex64 so the work stays in single precision, as phasor's
GPU backends and the issue's CuPy comparison do.
"""

import argparse
import json
import sys

import numpy as np
import scipy.signal


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("job", choices=["filter", "spectrogram", "correlate", "peaks", "psd", "extract", "npz"])
    p.add_argument("--lib", choices=["numpy", "cupy"], default="numpy")
    p.add_argument("--input", required=True)
    p.add_argument("--output")
    p.add_argument("--template")
    p.add_argument("--rate", type=float, required=True)
    p.add_argument("--lowpass", type=float, default=200e3)
    p.add_argument("--numtaps", type=int, default=255)
    p.add_argument("--fft", type=int, default=4096)
    p.add_argument("--overlap", type=float, default=0.75)
    p.add_argument("--top", type=int, default=5)
    p.add_argument("--shift", type=float, default=0.0)
    p.add_argument("--decimate", type=int, default=1)
    return p.parse_args()


def main():
    a = parse_args()
    if a.lib == "cupy":
        import cupy as xp
        import cupyx.scipy.signal as sig

        def to_host(v):
            return xp.asnumpy(v)

    else:
        xp = np
        sig = scipy.signal

        def to_host(v):
            return v

    x = xp.asarray(np.fromfile(a.input, dtype=np.complex64))

    if a.job == "filter":
        taps = xp.asarray(scipy.signal.firwin(a.numtaps, a.lowpass, fs=a.rate).astype(np.float32))
        y = sig.oaconvolve(x, taps, mode="same")
        to_host(y).astype(np.complex64, copy=False).tofile(a.output)

    elif a.job == "spectrogram":
        hop = max(1, round(a.fft * (1 - a.overlap)))
        _, _, sxx = sig.spectrogram(
            x,
            fs=a.rate,
            window="hann",
            nperseg=a.fft,
            noverlap=a.fft - hop,
            detrend=False,
            return_onesided=False,
            scaling="spectrum",
            mode="psd",
        )
        db = 10 * xp.log10(xp.fft.fftshift(sxx, axes=0).T)
        np.save(a.output, to_host(db).astype(np.float32, copy=False))

    elif a.job == "correlate":
        t = xp.asarray(np.fromfile(a.template, dtype=np.complex64))
        m = t.size
        c = xp.abs(sig.correlate(x, t, mode="valid"))
        energy = xp.concatenate((xp.zeros(1), xp.cumsum(xp.abs(x).astype(np.float64) ** 2)))
        window = xp.sqrt(xp.maximum(energy[m:] - energy[:-m], 0))
        score = c / (float(xp.linalg.norm(t)) * window)
        score[window == 0] = 0
        radius = max(1, m // 2)
        peaks = []
        for _ in range(a.top):
            lag = int(xp.argmax(score))
            if not score[lag] > 0:
                break
            peaks.append({"lag": lag, "time": lag / a.rate, "score": float(score[lag])})
            score[max(0, lag - radius + 1) : lag + radius] = 0
        json.dump(peaks, sys.stdout)

    elif a.job == "peaks":
        freqs, p = sig.welch(
            x,
            fs=a.rate,
            window="hann",
            nperseg=a.fft,
            detrend=False,
            return_onesided=False,
            scaling="spectrum",
        )
        freqs = np.fft.fftshift(to_host(freqs))
        db = 10 * np.log10(np.fft.fftshift(to_host(p)))
        idx, _ = scipy.signal.find_peaks(db)
        best = idx[np.argsort(db[idx])[::-1][: a.top]]
        json.dump([{"frequency": float(freqs[i]), "level": float(db[i])} for i in best], sys.stdout)

    elif a.job == "psd":
        freqs, p = sig.welch(x, fs=a.rate, nperseg=a.fft, return_onesided=False)
        table = np.column_stack((np.fft.fftshift(to_host(freqs)), np.fft.fftshift(to_host(p))))
        np.savetxt(a.output, table, delimiter=",", header="frequency_hz,psd_V2_per_Hz", comments="")

    elif a.job == "extract":
        n = xp.arange(x.size, dtype=np.float64)
        mixed = x * xp.exp(-2j * np.pi * (a.shift / a.rate) * n).astype(np.complex64)
        taps = xp.asarray(scipy.signal.firwin(a.numtaps, a.lowpass, fs=a.rate).astype(np.float32))
        y = sig.oaconvolve(mixed, taps, mode="same")[:: a.decimate]
        to_host(y).astype(np.complex64, copy=False).tofile(a.output)

    elif a.job == "npz":
        hop = max(1, round(a.fft * (1 - a.overlap)))
        f, t, sxx = sig.spectrogram(
            x,
            fs=a.rate,
            window="hann",
            nperseg=a.fft,
            noverlap=a.fft - hop,
            detrend=False,
            return_onesided=False,
        )
        np.savez(a.output, f=to_host(f), t=to_host(t), Sxx=to_host(sxx))


if __name__ == "__main__":
    main()
