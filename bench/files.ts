// Whole-file jobs through the real CLI, side by side with their floors and with the script a SciPy or CuPy
// user would write instead, all measured in one run.
//
//   npm run build && npx tsx bench/files.ts [--size 256M|1G|4G] [--dir /tmp/phasor-bench]
//     [--backend cpu,cuda,webgpu] [--jobs filter,spectrogram,correlate,peaks,psd,extract,npz] [--runs 5]
//     [--cold]
//     [--python python3] [--json out.json] [--baseline OTHER/dist/electron/cli/main.js]
//     [--scripts scipy,cupy] [--no-sync] [--standby]
//
// Writes (once; reused while its size matches) a raw cf32 file of complex noise plus two tones, and a
// 4096-sample template cut from it. Every cell is one spawned process, timed whole: the floors (`cat IN >
// /dev/null`, `cat IN > COPY`), the start-ups (`phasor --version`, Python importing SciPy or CuPy),
// `phasor <job> --backend B` for each backend this machine has, and
// bench/files_scipy.py with NumPy/SciPy and with CuPy where they import. The cells run round-robin, --runs
// rounds, so a change in the machine's load touches them alike. Each run's output is checked (size, .npy and
// .npz shapes, the template's lag, the tone among the peaks or at the PSD's strongest bin, the extract's
// length, rate and its tone at the shifted frequency) and removed. With --cold the input is evicted from the
// page cache before every run. Prints a Markdown table (medians, spread, throughput, peak RSS, ratios).
// --baseline adds the same phasor jobs run by another build's CLI (a checkout of an older commit, built),
// side by side in the same rounds (the two swap places every other round): before and after on one machine.
// --no-sync adds the jobs that write a file run with --no-sync (their output renamed without waiting for
// the disk). --standby adds each phasor job run through a standby process (`phasor standby start`, made
// ready before the run, untimed) by the installed command (bin/phasor: its native client where built, and
// then also by Node's client, a row of its own); the other phasor cells run with PHASOR_STANDBY=off. A standby row's peak
// RSS is the client's, not the job's, and is not shown. Each job also has a "phasor (default)" row: the job
// as a new user types it (no --backend, PHASOR_STANDBY unset), --runs times in a row after the rounds,
// from no standby before its first run (any is stopped, untimed): a first job on CUDA leaves a standby
// that the later runs find. Its first run is shown apart (the "first run s" column, every row has it),
// beside the median of all runs.

import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const JOBS = ['filter', 'spectrogram', 'correlate', 'peaks', 'psd', 'extract', 'npz'] as const;
type Job = (typeof JOBS)[number];

// The jobs' settings, passed alike to phasor and to the Python script.
const RATE = 2.4e6;
const LOWPASS = 200e3;
const NUMTAPS = 255;
const SPEC_FFT = 4096;
const SPEC_OVERLAP = 0.75;
const SPEC_HOP = Math.max(1, Math.round(SPEC_FFT * (1 - SPEC_OVERLAP)));
const PEAKS_FFT = 65536;
const TEMPLATE_FRAMES = 4096;
// psd: scipy.signal.welch's defaults (Hann, half overlap, constant detrend, density) but nperseg
const PSD_NPERSEG = 4096;
// extract: the 720 kHz tone moved to 20 kHz, low-passed (removing the 24 kHz tone, now at −676 kHz) and
// decimated to 300 kHz
const EXTRACT_SHIFT = 700e3;
const EXTRACT_LOWPASS = 100e3;
const EXTRACT_NUMTAPS = 255;
const EXTRACT_DECIMATE = 8;

// The generated signal: a chunk of CHUNK frames (small enough to stay in the CPU's cache) holds a whole number
// of cycles of each tone, so one table of tones serves every chunk; the noise is the sum of two slices of a
// noise pool at offsets drawn per chunk, so no stretch of the file repeats elsewhere (the template matches at
// one lag only). Chunks are written WRITE_FRAMES at a time.
const CHUNK = 1 << 16;
const POOL = 1 << 20;
const WRITE_FRAMES = 1 << 20;
const TONES = [
  { cycles: 655, amplitude: 0.3 }, // 24.0 kHz at 2.4 MHz: in the low-pass band
  { cycles: 19661, amplitude: 0.2 }, // 720 kHz: removed by the low-pass
];
const TONE_HZ = (TONES[0].cycles / CHUNK) * RATE;
const EXTRACT_TONE_HZ = (TONES[1].cycles / CHUNK) * RATE - EXTRACT_SHIFT;
const NOISE = 0.15; // each pool sample uniform in ±NOISE

const { values } = parseArgs({
  options: {
    size: { type: 'string', default: '256M' },
    dir: { type: 'string', default: '/tmp/phasor-bench' },
    backend: { type: 'string', default: 'cpu,cuda,webgpu' },
    jobs: { type: 'string', default: JOBS.join(',') },
    runs: { type: 'string', default: '5' },
    cold: { type: 'boolean', default: false },
    python: { type: 'string', default: 'python3' },
    json: { type: 'string' },
    baseline: { type: 'string' },
    scripts: { type: 'string', default: 'scipy,cupy' },
    'no-sync': { type: 'boolean', default: false },
    standby: { type: 'boolean', default: false },
  },
});

const root = fileURLToPath(new URL('..', import.meta.url));
const phasorJs = join(root, 'bin/phasor.js');
// the command as installed: the native client where it is built (it reaches a standby without Node's start)
const phasorCommand = join(root, 'bin/phasor');
const nativeClient = existsSync(join(root, 'native/build/client/phasor-client'));
const pyScript = join(root, 'bench/files_scipy.py');
const dir = values.dir;
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) fail(`--runs must be a whole number ≥ 1, got ${values.runs}`);
const jobs = values.jobs.split(',').map((j) => {
  if (!(JOBS as readonly string[]).includes(j)) fail(`unknown job "${j}" (jobs: ${JOBS.join(', ')})`);
  return j as Job;
});
const backends = values.backend.split(',').filter((b) => b !== '');
const bytes = parseSize(values.size);
const frames = bytes / 8;
if (frames < WRITE_FRAMES) fail(`--size must be at least ${(8 * WRITE_FRAMES) / 2 ** 20}M`);
const label = values.size.toUpperCase();
const input = join(dir, `files-${label}.cf32`);
const template = join(dir, `files-${label}-template.cf32`);
const templateAt = Math.floor(frames / 3);
const specFrames = Math.floor((frames - SPEC_FFT) / SPEC_HOP) + 1;
const extractFrames = Math.ceil(frames / EXTRACT_DECIMATE);
const MB = 1e6;
const MiB = 2 ** 20;

function fail(message: string): never {
  process.stderr.write(`files.ts: ${message}\n`);
  process.exit(2);
}

function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

/** "256M", "1G", "4GiB", "1.5G" → bytes (binary units), a whole number of cf32 frames. */
function parseSize(text: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*([KMGT]?)(?:i?B)?$/i.exec(text.trim());
  if (!m) fail(`--size must look like 256M, 1G or 4G, got "${text}"`);
  const unit = { '': 1, K: 2 ** 10, M: 2 ** 20, G: 2 ** 30, T: 2 ** 40 }[m[2].toUpperCase()] ?? 1;
  return Math.floor((Number(m[1]) * unit) / 8) * 8;
}

/** How a phasor process meets a standby: `off`, a process of its own (PHASOR_STANDBY=off); `manual`,
 * through the one `phasor standby start` made ready (none started by a job); `default`, as a new user's
 * (PHASOR_STANDBY unset: a job on CUDA leaves one for the next). */
function phasorEnv(setting: 'off' | 'manual' | 'default'): NodeJS.ProcessEnv {
  const { PHASOR_STANDBY: _unset, ...rest } = process.env;
  // this Node first on PATH: bin/phasor runs the `node` found there, and the standby is named after it
  const env = { ...rest, PATH: `${dirname(process.execPath)}:${rest.PATH ?? ''}` };
  return setting === 'default' ? env : { ...env, PHASOR_STANDBY: setting };
}

function run(cmd: string, args: string[]): SpawnSyncReturns<string> {
  return spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 * MiB, env: phasorEnv('off') });
}

function firstLine(cmd: string, args: string[]): string | undefined {
  const r = run(cmd, args);
  return r.status === 0 ? r.stdout.trim().split('\n')[0] : undefined;
}

// ---------------------------------------------------------------------------------------------------
// The input

/** xorshift32: a fast, seedable stream of 32-bit words. */
function xorshift(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s;
  };
}

function addChunk(out: Float32Array, a: Float32Array, b: Float32Array, c: Float32Array): void {
  for (let i = 0; i < out.length; i++) out[i] = a[i] + b[i] + c[i];
}

function generateInput(): void {
  const t0 = performance.now();
  const tones = new Float32Array(2 * CHUNK);
  for (let i = 0; i < CHUNK; i++) {
    let re = 0;
    let im = 0;
    for (const t of TONES) {
      const phase = (2 * Math.PI * ((t.cycles * i) % CHUNK)) / CHUNK;
      re += t.amplitude * Math.cos(phase);
      im += t.amplitude * Math.sin(phase);
    }
    tones[2 * i] = re;
    tones[2 * i + 1] = im;
  }
  const next = xorshift(0x9e3779b9);
  const pool = new Float32Array(2 * POOL);
  for (let i = 0; i < pool.length; i++) pool[i] = (next() / 2 ** 32 - 0.5) * 2 * NOISE;
  const buf = new Float32Array(2 * WRITE_FRAMES);
  const bytesOut = new Uint8Array(buf.buffer);
  const tmp = `${input}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    for (let start = 0; start < frames; start += WRITE_FRAMES) {
      const count = 2 * Math.min(WRITE_FRAMES, frames - start);
      for (let c = 0; c < count; c += 2 * CHUNK) {
        const a = 2 * (next() % (POOL - CHUNK + 1));
        const b = 2 * (next() % (POOL - CHUNK + 1));
        addChunk(buf.subarray(c, Math.min(c + 2 * CHUNK, count)), tones, pool.subarray(a), pool.subarray(b));
      }
      writeSync(fd, bytesOut, 0, 4 * count);
    }
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, input);
  const s = (performance.now() - t0) / 1000;
  log(
    `wrote ${input}: ${(bytes / MiB).toFixed(0)} MiB in ${s.toFixed(1)} s (${(bytes / MB / s).toFixed(0)} MB/s)`,
  );
}

function writeTemplate(): void {
  const buf = Buffer.alloc(8 * TEMPLATE_FRAMES);
  const fd = openSync(input, 'r');
  try {
    if (readSync(fd, buf, 0, buf.length, 8 * templateAt) !== buf.length) fail(`short read of ${input}`);
  } finally {
    closeSync(fd);
  }
  writeFileSync(template, buf);
}

// ---------------------------------------------------------------------------------------------------
// The machine

function describeMachine(): Record<string, string> {
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  const gpu = firstLine('nvidia-smi', [
    '--query-gpu=name,memory.total,driver_version',
    '--format=csv,noheader',
  ]);
  const commit = firstLine('git', ['-C', root, 'rev-parse', '--short', 'HEAD']) ?? 'unknown';
  const dirty = run('git', ['-C', root, 'status', '--porcelain', '--untracked-files=no']).stdout?.trim();
  const df = run('df', ['-T', dir]).stdout?.trim().split('\n')[1]?.split(/\s+/);
  return {
    date: new Date().toISOString(),
    commit: commit + (dirty ? ' (with uncommitted changes)' : ''),
    cpu: `${cpu}, ${availableParallelism()} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB`,
    gpu: gpu ?? 'none (no nvidia-smi)',
    node: process.version,
    disk: df ? `${dir} on ${df[0]} (${df[1]})` : dir,
  };
}

/** Versions of NumPy/SciPy and CuPy (with its device), or why they are absent. */
function probePython(): { scipy: string | null; cupy: string | null; notes: string[] } {
  const notes: string[] = [];
  const sci = run(values.python, [
    '-c',
    'import sys, numpy, scipy; print(sys.version.split()[0], numpy.__version__, scipy.__version__)',
  ]);
  let scipy: string | null = null;
  if (sci.status === 0) {
    const [py, np, sp] = sci.stdout.trim().split(' ');
    scipy = `Python ${py}, NumPy ${np}, SciPy ${sp}`;
  } else notes.push(`SciPy absent (${values.python}: ${why(sci)})`);
  const cu = run(values.python, [
    '-c',
    'import cupy; n = cupy.cuda.runtime.getDeviceCount(); print(cupy.__version__, n)',
  ]);
  let cupy: string | null = null;
  if (scipy !== null && cu.status === 0) cupy = `CuPy ${cu.stdout.trim().split(' ')[0]}`;
  else notes.push(`CuPy absent (${why(cu)})`);
  return { scipy, cupy, notes };
}

function lastLine(text: string): string {
  return text.trim().split('\n').pop() ?? '';
}

/** Why a probe command failed, in one line. */
function why(r: SpawnSyncReturns<string>): string {
  return lastLine(r.stderr ?? '') || (r.error ? r.error.message : `exit status ${r.status}`);
}

// ---------------------------------------------------------------------------------------------------
// Page cache

/** Bytes of `path` in the page cache, from util-linux's fincore; undefined where it cannot tell. */
function residentBytes(path: string): number | undefined {
  const r = run('fincore', ['--bytes', '--noheadings', '--output', 'RES', path]);
  return r.status === 0 ? Number(r.stdout.trim()) : undefined;
}

interface Evictor {
  name: string;
  evict(paths: string[]): boolean;
}

// Only the files the jobs read are evicted: the input and the template. Dropping every cache would also make
// node, dist/ and Python's libraries cold, which a user's second job does not see.
const EVICTORS: Evictor[] = [
  {
    name: 'posix_fadvise(POSIX_FADV_DONTNEED) from Python',
    evict: (paths) =>
      run(values.python, [
        '-c',
        'import os, sys\nfor p in sys.argv[1:]:\n' +
          '    fd = os.open(p, os.O_RDONLY)\n    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)\n    os.close(fd)',
        ...paths,
      ]).status === 0,
  },
  {
    name: 'dd iflag=nocache count=0',
    evict: (paths) =>
      paths.every((p) => run('dd', [`if=${p}`, 'iflag=nocache', 'count=0', 'status=none']).status === 0),
  },
  {
    name: 'echo 1 > /proc/sys/vm/drop_caches',
    evict: () => {
      if (process.getuid?.() !== 0) return false;
      run('sync', []);
      try {
        writeFileSync('/proc/sys/vm/drop_caches', '1');
        return true;
      } catch {
        return false;
      }
    },
  },
];

/** Picks the first method that really empties the cache of the input (fincore says so, or a read slows). */
function chooseEvictor(): { evictor: Evictor; check: string } {
  // Dirty pages cannot be evicted: write the input out first (at once when it already is).
  for (const p of [input, template]) {
    const fd = openSync(p, 'r+');
    fsyncSync(fd);
    closeSync(fd);
  }
  const warmRead = () => {
    const t0 = performance.now();
    spawnSync('cat', [input], { stdio: ['ignore', 'ignore', 'ignore'] });
    return (performance.now() - t0) / 1000;
  };
  for (const e of EVICTORS) {
    const warm = warmRead();
    if (!e.evict([input, template])) continue;
    const res = residentBytes(input);
    if (res !== undefined) {
      if (res <= 0.01 * bytes)
        return { evictor: e, check: `fincore: ${(res / MiB).toFixed(1)} MiB resident after it` };
      log(`cold: ${e.name} left ${(res / MiB).toFixed(0)} MiB of the input cached; trying the next method`);
      continue;
    }
    const cold = warmRead();
    if (cold > 1.5 * warm)
      return {
        evictor: e,
        check: `no fincore; a read took ${cold.toFixed(2)} s after it, ${warm.toFixed(2)} s warm`,
      };
    log(
      `cold: after ${e.name} a read took ${cold.toFixed(2)} s, warm ${warm.toFixed(2)} s; trying the next method`,
    );
  }
  return fail(
    '--cold: no method here evicts the input from the page cache (python fadvise, dd nocache, drop_caches)',
  );
}

// ---------------------------------------------------------------------------------------------------
// Cells

type Impl =
  | 'read floor'
  | 'copy floor'
  | 'double copy floor'
  | 'durable copy floor'
  | 'start-up'
  | 'phasor'
  | 'SciPy'
  | 'CuPy';

interface Cell {
  job: Job | 'floor' | 'start-up';
  impl: Impl;
  /** What the table shows in its "run by" column. */
  name: string;
  argv: string[];
  /** Send the command's stdout to /dev/null rather than a pipe (the read floor). */
  discardStdout?: boolean;
  /** Throws when the run's output is missing or wrong. */
  check: (stdout: string) => void;
  outputs: string[];
  times: number[];
  rss: number[];
  failed?: string;
  /** A phasor cell's backend (`auto` for the default row). */
  backend?: string;
  /** A phasor cell run through a standby process (made ready before each run, untimed; by the installed
   * command, or `standby-node` by Node's client), or as a new user runs it (from no standby before its first
   * run); else in a process of its own. */
  setting?: Setting;
}

type Setting = 'standby' | 'standby-node' | 'default';

function checkSize(path: string, expected: number): void {
  if (!existsSync(path)) throw new Error(`${path} was not written`);
  const size = statSync(path).size;
  if (size !== expected) throw new Error(`${path} holds ${size} bytes, expected ${expected}`);
}

/** A .npy of float32 [specFrames, SPEC_FFT], header and size. */
function checkNpy(path: string): void {
  if (!existsSync(path)) throw new Error(`${path} was not written`);
  const head = Buffer.alloc(4096);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  if (head.toString('latin1', 0, 6) !== '\x93NUMPY') throw new Error(`${path} is not a .npy file`);
  const v1 = head[6] === 1;
  const headerBytes = (v1 ? 10 : 12) + (v1 ? head.readUInt16LE(8) : head.readUInt32LE(8));
  const dict = head.toString('latin1', v1 ? 10 : 12, Math.min(headerBytes, head.length));
  if (!dict.includes("'<f4'") || !dict.replace(/\s/g, '').includes(`(${specFrames},${SPEC_FFT})`)) {
    throw new Error(`${path}: header ${dict.trim()}, expected '<f4' of shape (${specFrames}, ${SPEC_FFT})`);
  }
  checkSize(path, headerBytes + 4 * specFrames * SPEC_FFT);
}

function checkCorrelation(stdout: string): void {
  const peaks = JSON.parse(stdout) as { lag: number; score: number }[];
  const best = peaks[0];
  if (!best || best.lag !== templateAt || !(best.score > 0.999)) {
    throw new Error(`the template cut at ${templateAt} was not the best match: ${JSON.stringify(best)}`);
  }
}

function checkPeaks(stdout: string): void {
  const peaks = JSON.parse(stdout) as { frequency: number; level: number }[];
  const tolerance = (3 * RATE) / PEAKS_FFT;
  if (!peaks.some((p) => Math.abs(p.frequency - TONE_HZ) < tolerance)) {
    throw new Error(`no peak within ${tolerance.toFixed(0)} Hz of the ${TONE_HZ.toFixed(0)} Hz tone`);
  }
}

/** Reads `length` bytes of `path` from `position` (fewer at its end). */
function readBytes(path: string, position: number, length: number): Buffer {
  if (!existsSync(path)) throw new Error(`${path} was not written`);
  const buf = Buffer.alloc(length);
  const fd = openSync(path, 'r');
  try {
    return buf.subarray(0, readSync(fd, buf, 0, length, position));
  } finally {
    closeSync(fd);
  }
}

/** A PSD CSV (a header line, '#' comments, `frequency,psd` lines, in fftshift order): PSD_NPERSEG bins
 * whose strongest lies at the 24 kHz tone. */
function checkPsdCsv(path: string): void {
  if (!existsSync(path)) throw new Error(`${path} was not written`);
  const rows = readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => /^[-+\d.]/.test(l))
    .map((l) => l.split(',').map(Number));
  if (rows.length !== PSD_NPERSEG) throw new Error(`${path}: ${rows.length} bins, expected ${PSD_NPERSEG}`);
  let best = 0;
  for (let k = 1; k < rows.length; k++) if (rows[k][1] > rows[best][1]) best = k;
  const tolerance = (2 * RATE) / PSD_NPERSEG;
  if (!(Math.abs(rows[best][0] - TONE_HZ) < tolerance) || !(rows[best][1] > 0)) {
    throw new Error(`${path}: strongest bin at ${rows[best][0]} Hz, not the ${TONE_HZ.toFixed(0)} Hz tone`);
  }
}

/** |mean of x[n]·e^(−2πi f n / fs)| over `n` complex samples of a cf32 buffer: a tone's amplitude. */
function toneAmplitude(iq: Float32Array, f: number, fs: number): number {
  let re = 0;
  let im = 0;
  const n = iq.length / 2;
  for (let i = 0; i < n; i++) {
    const phase = (-2 * Math.PI * f * i) / fs;
    const c = Math.cos(phase);
    const s = Math.sin(phase);
    re += iq[2 * i] * c - iq[2 * i + 1] * s;
    im += iq[2 * i] * s + iq[2 * i + 1] * c;
  }
  return Math.hypot(re, im) / n;
}

/** The extract: ceil(frames / K) cf32 samples (and, for SigMF, its rate in the metadata) holding the
 * 720 kHz tone at EXTRACT_TONE_HZ with its amplitude, and nothing 30 kHz beside it. */
function checkExtract(data: string, meta?: string): void {
  checkSize(data, 8 * extractFrames);
  const rate = RATE / EXTRACT_DECIMATE;
  if (meta !== undefined) {
    if (!existsSync(meta)) throw new Error(`${meta} was not written`);
    const m = JSON.parse(readFileSync(meta, 'utf8')) as { global?: Record<string, unknown> };
    if (m.global?.['core:sample_rate'] !== rate) {
      throw new Error(
        `${meta}: core:sample_rate ${String(m.global?.['core:sample_rate'])}, expected ${rate}`,
      );
    }
  }
  const n = 16384;
  const bytesIn = readBytes(data, 8 * Math.floor(extractFrames / 2), 8 * n);
  const iq = new Float32Array(bytesIn.buffer, bytesIn.byteOffset, bytesIn.length / 4);
  const a = toneAmplitude(iq, EXTRACT_TONE_HZ, rate);
  const off = toneAmplitude(iq, EXTRACT_TONE_HZ + 30e3, rate);
  const want = TONES[1].amplitude;
  if (!(Math.abs(a - want) < 0.1 * want) || !(off < 0.1 * want)) {
    throw new Error(
      `${data}: tone amplitude ${a.toFixed(4)} at ${EXTRACT_TONE_HZ.toFixed(0)} Hz (expected ${want}), ${off.toFixed(4)} 30 kHz beside it`,
    );
  }
}

/** An .npz of scipy.signal.spectrogram's f (bins), t (frames) and Sxx (bins × frames float32), either
 * order: the members' .npy headers, found in the archive's stored (uncompressed) members. */
function checkNpz(path: string): void {
  const total = existsSync(path) ? statSync(path).size : 0;
  const head = readBytes(path, 0, 8 * MiB);
  if (head.readUInt32LE(0) !== 0x04034b50) throw new Error(`${path} is not a ZIP archive`);
  const member = (name: string): { dict: string; data: number } => {
    const at = head.indexOf(`${name}.npy`, 0, 'latin1');
    const magic = at < 0 ? -1 : head.indexOf('\x93NUMPY', at, 'latin1');
    if (magic < 0) throw new Error(`${path}: no member ${name}.npy in its first ${head.length} bytes`);
    const v1 = head[magic + 6] === 1;
    const len = v1 ? head.readUInt16LE(magic + 8) : head.readUInt32LE(magic + 8);
    const start = magic + (v1 ? 10 : 12);
    return { dict: head.toString('latin1', start, start + len).replace(/\s/g, ''), data: start + len };
  };
  const expect = (name: string, descr: string, shape: string) => {
    const m = member(name);
    if (!m.dict.includes(`'descr':'${descr}'`) || !m.dict.includes(`'shape':${shape}`)) {
      throw new Error(`${path}: ${name} has header ${m.dict}, expected '${descr}' of shape ${shape}`);
    }
    return m;
  };
  expect('f', '<f8', `(${SPEC_FFT},)`);
  expect('t', '<f8', `(${specFrames},)`);
  const sxx = expect('Sxx', '<f4', `(${SPEC_FFT},${specFrames})`);
  if (total < sxx.data + 4 * SPEC_FFT * specFrames) {
    throw new Error(`${path}: ${total} bytes, too short for Sxx's ${SPEC_FFT} × ${specFrames} float32`);
  }
}

const raw = ['--format', 'cf32', '--rate', String(RATE)];

/** A phasor job; `js` is another build's CLI entry (--baseline), named as such in the table; `noSync`
 * adds --no-sync (jobs that write a file); `setting` runs it through a standby process (bin/phasor, or
 * Node's client), or as a new user
 * types it (`default`: no --backend, no --no-sync, PHASOR_STANDBY unset). */
function phasorCell(job: Job, backend: string, js?: string, noSync = false, setting?: Setting): Cell {
  const name =
    setting === 'default'
      ? 'phasor (default)'
      : `phasor ${backend}${noSync ? ' --no-sync' : ''}${js === undefined ? '' : ' (baseline)'}${setting === 'standby' ? ' (standby)' : setting === 'standby-node' ? ' (standby, Node client)' : ''}`;
  const base = { job, impl: 'phasor' as const, name, times: [], rss: [], backend, setting };
  const common = [
    ...raw,
    ...(setting === 'default' ? [] : ['--backend', backend]),
    '--json',
    ...(noSync ? ['--no-sync'] : []),
  ];
  // as typed: the installed command; else Node with the CLI's entry (this build's, or the baseline's)
  const typed = setting === 'default' || setting === 'standby';
  // the npz job is the spectrogram command writing an .npz
  const command = job === 'npz' ? 'spectrogram' : job;
  const cli = (args: string[]) =>
    typed
      ? [phasorCommand, command, ...args, ...common]
      : [process.execPath, js ?? phasorJs, command, ...args, ...common];
  switch (job) {
    case 'filter': {
      const out = join(dir, 'files-out.sigmf-data');
      const meta = join(dir, 'files-out.sigmf-meta');
      return {
        ...base,
        argv: cli([input, '--lowpass', String(LOWPASS), '--numtaps', String(NUMTAPS), '-o', out]),
        check: () => {
          checkSize(out, bytes);
          if (!existsSync(meta)) throw new Error(`${meta} was not written`);
        },
        outputs: [out, meta],
      };
    }
    case 'spectrogram': {
      const out = join(dir, 'files-out.npy');
      return {
        ...base,
        argv: cli([input, '--fft', String(SPEC_FFT), '--overlap', String(SPEC_OVERLAP), '-o', out]),
        check: () => checkNpy(out),
        outputs: [out],
      };
    }
    case 'correlate':
      return { ...base, argv: cli([input, template]), check: checkCorrelation, outputs: [] };
    case 'peaks':
      return { ...base, argv: cli([input, '--fft', String(PEAKS_FFT)]), check: checkPeaks, outputs: [] };
    case 'psd': {
      const out = join(dir, 'files-out.csv');
      return {
        ...base,
        argv: cli([input, '--nperseg', String(PSD_NPERSEG), '-o', out]),
        check: () => checkPsdCsv(out),
        outputs: [out],
      };
    }
    case 'extract': {
      const out = join(dir, 'files-extract.sigmf-data');
      const meta = join(dir, 'files-extract.sigmf-meta');
      return {
        ...base,
        argv: cli([
          input,
          '--shift',
          String(EXTRACT_SHIFT),
          '--lowpass',
          String(EXTRACT_LOWPASS),
          '--numtaps',
          String(EXTRACT_NUMTAPS),
          '--decimate',
          String(EXTRACT_DECIMATE),
          '-o',
          out,
        ]),
        check: () => checkExtract(out, meta),
        outputs: [out, meta],
      };
    }
    case 'npz': {
      const out = join(dir, 'files-out.npz');
      return {
        ...base,
        argv: cli([input, '--fft', String(SPEC_FFT), '--overlap', String(SPEC_OVERLAP), '-o', out]),
        check: () => checkNpz(out),
        outputs: [out],
      };
    }
  }
}

function pythonCell(job: Job, lib: 'numpy' | 'cupy'): Cell {
  const impl = lib === 'numpy' ? 'SciPy' : 'CuPy';
  const base = {
    job,
    impl: impl as Impl,
    name: lib === 'numpy' ? 'SciPy script' : 'CuPy script',
    times: [],
    rss: [],
  };
  const py = (args: string[]) => [
    values.python,
    pyScript,
    job,
    '--lib',
    lib,
    '--rate',
    String(RATE),
    '--input',
    input,
    ...args,
  ];
  switch (job) {
    case 'filter': {
      const out = join(dir, 'files-out.cf32');
      return {
        ...base,
        argv: py(['--lowpass', String(LOWPASS), '--numtaps', String(NUMTAPS), '--output', out]),
        check: () => checkSize(out, bytes),
        outputs: [out],
      };
    }
    case 'spectrogram': {
      const out = join(dir, 'files-out.npy');
      return {
        ...base,
        argv: py(['--fft', String(SPEC_FFT), '--overlap', String(SPEC_OVERLAP), '--output', out]),
        check: () => checkNpy(out),
        outputs: [out],
      };
    }
    case 'correlate':
      return { ...base, argv: py(['--template', template]), check: checkCorrelation, outputs: [] };
    case 'peaks':
      return { ...base, argv: py(['--fft', String(PEAKS_FFT)]), check: checkPeaks, outputs: [] };
    case 'psd': {
      const out = join(dir, 'files-out.csv');
      return {
        ...base,
        argv: py(['--fft', String(PSD_NPERSEG), '--output', out]),
        check: () => checkPsdCsv(out),
        outputs: [out],
      };
    }
    case 'extract': {
      const out = join(dir, 'files-extract.cf32');
      return {
        ...base,
        argv: py([
          '--shift',
          String(EXTRACT_SHIFT),
          '--lowpass',
          String(EXTRACT_LOWPASS),
          '--numtaps',
          String(EXTRACT_NUMTAPS),
          '--decimate',
          String(EXTRACT_DECIMATE),
          '--output',
          out,
        ]),
        check: () => checkExtract(out),
        outputs: [out],
      };
    }
    case 'npz': {
      const out = join(dir, 'files-out.npz');
      return {
        ...base,
        argv: py(['--fft', String(SPEC_FFT), '--overlap', String(SPEC_OVERLAP), '--output', out]),
        check: () => checkNpz(out),
        outputs: [out],
      };
    }
  }
}

function floorCells(): Cell[] {
  const copy = join(dir, 'files-copy.cf32');
  return [
    {
      job: 'floor',
      impl: 'read floor',
      name: 'cat IN > /dev/null',
      argv: ['cat', input],
      discardStdout: true,
      check: () => {},
      outputs: [],
      times: [],
      rss: [],
    },
    {
      job: 'floor',
      impl: 'copy floor',
      name: 'cat IN > COPY',
      argv: ['sh', '-c', 'cat "$1" > "$2"', 'sh', input, copy],
      check: () => checkSize(copy, bytes),
      outputs: [copy],
      times: [],
      rss: [],
    },
    // the spectrogram (.npy or .npz) writes twice the input (4096 float32 levels a 1024-sample hop of complex
    // float32): its copy floor reads the input and writes that much
    ...(jobs.includes('spectrogram') || jobs.includes('npz')
      ? [
          {
            job: 'floor' as const,
            impl: 'double copy floor' as const,
            name: 'cat IN IN > COPY',
            argv: ['sh', '-c', 'cat "$1" "$1" > "$2"', 'sh', input, copy],
            check: () => checkSize(copy, 2 * bytes),
            outputs: [copy],
            times: [],
            rss: [],
          },
        ]
      : []),
    {
      // phasor's outputs are fsynced before they are renamed into place (durable once it says "wrote"):
      // the same copy, flushed to the disk, is their floor
      job: 'floor',
      impl: 'durable copy floor',
      name: 'dd IN > COPY, fdatasync',
      argv: ['dd', `if=${input}`, `of=${copy}`, 'bs=8M', 'conv=fdatasync', 'status=none'],
      check: () => checkSize(copy, bytes),
      outputs: [copy],
      times: [],
      rss: [],
    },
  ];
}

/** What every job pays before it reads a sample: starting Node and loading the CLI, importing the libraries. */
function startupCells(): Cell[] {
  const cell = (name: string, argv: string[]): Cell => ({
    job: 'start-up',
    impl: 'start-up',
    name,
    argv,
    check: () => {},
    outputs: [],
    times: [],
    rss: [],
  });
  const cells = [cell('phasor --version', [process.execPath, phasorJs, '--version'])];
  if (python.scipy) {
    cells.push(cell('import numpy, scipy.signal', [values.python, '-c', 'import numpy, scipy.signal']));
  }
  if (python.cupy) {
    cells.push(
      cell('import cupy, cupyx.scipy.signal', [values.python, '-c', 'import cupy, cupyx.scipy.signal']),
    );
  }
  return cells;
}

/** Whether `phasor --backend B` runs here; the reason when it does not. */
function probeBackend(backend: string): string | null {
  const r = run(process.execPath, [
    phasorJs,
    'peaks',
    template,
    ...raw,
    '--fft',
    '256',
    '--backend',
    backend,
    '--json',
  ]);
  if (r.status === 0) return null;
  const why = (r.stderr || String(r.error)).trim().split('\n')[0];
  if (/not available|unknown backend|invalid|choices/i.test(why)) return why;
  return fail(`phasor peaks --backend ${backend} failed on the template: ${why}`);
}

const hasTime = existsSync('/usr/bin/time');
const rssFile = join(dir, 'files-rss.txt');

function standbyCommand(command: 'start' | 'stop'): void {
  const r = spawnSync(process.execPath, [phasorJs, 'standby', command], {
    encoding: 'utf8',
    env: phasorEnv('manual'),
  });
  if (r.status !== 0) throw new Error(`phasor standby ${command}: ${r.stderr.trim()}`);
}

function runCell(cell: Cell, evictor: Evictor | null): void {
  for (const o of cell.outputs) rmSync(o, { force: true });
  // the standby waits, ready (started now if none does), as for a user who has started one
  if (cell.setting === 'standby' || cell.setting === 'standby-node') standbyCommand('start');
  // a new user's first job finds no standby; the later ones find what the jobs before them left
  if (cell.setting === 'default' && cell.times.length === 0) standbyCommand('stop');
  if (evictor && !evictor.evict([input, template])) throw new Error(`${evictor.name} failed`);
  const argv = hasTime ? ['/usr/bin/time', '-f', '%M', '-o', rssFile, ...cell.argv] : cell.argv;
  const t0 = performance.now();
  const r = spawnSync(argv[0], argv.slice(1), {
    encoding: 'utf8',
    maxBuffer: 64 * MiB,
    stdio: ['ignore', cell.discardStdout ? 'ignore' : 'pipe', 'pipe'],
    env: phasorEnv(cell.setting === 'default' ? 'default' : cell.setting === undefined ? 'off' : 'manual'),
  });
  const wall = (performance.now() - t0) / 1000;
  try {
    if (r.error) throw r.error;
    if (r.status !== 0)
      throw new Error(`exit ${r.status}: ${r.stderr.trim().split('\n').slice(-5).join('\n')}`);
    cell.check(r.stdout ?? '');
  } finally {
    for (const o of cell.outputs) rmSync(o, { force: true });
  }
  cell.times.push(wall);
  // through a standby, /usr/bin/time sees the client (a default row's peak is its own-process runs')
  const ownRss = hasTime && (cell.setting === undefined || cell.setting === 'default');
  cell.rss.push(ownRss ? Number(lastLine(readFileSync(rssFile, 'utf8'))) / 1024 : NaN);
}

// ---------------------------------------------------------------------------------------------------
// Statistics and the table

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function fmt(x: number, digits = 2): string {
  return Number.isFinite(x) ? x.toFixed(digits) : '—';
}

/** Seconds: three decimals below 10 s (a floor of a small file takes milliseconds). */
function secs(x: number): string {
  return fmt(x, x < 10 ? 3 : 2);
}

interface Summary {
  job: string;
  runBy: string;
  backend?: string;
  times: number[];
  median: number;
  /** The first run's time (a default row's: from no standby). */
  first: number;
  min: number;
  max: number;
  mbPerS: number;
  msamplesPerS: number;
  peakRssMiB: number;
  xReadFloor: number;
  xCopyFloor: number;
  xDurableFloor: number;
  scipyOverThis: number;
  cupyOverThis: number;
  failed?: string;
}

function summarize(cells: Cell[]): Summary[] {
  const med = (job: string, impl: Impl) => {
    const c = cells.find((x) => x.job === job && x.impl === impl && !x.failed);
    return c && c.times.length ? median(c.times) : NaN;
  };
  const read = med('floor', 'read floor');
  const copy = med('floor', 'copy floor');
  const durable = med('floor', 'durable copy floor');
  const double = med('floor', 'double copy floor');
  return cells.map((c) => {
    const m = c.times.length ? median(c.times) : NaN;
    const isJob = c.job !== 'floor' && c.job !== 'start-up';
    const scipy = c.impl === 'SciPy' || !isJob ? NaN : med(c.job, 'SciPy');
    const cupy = c.impl === 'CuPy' || !isJob ? NaN : med(c.job, 'CuPy');
    // Throughput and ratios to the floors say nothing of a start-up.
    const perInput = c.job === 'start-up' ? NaN : m;
    return {
      job: c.job,
      runBy: c.name,
      ...(c.backend !== undefined ? { backend: c.backend } : {}),
      times: c.times,
      median: m,
      first: c.times.length ? c.times[0] : NaN,
      min: Math.min(...c.times),
      max: Math.max(...c.times),
      mbPerS: bytes / MB / perInput,
      msamplesPerS: frames / MB / perInput,
      peakRssMiB: c.rss.length ? Math.max(...c.rss) : NaN,
      xReadFloor: perInput / read,
      // the spectrogram's output (.npy or .npz) is twice the input: its copy floor writes as much
      xCopyFloor:
        perInput / ((c.job === 'spectrogram' || c.job === 'npz') && Number.isFinite(double) ? double : copy),
      xDurableFloor: perInput / durable,
      scipyOverThis: scipy / m,
      cupyOverThis: cupy / m,
      ...(c.failed ? { failed: c.failed } : {}),
    };
  });
}

function table(rows: Summary[]): string {
  const header = [
    'job',
    'run by',
    'median s',
    'first run s',
    'min–max s',
    'MB/s in',
    'Msamples/s',
    'peak RSS MiB',
    '× read floor',
    '× copy floor',
    '× durable floor',
    'SciPy ÷ this',
    'CuPy ÷ this',
  ];
  const lines = rows.map((r) =>
    r.failed
      ? [r.job, r.runBy, 'failed', '', '', '', '', '', '', '', '', '', '']
      : [
          r.job,
          r.runBy,
          secs(r.median),
          secs(r.first),
          `${secs(r.min)}–${secs(r.max)}`,
          fmt(r.mbPerS, 0),
          fmt(r.msamplesPerS, 1),
          fmt(r.peakRssMiB, 0),
          fmt(r.xReadFloor),
          fmt(r.xCopyFloor),
          fmt(r.xDurableFloor),
          fmt(r.scipyOverThis),
          fmt(r.cupyOverThis),
        ],
  );
  const row = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [row(header), row(header.map(() => '---')), ...lines.map(row)].join('\n');
}

// ---------------------------------------------------------------------------------------------------
// Main

mkdirSync(dir, { recursive: true });
if (!existsSync(phasorJs) || !existsSync(join(root, 'dist'))) fail('build the CLI first: npm run build');
if (!existsSync(input) || statSync(input).size !== bytes) generateInput();
else log(`reusing ${input}`);
writeTemplate();

const scripts = new Set(values.scripts.split(',').filter((x) => x.length > 0));
const machine = describeMachine();
const python = probePython();
const notes = [...python.notes];
const cells: Cell[] = [...floorCells(), ...startupCells()];
const available: string[] = [];
for (const b of backends) {
  const why = probeBackend(b);
  if (why === null) available.push(b);
  else notes.push(`backend ${b} skipped: ${why}`);
}
for (const job of jobs) {
  for (const b of available) {
    if (values.baseline !== undefined) cells.push(phasorCell(job, b, values.baseline));
    cells.push(phasorCell(job, b));
    const writes = job === 'filter' || job === 'spectrogram' || job === 'extract' || job === 'npz';
    if (values['no-sync'] && writes) cells.push(phasorCell(job, b, undefined, true));
    if (values.standby) {
      cells.push(phasorCell(job, b, undefined, values['no-sync'] && writes, 'standby'));
      if (nativeClient) {
        cells.push(phasorCell(job, b, undefined, values['no-sync'] && writes, 'standby-node'));
      }
    }
  }
  if (available.length > 0) cells.push(phasorCell(job, 'auto', undefined, false, 'default'));
  if (python.scipy && scripts.has('scipy')) cells.push(pythonCell(job, 'numpy'));
  if (python.cupy && scripts.has('cupy')) cells.push(pythonCell(job, 'cupy'));
}
if (python.cupy) {
  notes.push(
    'CuPy compiles its kernels on first use and caches them on disk (~/.cupy/kernel_cache): a first run can be slower, which the spread shows',
  );
}
notes.push(
  nativeClient
    ? 'the (default) and (standby) rows run bin/phasor, whose native client reaches the standby without starting Node; "Node client": node bin/phasor.js'
    : 'the native client is not built (node native/client/build.mjs): bin/phasor runs Node',
);
if (!hasTime) notes.push('peak RSS not measured: /usr/bin/time is absent (Debian package "time")');

let evictor: Evictor | null = null;
let cache = 'warm: the input is read once before the first round and stays in the page cache';
if (values.cold) {
  const chosen = chooseEvictor();
  evictor = chosen.evictor;
  cache = `cold: the input and template evicted before every run by ${evictor.name} (${chosen.check})`;
} else {
  spawnSync('cat', [input, template], { stdio: ['ignore', 'ignore', 'ignore'] });
}

/** The cells in the order of one round: a baseline and the build after it swap places every other round,
 * so neither always runs second (in one lease two builds that behave alike read 3–8 % apart when the
 * baseline always went first). */
function roundOrder(round: number): Cell[] {
  const order = [...cells];
  if (round % 2 === 0) {
    for (let i = 0; i + 1 < order.length; i++) {
      if (order[i].name.endsWith('(baseline)') && order[i + 1].job === order[i].job) {
        [order[i], order[i + 1]] = [order[i + 1], order[i]];
        i++;
      }
    }
  }
  return order;
}

function runLogged(cell: Cell, label: string): void {
  try {
    runCell(cell, evictor);
    log(`[${label}] ${cell.job} · ${cell.name}: ${secs(cell.times[cell.times.length - 1])} s`);
  } catch (e) {
    cell.failed = e instanceof Error ? e.message : String(e);
    log(`[${label}] ${cell.job} · ${cell.name}: FAILED\n  ${cell.argv.join(' ')}\n  ${cell.failed}`);
  }
}

const loadStart = loadavg();
for (let round = 1; round <= runs; round++) {
  for (const cell of roundOrder(round)) {
    if (!cell.failed && cell.setting !== 'default') runLogged(cell, `${round}/${runs}`);
  }
}
// a new user's runs one after another, each finding what the runs before it left (another row's standby
// between them would not be theirs): after the rounds, a default row at a time, from no standby
for (const cell of cells.filter((c) => c.setting === 'default')) {
  for (let i = 1; i <= runs && !cell.failed; i++) runLogged(cell, `default ${i}/${runs}`);
}
const loadEnd = loadavg();
// the standby cells' standby, or the one the default rows' jobs left
standbyCommand('stop');

const summary = summarize(cells);
const command = `npx tsx bench/files.ts ${process.argv.slice(2).join(' ')}`.trim();
const settings = [
  `input: ${label} raw cf32 (${frames} complex samples at ${RATE / 1e6} MHz), ${input}`,
  `filter: --lowpass ${LOWPASS / 1e3}k --numtaps ${NUMTAPS} → .sigmf-data (cf32, same size as the input)`,
  `spectrogram: --fft ${SPEC_FFT} --overlap ${SPEC_OVERLAP} → .npy (${specFrames} × ${SPEC_FFT} float32, ${((4 * specFrames * SPEC_FFT) / MiB).toFixed(0)} MiB)`,
  `correlate: a ${TEMPLATE_FRAMES}-sample template cut at sample ${templateAt}; peaks: --fft ${PEAKS_FFT}`,
  `psd: --nperseg ${PSD_NPERSEG} (Hann, half overlap, constant detrend, density) → .csv; the scripts: scipy.signal.welch / cupyx's, np.savetxt`,
  `extract: --shift ${EXTRACT_SHIFT / 1e3}k --lowpass ${EXTRACT_LOWPASS / 1e3}k --numtaps ${EXTRACT_NUMTAPS} --decimate ${EXTRACT_DECIMATE} → .sigmf-data (${extractFrames} cf32 at ${RATE / EXTRACT_DECIMATE / 1e3} kHz, ${((8 * extractFrames) / MiB).toFixed(0)} MiB); the scripts: mix, oaconvolve(firwin, 'same'), [::${EXTRACT_DECIMATE}], tofile`,
  `npz: spectrogram --fft ${SPEC_FFT} --overlap ${SPEC_OVERLAP} → .npz of f, t, Sxx (${SPEC_FFT} × ${specFrames} float32, density); the scripts: scipy.signal.spectrogram, np.savez`,
];
const out = [
  `Whole-file jobs, ${runs} run${runs === 1 ? '' : 's'} each, round-robin (bench/files.ts)`,
  '',
  `- command: \`${command}\``,
  ...Object.entries(machine).map(([k, v]) => `- ${k}: ${v}`),
  `- Python: ${[python.scipy, python.cupy].filter((x) => x !== null).join(', ') || 'absent'}`,
  `- load average (1 min) at start ${loadStart[0].toFixed(2)}, at end ${loadEnd[0].toFixed(2)}`,
  `- cache: ${cache}`,
  ...settings.map((s) => `- ${s}`),
  ...notes.map((n) => `- ${n}`),
  '',
  table(summary),
  '',
  'Wall time of the whole process (spawned, medians); MB/s and Msamples/s of input; peak RSS of the process',
  "(GNU time); × floor: median ÷ the floor's median (1.00 = at the floor; the durable floor is the copy",
  'flushed to the disk, as phasor flushes its outputs before renaming them unless --no-sync; the scripts',
  'do not); SciPy ÷ this: how many times faster than the SciPy script (above 1: faster), CuPy ÷ this',
  'likewise. Start-up rows: what each process of that kind spends before it reads a sample (included in',
  'every job row). The spectrogram (and npz) writes twice its input: its × copy floor is over',
  '`cat IN IN > COPY`.',
  'phasor (default): the job as a new user types it (no --backend, PHASOR_STANDBY unset), its runs in a',
  'row after the rounds; the first starts from no standby, and a job on CUDA leaves one that the later',
  "runs use. First run s: each row's first run. Other phasor rows run with PHASOR_STANDBY=off unless",
  'marked (standby).',
];
console.log(out.join('\n'));

if (values.json) {
  writeFileSync(
    values.json,
    JSON.stringify(
      { machine, python, command, cache, settings, notes, loadStart, loadEnd, cells: summary },
      null,
      2,
    ),
  );
}
rmSync(rssFile, { force: true });
if (cells.some((c) => c.failed)) {
  log(
    `failed: ${cells
      .filter((c) => c.failed)
      .map((c) => `${c.job} · ${c.name}`)
      .join(', ')}`,
  );
  process.exit(1);
}
