#!/usr/bin/env python3
"""CuPy references for the CUDA benchmark (run on the GPU machine, in the same call as the benchmark).

Prints lines "name milliseconds": cupyx.scipy.signal.oaconvolve of 2^26 complex samples with 31…4095 real
taps, cupyx.scipy.signal.correlate (fft method, 'valid') of 2^26 samples with a 4096-sample template.
Medians of 5 runs after two warm-ups, timed with CUDA events."""
import sys

try:
    import cupy as cp
    import cupyx.scipy.signal as cs
except Exception as e:  # noqa: BLE001
    print(f"# CuPy unavailable: {e}")
    sys.exit(0)

quick = "--quick" in sys.argv
N = 2**22 if quick else 2**26
rng = cp.random.default_rng(1)


def median_ms(f, reps=5):
    f()
    f()
    cp.cuda.Device().synchronize()
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for _ in range(reps):
        start.record()
        f()
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop))
    times.sort()
    return times[len(times) // 2]


x = (rng.standard_normal(N, dtype=cp.float32) + 1j * rng.standard_normal(N, dtype=cp.float32)).astype(cp.complex64)
for taps in (31, 63, 127, 255, 511, 1023, 2047, 4095):
    h = rng.standard_normal(taps, dtype=cp.float32)
    print(f"oaconvolve_{taps} {median_ms(lambda: cs.oaconvolve(x, h)):.4f}", flush=True)
xr = rng.standard_normal(N, dtype=cp.float32)
t = rng.standard_normal(4096, dtype=cp.float32)
print(f"correlate_real {median_ms(lambda: cs.correlate(xr, t, mode='valid', method='fft')):.4f}", flush=True)
tc = (rng.standard_normal(4096, dtype=cp.float32) + 1j * rng.standard_normal(4096, dtype=cp.float32)).astype(cp.complex64)
print(f"correlate_complex {median_ms(lambda: cs.correlate(x, tc, mode='valid', method='fft')):.4f}", flush=True)
