// A multi-GB recording through the offline views' protocol, in one process, with memory measured per step.
//
//   npx tsx bench/big-file.ts [--gib 4] [--dir /tmp/phasor-bench] [--rate 10e6] [--keep]
//
// Writes (once; reused while its size matches) a raw cf32 file of complex noise plus a steady tone and a
// burst tone in one stretch (never zeros), then, through createEngineConnection exactly as the app's views
// do: opens it, computes the whole-file spectrogram, zooms into the burst's time range and band, reads a
// selection for playback, correlates the whole file against a selection of it, and low-pass filters it to a
// new file. Per step it prints the wall time, the peak of process.memoryUsage() sampled every 50 ms (RSS,
// array buffers) and the process's maxRSS so far (getrusage), then one JSON line with everything.

import { existsSync, mkdirSync, openSync, closeSync, writeSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createEngineConnection } from '../electron/engine/live/connection.js';
import { Engine } from '../electron/engine/live/engine.js';
import type { ProgressEvent, ServerMessage } from '../electron/engine/protocol/messages.js';
import { decodeBinary } from '../electron/engine/protocol/rows-codec.js';

const { values } = parseArgs({
  options: {
    gib: { type: 'string', default: '4' },
    dir: { type: 'string', default: '/tmp/phasor-bench' },
    rate: { type: 'string', default: '10e6' },
    keep: { type: 'boolean', default: false },
  },
});
const RATE = Number(values.rate);
const CENTER = 100e6;
const TONE = 2.5e6; // offset of the steady tone
const BURST = 1.25e6; // offset of the burst, present in [0.40, 0.41) of the file
const bytes = Math.round(Number(values.gib) * 2 ** 30);
const frames = Math.floor(bytes / 8);
const burstStart = Math.floor(0.4 * frames);
const burstEnd = Math.floor(0.41 * frames);
mkdirSync(values.dir, { recursive: true });
const input = join(values.dir, `big-${values.gib}g.cf32`);
const output = join(values.dir, `big-${values.gib}g-lowpass.sigmf-data`);

const MiB = 2 ** 20;

function writeInput(): number {
  const t0 = performance.now();
  const fd = openSync(input, 'w');
  const chunk = 1 << 20;
  const buf = new Float32Array(2 * chunk);
  let s = 0x9e3779b9;
  // Oscillators by complex rotation, re-seeded exactly per chunk (no drift, no trig per sample).
  for (let start = 0; start < frames; start += chunk) {
    const n = Math.min(chunk, frames - start);
    const osc = (f: number) => {
      const w = (2 * Math.PI * f) / RATE;
      const p = (w * start) % (2 * Math.PI);
      return { re: Math.cos(p), im: Math.sin(p), cr: Math.cos(w), ci: Math.sin(w) };
    };
    const a = osc(TONE);
    const b = osc(BURST);
    for (let i = 0; i < n; i++) {
      s ^= s << 13;
      s >>>= 0;
      s ^= s >>> 17;
      s ^= s << 5;
      s >>>= 0;
      const nr = (s & 0xffff) / 65536 - 0.5;
      const ni = (s >>> 16) / 65536 - 0.5;
      const f = start + i;
      const burst = f >= burstStart && f < burstEnd ? 0.3 : 0;
      buf[2 * i] = 0.4 * a.re + burst * b.re + 0.05 * nr;
      buf[2 * i + 1] = 0.4 * a.im + burst * b.im + 0.05 * ni;
      let t = a.re * a.cr - a.im * a.ci;
      a.im = a.re * a.ci + a.im * a.cr;
      a.re = t;
      t = b.re * b.cr - b.im * b.ci;
      b.im = b.re * b.ci + b.im * b.cr;
      b.re = t;
    }
    writeSync(fd, new Uint8Array(buf.buffer, 0, 8 * n));
  }
  closeSync(fd);
  return (performance.now() - t0) / 1000;
}

let written: number | null = null;
if (!existsSync(input) || statSync(input).size !== frames * 8) written = writeInput();

// The in-process connection, as the app's views use it.
const engine = new Engine();
const replies = new Map<
  number,
  { ok: boolean; result?: unknown; error?: { code: string; message: string } }
>();
const waiting = new Map<number, () => void>();
let lastProgress: ProgressEvent | null = null;
const conn = createEngineConnection((m: ServerMessage | ArrayBuffer) => {
  let id: number;
  if (m instanceof ArrayBuffer) {
    const b = decodeBinary(m);
    if (b.kind !== 'reply') return;
    id = b.id;
    replies.set(id, { ok: true, result: b.result });
  } else if (m.type === 'reply') {
    id = m.id;
    replies.set(id, m.ok ? { ok: true, result: m.result } : { ok: false, error: m.error });
  } else {
    if (m.event === 'progress') lastProgress = m.data;
    return;
  }
  waiting.get(id)?.();
});
let nextId = 1;
function call<T>(method: string, params: unknown): Promise<T> {
  const id = nextId++;
  return new Promise<T>((resolve, reject) => {
    waiting.set(id, () => {
      const r = replies.get(id)!;
      replies.delete(id);
      waiting.delete(id);
      if (r.ok) resolve(r.result as T);
      else reject(new Error(`${method}: ${r.error?.code}: ${r.error?.message}`));
    });
    conn.receive({ type: 'request', id, method, params });
  });
}

interface StepFigures {
  step: string;
  seconds: number;
  peakRssMiB: number;
  peakArrayBuffersMiB: number;
  startArrayBuffersMiB: number;
  endArrayBuffersMiB: number;
  maxRssSoFarMiB: number;
  note: string;
}
const steps: StepFigures[] = [];

async function step<T>(name: string, run: () => Promise<T>, note: (r: T, s: number) => string): Promise<T> {
  let peakRss = 0;
  let peakAb = 0;
  const sample = () => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakAb = Math.max(peakAb, m.arrayBuffers);
  };
  sample();
  const startAb = process.memoryUsage().arrayBuffers;
  const timer = setInterval(sample, 50);
  const t0 = performance.now();
  let r: T;
  try {
    r = await run();
  } finally {
    clearInterval(timer);
  }
  const seconds = (performance.now() - t0) / 1000;
  sample();
  const figures: StepFigures = {
    step: name,
    seconds,
    peakRssMiB: peakRss / MiB,
    peakArrayBuffersMiB: peakAb / MiB,
    startArrayBuffersMiB: startAb / MiB,
    endArrayBuffersMiB: process.memoryUsage().arrayBuffers / MiB,
    maxRssSoFarMiB: process.resourceUsage().maxRSS / 1024,
    note: note(r, seconds),
  };
  steps.push(figures);
  process.stderr.write(
    `${name}: ${seconds.toFixed(1)} s, peak RSS ${figures.peakRssMiB.toFixed(0)} MiB, ` +
      `array buffers ≤ ${figures.peakArrayBuffersMiB.toFixed(0)} MiB — ${figures.note}\n`,
  );
  return r;
}

type Info = { file: number; samples: number; bytes: number };
type Image = { fft: number; hop: number; frames: number; width: number; height: number; data: Float32Array };

function brightestRow(img: Image): number {
  let best = -Infinity;
  let row = -1;
  for (let i = 0; i < img.data.length; i++)
    if (img.data[i] > best) {
      best = img.data[i];
      row = Math.floor(i / img.width);
    }
  return row;
}

try {
  const backend = await engine.backend();
  process.stderr.write(`backend: ${backend.device}\n`);
  const info = await step(
    'open',
    () => call<Info>('openFile', { path: input, format: 'cf32', rate: RATE, center: CENTER }),
    (r) => `${r.samples} frames, ${(r.bytes / 2 ** 30).toFixed(2)} GiB`,
  );
  await step(
    'whole-file spectrogram 1600×800',
    () => call<Image>('fileSpectrogram', { file: info.file, width: 1600, height: 800 }),
    (r, s) =>
      `fft ${r.fft}, ${r.frames} frames, ${(info.samples / s / 1e6).toFixed(1)} Msamples/s; tone row ${brightestRow(r)} (expected ${Math.ceil(((RATE / 2 - TONE) / RATE) * 800) - 1})`,
  );
  const band: [number, number] = [CENTER + BURST - 250e3, CENTER + BURST + 250e3];
  await step(
    'zoom: 1 % of the time, 500 kHz band',
    () =>
      call<Image>('fileSpectrogram', {
        file: info.file,
        start: burstStart,
        end: burstEnd,
        fLow: band[0],
        fHigh: band[1],
        width: 1600,
        height: 800,
      }),
    (r) =>
      `fft ${r.fft} (${((RATE / r.fft) * 1).toFixed(0)} Hz bins), ${r.frames} frames; burst row ${brightestRow(r)} (expected 399)`,
  );
  await step(
    'read a selection (2^23 values) for playback',
    () =>
      call<{ frames: number; data: Float32Array }>('readSamples', {
        file: info.file,
        start: burstStart,
        end: burstStart + (1 << 22),
      }),
    (r) => `${r.frames} frames`,
  );
  await step(
    'correlate the whole file against a 4096-frame selection',
    () =>
      call<{ peaks: Array<{ lag: number; score: number }>; points: number; bucket: number }>('correlate', {
        signal: info.file,
        template: { file: info.file, start: burstStart + 1000, end: burstStart + 1000 + 4096 },
        points: 4096,
      }),
    (r, s) =>
      `best lag ${r.peaks[0]?.lag} (planted ${burstStart + 1000}), score ${r.peaks[0]?.score.toFixed(4)}, ${r.points} points × ${r.bucket} lags, ${(info.samples / s / 1e6).toFixed(1)} Msamples/s`,
  );
  const design = await call<{ taps: number[]; numtaps: number }>('designFilter', {
    kind: 'lowpass',
    cutoff: 1e6,
    fs: RATE,
    ripple: 60,
    width: 200e3,
  });
  await step(
    `low-pass filter (${design.numtaps} taps) to a new file`,
    () =>
      call<{ frames: number; method: string; seconds: number }>('applyFilter', {
        file: info.file,
        output,
        taps: design.taps,
      }),
    (r, s) => `${r.frames} frames, ${r.method}, ${(info.samples / s / 1e6).toFixed(1)} Msamples/s`,
  );
  void lastProgress;
} finally {
  conn.close();
  await engine.dispose();
  if (!values.keep) {
    rmSync(output, { force: true });
    rmSync(output.replace(/\.sigmf-data$/, '.sigmf-meta'), { force: true });
  }
}

const header = [
  'step',
  'wall s',
  'peak RSS MiB',
  'arrayBuffers before / peak / after MiB',
  'maxRSS so far MiB',
  'result',
];
const rows = steps.map((s) => [
  s.step,
  s.seconds.toFixed(1),
  s.peakRssMiB.toFixed(0),
  `${s.startArrayBuffersMiB.toFixed(0)} / ${s.peakArrayBuffersMiB.toFixed(0)} / ${s.endArrayBuffersMiB.toFixed(0)}`,
  s.maxRssSoFarMiB.toFixed(0),
  s.note,
]);
console.log(
  `phasor offline views on ${values.gib} GiB cf32 (${frames} complex samples at ${RATE} Hz), ${new Date().toISOString()}` +
    (written !== null ? ` — file written in ${written.toFixed(0)} s` : ''),
);
console.log(`| ${header.join(' | ')} |`);
console.log(`| ${header.map(() => '---').join(' | ')} |`);
for (const r of rows) console.log(`| ${r.join(' | ')} |`);
console.log(JSON.stringify({ gib: Number(values.gib), frames, rate: RATE, steps }));
