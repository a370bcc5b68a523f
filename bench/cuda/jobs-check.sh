#!/usr/bin/env bash
# On the lent GPU machine (after `bash bench/cuda/jobs-prepare.sh` here; there `source .device/setup.sh`): issue 25's
# file jobs on CUDA beside the CPU backend and SciPy. Builds the CUDA addon when it is missing, runs
# test/pipeline/extract.test.ts (its [needs-gpu] cases run there), then `phasor psd` (mean and median),
# `measure`, `extract` and `spectrogram -o .npz` on a 2^22-sample cf32 file with --backend cpu and cuda,
# and compares their outputs with each other and with scipy.signal (float64). Logs under $OUT.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT="${OUT:-/tmp/phasor-jobs-check}"
mkdir -p "$OUT"
status=0
if [[ ! -f native/build/cuda/phasor_cuda.node ]]; then
  echo "== building the CUDA addon (sm_90)"
  PHASOR_CUDA_ARCHS=90 node native/build.mjs 2>&1 | tail -3 || status=1
fi
# the installed command's native client (bin/phasor), as a user's `phasor` runs it
[[ -x native/build/client/phasor-client ]] || node native/client/build.mjs --if-available 2>&1 | tail -1

echo "== test/pipeline/extract.test.ts"
timeout 180 node node_modules/vitest/vitest.mjs run --config bench/cuda/vitest.jobs.config.ts \
  test/pipeline/extract.test.ts > "$OUT/extract-test.log" 2>&1 || status=1
grep -aE "needs-gpu|✓|×|FAIL|Test Files|Tests  " "$OUT/extract-test.log" | grep -aE "cuda|FAIL|×|Test" | head -20

d=/tmp/phasor-jobs-check
mkdir -p "$d"
python3 - "$d/in.cf32" <<'EOF'
import sys
import numpy as np
rng = np.random.default_rng(25)
n = np.arange(1 << 22)
fs = 2.4e6
x = 0.3 * np.exp(2j * np.pi * 24e3 / fs * n) + 0.2 * np.exp(2j * np.pi * 720e3 / fs * n)
x += 0.1 * (rng.standard_normal(n.size) + 1j * rng.standard_normal(n.size))
x.astype(np.complex64).tofile(sys.argv[1])
EOF
raw=(--format cf32 --rate 2.4e6)
for b in ${PHASOR_CHECK_BACKENDS:-cpu cuda}; do
  node bin/phasor.js psd "$d/in.cf32" "${raw[@]}" --nperseg 4096 -o "$d/psd-$b.csv" --backend $b >/dev/null || status=1
  node bin/phasor.js psd "$d/in.cf32" "${raw[@]}" --nperseg 4096 --average median -o "$d/psdm-$b.csv" \
    --backend $b >/dev/null || status=1
  node bin/phasor.js measure "$d/in.cf32" "${raw[@]}" --band 10k:40k --json --backend $b > "$d/measure-$b.json" ||
    status=1
  node bin/phasor.js extract "$d/in.cf32" "${raw[@]}" --shift 700k --lowpass 100k --numtaps 255 --decimate 8 \
    -o "$d/ext-$b.sigmf-data" --backend $b >/dev/null || status=1
  node bin/phasor.js spectrogram "$d/in.cf32" "${raw[@]}" --fft 4096 --overlap 0.75 -o "$d/spec-$b.npz" \
    --backend $b >/dev/null || status=1
done
python3 - "$d" ${PHASOR_CHECK_BACKENDS:-cpu cuda} <<'EOF' 2>&1 | tee "$OUT/jobs-check.txt"
import json, sys
import numpy as np
import scipy.signal as sig
d, backends = sys.argv[1], sys.argv[2:]
fs = 2.4e6
x = np.fromfile(f"{d}/in.cf32", dtype=np.complex64).astype(np.complex128)
rel = lambda a, b: float(np.linalg.norm(np.asarray(a, float) - b) / np.linalg.norm(b))
csv = lambda p: np.loadtxt(p, delimiter=",", comments="#", skiprows=1)
for avg, name in (("mean", "psd"), ("median", "psdm")):
    f, p = sig.welch(x, fs=fs, nperseg=4096, return_onesided=False, average=avg)
    ref = np.fft.fftshift(p)
    r = {b: csv(f"{d}/{name}-{b}.csv") for b in backends}
    for b in backends:
        print(f"psd --average {avg} {b}: rel L2 vs SciPy {rel(r[b][:, 1], ref):.2e}, vs cpu"
              f" {rel(r[b][:, 1], r['cpu'][:, 1]):.2e}; frequencies equal SciPy's {np.allclose(r[b][:, 0], np.fft.fftshift(f))}")
taps = sig.firwin(255, 100e3, fs=fs)
y = sig.oaconvolve(x * np.exp(-2j * np.pi * 700e3 / fs * np.arange(x.size)), taps, "same")[::8]
for b in backends:
    e = np.fromfile(f"{d}/ext-{b}.sigmf-data", dtype=np.complex64)
    meta = json.load(open(f"{d}/ext-{b}.sigmf-meta"))
    err = float(np.linalg.norm(e - y) / np.linalg.norm(y)) if e.size == y.size else "size differs"
    print(f"extract {b}: {e.size} samples (SciPy {y.size}), rate {meta['global']['core:sample_rate']},"
          f" rel L2 vs SciPy {err}")
f, t, s = sig.spectrogram(x, fs=fs, window="hann", nperseg=4096, noverlap=3072, detrend=False, return_onesided=False)
for b in backends:
    z = np.load(f"{d}/spec-{b}.npz")
    ok = z["Sxx"].shape == s.shape
    print(f"npz {b}: Sxx {z['Sxx'].shape} {z['Sxx'].dtype} (SciPy {s.shape}), f equal {np.allclose(z['f'], f)},"
          f" t equal {np.allclose(z['t'], t)}, Sxx rel L2 vs SciPy {rel(z['Sxx'], s) if ok else 'shape differs'}")
for b in backends:
    print(f"measure {b}:", json.dumps(json.load(open(f"{d}/measure-{b}.json")))[:700])
EOF
echo "== bench smoke (64M)"
timeout 200 node bench/files.js --size 64M --backend cuda,cpu --jobs psd,extract,npz --runs 1 \
  --json "$OUT/smoke.json" > "$OUT/smoke.md" 2> "$OUT/smoke.log" || status=1
grep -a "FAILED" -A2 "$OUT/smoke.log" | head -20
grep -a "^| " "$OUT/smoke.md"
exit $status
