#!/usr/bin/env bash
# npm run gpu:check — on a machine with a CUDA GPU (the lent device: docs/cuda/NOTES.md says how), in one
# call: builds the addons if one is missing (node native/build.mjs --bench: the shipping phasor_cuda.node and
# the bench build phasor_cuda_bench.node, the same kernels), runs the CUDA tests and the conformance suite on
# the CUDA backend (the shipping addon), the CuPy references and the benchmark (the bench addon); prints the
# benchmark table last. Full logs and JSON go
# to $OUT (or /tmp/phasor-gpu-check). PHASOR_REBUILD=1 rebuilds; PHASOR_QUICK=1 runs a short benchmark;
# PHASOR_SKIP_TESTS=1 / PHASOR_SKIP_BENCH=1 leave a part out.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT="${OUT:-/tmp/phasor-gpu-check}"
mkdir -p "$OUT"
quick=${PHASOR_QUICK:+--quick}
status=0

{ nvidia-smi; nvidia-smi -q -d CLOCK,POWER,PERFORMANCE; } > "$OUT/env.log" 2>&1 || true
if [[ ! -f native/build/cuda/phasor_cuda.node || ! -f native/build/cuda/phasor_cuda_bench.node || -n "${PHASOR_REBUILD:-}" ]]; then
  node native/build.mjs --bench 2>&1 | tail -5 | tee -a "$OUT/env.log" || status=1
fi

if [[ -z "${PHASOR_SKIP_TESTS:-}" ]]; then
  tests=(test/cuda)
  [[ -f test/conformance/conformance.test.ts ]] && tests+=(test/conformance/conformance.test.ts)
  echo "== tests: ${tests[*]} (CUDA entries)"
  timeout "${PHASOR_TEST_TIMEOUT:-240}" node node_modules/vitest/vitest.mjs run --config test/cuda/vitest.device.config.ts \
    "${tests[@]}" -t 'cuda|CUDA' > "$OUT/tests.log" 2>&1 || status=1
  grep -aE "×|FAIL|AssertionError|Test Files|Tests  " "$OUT/tests.log" | head -30
fi

if [[ -n "${PHASOR_PROFILE:-}" ]] && command -v ncu >/dev/null; then
  echo "== ncu (hardware counters of the main kernels)"
  timeout 150 node bench/cuda/profile.mjs "$OUT" 2>&1 | tee -a "$OUT/env.log" || true
fi

if [[ -z "${PHASOR_SKIP_BENCH:-}" ]]; then
  echo "== CuPy references"
  PYTHONUNBUFFERED=1 timeout 120 python3 bench/cuda/cupy_ref.py $quick > "$OUT/cupy.txt" 2>&1 || true
  echo "== benchmark"
  timeout "${PHASOR_BENCH_TIMEOUT:-300}" node bench/cuda/run.mjs $quick --json "$OUT/bench.json" --cupy "$OUT/cupy.txt" \
    > "$OUT/bench.log" 2>&1 || status=1
  # progress lines, then the table (last)
  cat "$OUT/bench.log"
fi
exit $status
