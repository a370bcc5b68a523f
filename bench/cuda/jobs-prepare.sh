#!/usr/bin/env bash
# Here, at the root of the checkout the device tool copies: packs what bench/cuda/jobs-check.sh and
# bench/files.ts need on the lent GPU machine into .device (the built CLI, bench/files.ts bundled as
# bench/files.js, and the CLI's and Vitest's packages from node_modules, without the renderer's).
#
#   bash bench/cuda/jobs-prepare.sh
#   device run: carry [".device"], command:
#     source .device/setup.sh; bash bench/cuda/jobs-check.sh
#     source .device/setup.sh; node bench/files.js --size 1G --backend cuda,cpu \
#       --jobs psd,extract,npz,spectrogram,filter --runs 3 --json $OUT/files.json > $OUT/files.md 2> $OUT/files.log
set -euo pipefail
root=$(git rev-parse --show-toplevel)
cd "$root"
npm run -s build
node_modules/.bin/esbuild bench/files.ts --bundle --platform=node --format=esm --outfile=bench/files.js \
  --log-level=warning
# the packages the CLI and Vitest load, with what they depend on (hoisted or nested)
mods=$(node --input-type=module -e '
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
const seen = new Set();
const stack = process.argv.slice(1).map((n) => [n, "node_modules"]);
while (stack.length) {
  const [name, base] = stack.pop();
  let dir = join(base, name);
  if (!existsSync(join(dir, "package.json"))) dir = join("node_modules", name);
  if (!existsSync(join(dir, "package.json")) || seen.has(dir)) continue;
  seen.add(dir);
  const p = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  for (const d of Object.keys({ ...p.dependencies, ...p.optionalDependencies, ...p.peerDependencies }))
    stack.push([d, join(dir, "node_modules")]);
}
console.log([...seen].filter((d) => !/happy-dom|@types\/|lightningcss|jiti/.test(d)).join("\n"));
' commander d3-scale-chromatic pngjs ws zod node-addon-api vitest tsx)
# shellcheck disable=SC2086
bash ../shared/device/prepare.sh dist bench/files.js $mods
rm bench/files.js
