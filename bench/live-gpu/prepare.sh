#!/usr/bin/env bash
# The live view's benchmark (bench/live-latency.ts) on the lent GPU machine, whose WebGL then runs on the
# NVIDIA GPU (ANGLE on Vulkan) instead of SwiftShader. That machine has no browser and no audio server,
# so this packs Debian's chromium-headless-shell with the libraries it links, and the built app with the
# bench bundled; run.sh (there) serves the app and measures with the generator paced at 48 kHz.
#
#   sudo apt-get install chromium-headless-shell     # here, once
#   bash ../shared/device/prepare.sh                 # no PATHs: .device must leave room for the rest
#   bash bench/live-gpu/prepare.sh
#   device run 1: carry [".gpuc1"]                           command: cp .gpuc1/part.00 /tmp/part.00
#   device run 2 (at once, while the machine is warm): carry [".gpuc2", ".device", ".gpuapp"]
#                 command: mkdir -p /tmp/app && tar -xJf .gpuapp/app.tar.xz -C /tmp/app ./run-gpu.sh && bash /tmp/app/run-gpu.sh
# (the browser is 76 MB compressed: more than one run can carry, so it travels in two parts).
set -euo pipefail
root=$(git rev-parse --show-toplevel)
cd "$root"
shell=/usr/lib/chromium/chromium-headless-shell
[[ -x $shell ]] || { echo "prepare.sh: install chromium-headless-shell first" >&2; exit 2; }
[[ -f .device/setup.sh && ! -f .device/extra.tar.xz ]] || { echo "prepare.sh: run bash ../shared/device/prepare.sh (no PATHs) first" >&2; exit 2; }
for p in /.gpuc1/ /.gpuc2/ /.gpuapp/; do grep -qx "$p" .git/info/exclude || echo "$p" >> .git/info/exclude; done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The browser and every library it links but the C library's own.
mkdir -p "$work/gcb/chromium" "$work/gcb/lib"
(cd /usr/lib/chromium && cp chromium-headless-shell headless_*.pak icudtl.dat snapshot_blob.bin \
  v8_context_snapshot.bin libvulkan.so.1 libEGL.so libGLESv2.so "$work/gcb/chromium/")
for l in $(ldd "$shell" | awk '{print $3}' | grep '^/'); do
  case $(basename "$l") in libc.so.6 | libm.so.6 | ld-linux* | libdl.so.2 | libpthread.so.0 | librt.so.1) ;;
  *) cp -L "$l" "$work/gcb/lib/" ;;
  esac
done
tar -cf - -C "$work" gcb | xz -9 -T0 > "$work/gcb.tar.xz"
rm -rf .gpuc1 .gpuc2 .gpuapp
mkdir -p .gpuc1 .gpuc2 .gpuapp
split -b 50000000 -d "$work/gcb.tar.xz" "$work/part."
mv "$work/part.00" .gpuc1/
mv "$work"/part.0[1-9] .gpuc2/

# The app: CLI and engine (dist), renderer (out), the server's dependencies, the bench in one file.
npm run build >/dev/null
node node_modules/electron-vite/bin/electron-vite.js build >/dev/null
app="$work/app"
mkdir -p "$app/node_modules" "$app/benchjs"
cp -r dist out bin package.json "$app/"
for m in commander d3-scale-chromatic d3-color d3-interpolate pngjs ws zod playwright-core; do
  cp -r "node_modules/$m" "$app/node_modules/"
done
node_modules/.bin/esbuild bench/live-latency.ts --bundle --platform=node --format=esm \
  --external:playwright-core \
  "--banner:js=import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" \
  --outfile="$app/benchjs/live-latency.mjs" --log-level=warning
cp bench/live-gpu/run.sh "$app/run-gpu.sh"
tar -cf - -C "$app" . | xz -6 -T0 > .gpuapp/app.tar.xz
du -sh .gpuc1 .gpuc2 .gpuapp .device
