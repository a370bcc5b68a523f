#!/bin/bash
# On the lent GPU machine, from the repo root (see prepare.sh): the live view's latency and frame rate in a headless
# Chromium whose WebGL runs on the NVIDIA GPU (ANGLE on Vulkan).
set -u
source .device/setup.sh
mkdir -p /tmp/gc /tmp/app
if [[ ! -x /tmp/gc/gcb/chromium/chromium-headless-shell ]]; then
  cat /tmp/part.00 .gpuc2/part.* | xz -dc | tar -x -C /tmp/gc || { echo "chromium bundle broken"; exit 1; }
fi
tar -xJf .gpuapp/app.tar.xz -C /tmp/app
CH=/tmp/gc/gcb/chromium/chromium-headless-shell
cd /tmp/app
export LANG=C.UTF-8
node bin/phasor.js serve --port 5990 > "$OUT/serve.log" 2>&1 &
sleep 2
GPU="--ignore-gpu-blocklist --use-angle=vulkan --enable-features=Vulkan --disable-vulkan-surface"
args=()
for f in $GPU; do args+=(--chromium-arg="$f"); done
for size in "--width 1400 --height 860 --dpr 1" "--width 2400 --height 1000 --dpr 2"; do
  LD_LIBRARY_PATH=/tmp/gc/gcb/lib PHASOR_E2E_URL=http://127.0.0.1:5990/ PHASOR_BENCH_SHOT=$OUT/fail.png timeout 150 node benchjs/live-latency.mjs \
    --source generator --seconds 10 $size --chromium "$CH" "${args[@]}" > /tmp/bench.log 2>&1
  cat /tmp/bench.log >> "$OUT/live-gpu-full.txt"
  grep -E '^(live view|window|phase|gen |status)' /tmp/bench.log | tee -a "$OUT/live-gpu.txt"
done
echo "CPU: $(lscpu | sed -n 's/Model name: *//p'), $(nproc) cores"
