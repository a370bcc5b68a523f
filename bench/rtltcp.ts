// The rtl_tcp source's throughput and memory, against the fake rtl_tcp server (test/support/fake-rtltcp.ts)
// run in child processes so it does not share this event loop:
//   (a) the ceiling: the fake unpaced (as fast as the socket drains) → RtlTcpSource → a LiveSession on
//       the CPU backend with the default analysis and a display that acknowledges at once; and the
//       source alone (blocks pulled, nothing done with them). Median of `--runs` runs × `--ceiling` s.
//   (b) real time: the fake paced at `--rate` for `--seconds`: dropped samples, blocks, RSS.
//   (c) the highest real-time rate: the fake paced at `--sweep` rates (default 3.2 to 51.2 Msamples/s,
//       doubling) for `--ceiling` s each into a LiveSession: the share analysed and the frames dropped.
//       Flooding the socket (a) measures the reading, not the pipeline: the event loop is kept busy with
//       bytes it then drops, so (c) is the figure for "how fast a stream can the live view keep up with".
//
//   npx tsx bench/rtltcp.ts [--seconds 30] [--rate 3.2e6] [--ceiling 5] [--runs 3] [--sweep 3.2e6,6.4e6]

import { spawn, type ChildProcess } from 'node:child_process';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { createCpuBackend } from '../electron/engine/backends/cpu/index.js';
import type { Backend } from '../electron/engine/backends/backend.js';
import { LiveSession } from '../electron/engine/live/session.js';
import { defaultAnalysis } from '../electron/engine/protocol/messages.js';
import { openRtlTcp, type RtlTcpSource } from '../electron/engine/sources/rtltcp.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '30' },
    rate: { type: 'string', default: '3.2e6' },
    ceiling: { type: 'string', default: '5' },
    runs: { type: 'string', default: '3' },
    sweep: { type: 'string', default: '3.2e6,6.4e6,12.8e6,25.6e6,51.2e6' },
  },
});
const seconds = Number(values.seconds);
const rate = Math.round(Number(values.rate));
const ceilingS = Number(values.ceiling);
const runs = Number(values.runs);
if (!(seconds > 0) || !(rate > 0) || !(ceilingS > 0) || !(runs >= 1)) {
  throw new Error('--seconds, --rate, --ceiling > 0 and --runs ≥ 1');
}

const fakeScript = new URL('../test/support/fake-rtltcp.ts', import.meta.url).pathname;
const children: ChildProcess[] = [];

/** A fake rtl_tcp server in its own process; resolves with its port. */
async function startFake(paced: boolean, at = rate): Promise<number> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fakeScript, '--rate', String(at), ...(paced ? [] : ['--unpaced'])],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n');
      if (line.length > 1) resolve(Number(line[0]));
    });
    child.once('exit', (code) => reject(new Error(`the fake rtl_tcp exited (${code})`)));
  });
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mib = (bytes: number): string => (bytes / 2 ** 20).toFixed(0);

function open(port: number, at: number): Promise<RtlTcpSource> {
  return openRtlTcp({ host: '127.0.0.1', port, centerFrequency: 100e6, sampleRate: at });
}

interface Run {
  /** Frames that reached the source (taken + dropped + still queued). */
  received: number;
  /** Frames the consumer took. */
  taken: number;
  dropped: number;
  blocks: number;
  rssStart: number;
  rssPeak: number;
  rssEnd: number;
  reconnects: number;
}

/** Streams for `s` seconds into a LiveSession (analyse) or a loop that only pulls (source alone). */
async function stream(port: number, s: number, analyse: boolean, backend: Backend, at = rate): Promise<Run> {
  const rssStart = process.memoryUsage().rss;
  let rssPeak = rssStart;
  const src = await open(port, at);
  let taken = 0;
  let blocks = 0;
  let session: LiveSession | null = null;
  let pulling: Promise<void> | null = null;
  const stop = new AbortController();
  if (analyse) {
    session = new LiveSession({
      id: 1,
      backend,
      source: src,
      analysis: defaultAnalysis,
      peaks: false,
      sink: {
        rows: (m) => session!.ack(m.seq),
        event: () => undefined,
      },
    });
    session.start();
  } else {
    pulling = (async () => {
      for await (const b of src.blocks({ raw: true, signal: stop.signal })) {
        taken += b.frames;
        blocks++;
      }
    })();
  }
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 100);
  await sleep(s * 1000);
  clearInterval(sampler);
  const dropped = src.droppedSamples;
  const queued = src.queuedFrames;
  const reconnects = src.link().reconnects;
  if (session) {
    const st = session.stats();
    taken = st.frames;
    blocks = st.blocks;
    await session.stop();
  } else {
    stop.abort();
    await pulling;
    await src.close();
  }
  return {
    received: taken + dropped + queued,
    taken,
    dropped,
    blocks,
    rssStart,
    rssPeak,
    rssEnd: process.memoryUsage().rss,
    reconnects,
  };
}

try {
  const backend = await createCpuBackend();
  console.log(
    `rtl_tcp bench: ${cpus().length} × ${cpus()[0]?.model ?? '?'}, Node ${process.version}, rate ${rate / 1e6} Msamples/s`,
  );

  // (a) the ceiling
  const unpaced = await startFake(false);
  console.log(`\n(a) ceiling, fake unpaced, median of ${runs} × ${ceilingS} s`);
  console.log('consumer              received Ms/s   taken Ms/s   dropped frames');
  for (const analyse of [false, true]) {
    const got: Run[] = [];
    for (let i = 0; i < runs; i++) got.push(await stream(unpaced, ceilingS, analyse, backend));
    const name = analyse ? 'LiveSession (CPU)' : 'source alone';
    const rx = median(got.map((r) => r.received / ceilingS / 1e6));
    const tk = median(got.map((r) => r.taken / ceilingS / 1e6));
    const dr = median(got.map((r) => r.dropped));
    console.log(
      `${name.padEnd(20)}  ${rx.toFixed(2).padStart(13)}  ${tk.toFixed(2).padStart(11)}  ${String(dr).padStart(15)}`,
    );
  }

  // (b) real time
  const paced = await startFake(true);
  console.log(
    `\n(b) real time, fake paced at ${rate / 1e6} Msamples/s for ${seconds} s into a LiveSession (CPU)`,
  );
  const r = await stream(paced, seconds, true, backend);
  console.log('frames taken   dropped frames   blocks   reconnects   RSS start / peak / end (MiB)');
  console.log(
    `${String(r.taken).padStart(12)}   ${String(r.dropped).padStart(14)}   ${String(r.blocks).padStart(6)}   ${String(r.reconnects).padStart(10)}   ${mib(r.rssStart)} / ${mib(r.rssPeak)} / ${mib(r.rssEnd)}`,
  );
  console.log(
    `expected frames ≈ ${Math.round(rate * seconds)} (${((r.taken / (rate * seconds)) * 100).toFixed(1)} % taken)`,
  );

  // (c) the highest real-time rate
  console.log(`\n(c) real time at rising rates, ${ceilingS} s each, into a LiveSession (CPU)`);
  console.log('rate Ms/s   taken Ms/s   taken %   dropped frames');
  for (const at of values.sweep.split(',').map(Number)) {
    const port = await startFake(true, at);
    const c = await stream(port, ceilingS, true, backend, at);
    children.pop()?.kill('SIGTERM');
    console.log(
      `${(at / 1e6).toFixed(1).padStart(9)}   ${(c.taken / ceilingS / 1e6).toFixed(2).padStart(10)}   ${((c.taken / (at * ceilingS)) * 100).toFixed(1).padStart(7)}   ${String(c.dropped).padStart(14)}`,
    );
  }
  await backend.dispose();
} finally {
  for (const c of children) c.kill('SIGTERM');
}
