// A live session on the rtl_tcp source, as the app's live view runs it: a server that stalls or drops the
// connection must not freeze the session (status events keep coming, saying the link is reconnecting),
// rows resume once the stream is back, and memory stays bounded meanwhile.
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import { createCpuBackend } from '../../electron/engine/backends/cpu/index.js';
import type { Backend } from '../../electron/engine/backends/backend.js';
import { LiveSession } from '../../electron/engine/live/session.js';
import { defaultAnalysis, type StatusEvent } from '../../electron/engine/protocol/messages.js';
import { openRtlTcp } from '../../electron/engine/sources/rtltcp.js';
import { startFakeRtlTcp, type FakeRtlTcp } from '../support/fake-rtltcp.js';
import { CollectingSink, until } from './helpers.js';

let backend: Backend;
beforeAll(async () => {
  backend = await createCpuBackend({ threads: 0 });
});
afterAll(async () => {
  await backend.dispose();
});
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const RATE = 1_024_000;

async function session(f: FakeRtlTcp): Promise<{ s: LiveSession; sink: CollectingSink }> {
  const source = await openRtlTcp({
    host: f.host,
    port: f.port,
    centerFrequency: 100e6,
    sampleRate: RATE,
    stallMs: 300,
    reconnectDelayMs: 20,
  });
  const sink = new CollectingSink();
  const s = new LiveSession({
    id: 1,
    backend,
    source,
    analysis: defaultAnalysis,
    sink,
    statusIntervalMs: 100,
    peaks: false,
  });
  sink.onRows = (m) => s.ack(m.seq);
  s.start();
  cleanups.push(() => s.stop());
  return { s, sink };
}

function statuses(sink: CollectingSink): StatusEvent[] {
  return sink.events.filter((e) => e.event === 'status').map((e) => e.data as StatusEvent);
}

describe('a live session on rtl_tcp', () => {
  it('keeps reporting through a stalled server, says it is reconnecting, and resumes its rows', async () => {
    const f = await startFakeRtlTcp({ centerFrequency: 100e6, sampleRate: RATE });
    cleanups.push(() => f.close());
    const { sink } = await session(f);
    await until(() => sink.messages.length > 20, 10_000, 'rows before the stall');
    expect(statuses(sink).at(-1)?.link?.state).toBe('connected');

    f.stall(true);
    const rss0 = process.memoryUsage().rss;
    await until(
      () => statuses(sink).some((e) => e.link?.state === 'reconnecting'),
      10_000,
      'a status event saying the link is reconnecting',
    );
    // Still stalled (every new connection stalls too): the session goes on reporting, rows stop.
    const during = statuses(sink).length;
    await new Promise((r) => setTimeout(r, 600));
    expect(statuses(sink).length).toBeGreaterThan(during + 2);
    expect(sink.sourceEvents().filter((e) => e.state !== 'running')).toEqual([]);
    const rowsDuring = sink.messages.length;

    f.stall(false);
    await until(() => sink.messages.length > rowsDuring + 20, 10_000, 'rows after the stall');
    await until(() => statuses(sink).at(-1)?.link?.state === 'connected', 10_000, 'connected again');
    const last = statuses(sink).at(-1)!;
    expect(last.link!.reconnects).toBeGreaterThanOrEqual(1);
    expect(process.memoryUsage().rss - rss0).toBeLessThan(100e6);
  });

  it('survives the server dropping the connection: reconnects counted, rows go on', async () => {
    const f = await startFakeRtlTcp({ centerFrequency: 100e6, sampleRate: RATE, dropAfter: 2 * RATE });
    cleanups.push(() => f.close());
    const { sink } = await session(f);
    await until(() => f.connections >= 2, 10_000, 'a second connection');
    const rows = sink.messages.length;
    await until(() => sink.messages.length > rows + 20, 10_000, 'rows after the reconnect');
    await until(() => (statuses(sink).at(-1)?.link?.reconnects ?? 0) >= 1, 5_000, 'the reconnect counted');
    expect(sink.sourceEvents().filter((e) => e.state !== 'running')).toEqual([]);
  });
});
