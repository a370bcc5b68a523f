// Filtering throughput and peak memory on a large cf32 file, through the real CLI.
//
//   npx tsx bench/filter-file.ts [--gib 1] [--taps 31,255,1023,4095] [--backend cpu] [--dir /tmp/phasor-bench]
//
// Writes a file of complex noise plus a tone (never zeros), then runs `phasor filter` on it under GNU time
// for each tap count and prints wall time, throughput and the process's peak resident memory.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, openSync, closeSync, writeSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    gib: { type: 'string', default: '1' },
    taps: { type: 'string', default: '31,255,1023,4095' },
    backend: { type: 'string', default: 'cpu' },
    dir: { type: 'string', default: '/tmp/phasor-bench' },
  },
});
const root = fileURLToPath(new URL('..', import.meta.url));
const bytes = Math.round(Number(values.gib) * 2 ** 30);
const frames = bytes / 8;
mkdirSync(values.dir, { recursive: true });
const input = join(values.dir, `in-${values.gib}g.cf32`);

if (!existsSync(input) || statSync(input).size !== bytes) {
  const fd = openSync(input, 'w');
  const chunk = 1 << 20; // frames per write
  const buf = new Float32Array(2 * chunk);
  let s = 12345;
  for (let start = 0; start < frames; start += chunk) {
    const n = Math.min(chunk, frames - start);
    for (let i = 0; i < n; i++) {
      s = (s * 1103515245 + 12345) >>> 0;
      const ph = (2 * Math.PI * 0.01 * (start + i)) % (2 * Math.PI);
      buf[2 * i] = 0.5 * Math.cos(ph) + ((s >>> 8) / 2 ** 24 - 0.5) * 0.1;
      buf[2 * i + 1] = 0.5 * Math.sin(ph) + ((s & 0xffff) / 65536 - 0.5) * 0.1;
    }
    writeSync(fd, new Uint8Array(buf.buffer, 0, 8 * n));
  }
  closeSync(fd);
}

const rows: string[][] = [];
for (const taps of values.taps.split(',').map(Number)) {
  const out = join(values.dir, 'out.sigmf-data');
  const args = [
    '-v',
    process.execPath,
    join(root, 'bin/phasor.js'),
    'filter',
    input,
    '--rate',
    '2.4M',
    '-o',
    out,
    '--lowpass',
    '200k',
    '--numtaps',
    String(taps),
    '--backend',
    values.backend,
    '--json',
  ];
  // each run in a process of its own: no standby used, none left by a run on CUDA for the next
  const r = spawnSync('/usr/bin/time', args, {
    encoding: 'utf8',
    maxBuffer: 1 << 24,
    env: { ...process.env, PHASOR_STANDBY: 'off' },
  });
  if (r.status !== 0) {
    process.stderr.write(r.stderr);
    throw new Error(`phasor filter failed for ${taps} taps`);
  }
  const rss = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr)?.[1]) / 1024;
  const wall = /Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)/.exec(r.stderr);
  const secs = wall ? Number(wall[1] ?? 0) * 3600 + Number(wall[2]) * 60 + Number(wall[3]) : NaN;
  const result = JSON.parse(r.stdout) as { method: string; backend: string; frames: number };
  rows.push([
    String(taps),
    result.method,
    result.backend,
    secs.toFixed(2),
    (frames / secs / 1e6).toFixed(1),
    (bytes / secs / 1e6).toFixed(0),
    rss.toFixed(0),
  ]);
  rmSync(join(values.dir, 'out.sigmf-data'), { force: true });
  rmSync(join(values.dir, 'out.sigmf-meta'), { force: true });
}

const header = ['taps', 'method', 'backend', 'wall s', 'Msamples/s', 'MB/s read', 'peak RSS MiB'];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const line = (r: string[]) => r.map((c, i) => c.padStart(widths[i])).join('  ');
console.log(
  `phasor filter on ${values.gib} GiB cf32 (${frames} complex samples), ${new Date().toISOString()}`,
);
console.log(line(header));
for (const r of rows) console.log(line(r));
