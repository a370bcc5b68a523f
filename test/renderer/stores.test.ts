// @vitest-environment happy-dom
import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Analysis } from '../../electron/engine/protocol/messages.js';
import { hooks } from '../../renderer/src/lib/hooks.js';
import { useConnectionStore } from '../../renderer/src/stores/connection.js';
import { useLiveStore } from '../../renderer/src/stores/live.js';
import { useSettingsStore } from '../../renderer/src/stores/settings.js';
import { useStatusStore } from '../../renderer/src/stores/status.js';
import { useViewportStore } from '../../renderer/src/stores/viewport.js';
import { RequestError } from '../../renderer/src/transport/connection.js';
import { FakeConnection, helloResult, liveInfo, rowsMessage, settle } from './fake-connection.js';

async function setup(conn = new FakeConnection()) {
  const live = useLiveStore();
  const status = useStatusStore();
  const connection = useConnectionStore();
  await connection.attach(conn);
  await settle();
  return { conn, live, status, connection, settings: useSettingsStore() };
}

beforeEach(() => {
  localStorage.clear();
  setActivePinia(createPinia());
  hooks.reset();
});

describe('connection store', () => {
  it('greets the engine and exposes what it offers', async () => {
    const { connection, conn } = await setup();
    expect(conn.methods()[0]).toBe('hello');
    expect(connection.ready).toBe(true);
    expect(connection.sources.map((k) => k.kind)).toEqual(['generator', 'mic']);
    expect(connection.windows).toContain('kaiser');
    expect(connection.epoch).toBe(1);
    expect(hooks.requests[0]).toMatchObject({ method: 'hello', ok: true });
  });

  it('greets again after a reconnection, and shows the state meanwhile', async () => {
    const { connection, conn, live } = await setup();
    conn.setState('reconnecting', 'connection to the engine lost; reconnecting…');
    expect(connection.state).toBe('reconnecting');
    expect(connection.detail).toMatch(/reconnecting/);
    conn.setState('open');
    await settle();
    expect(connection.epoch).toBe(2);
    // It was running, so it starts again.
    expect(conn.methods().filter((m) => m === 'start')).toHaveLength(2);
    expect(live.sourceState).toBe('running');
  });
});

describe('live store', () => {
  it('starts the engine’s default source with the saved analysis on hello', async () => {
    const { conn, live } = await setup();
    const start = conn.last('start')!;
    // hello's default source fills in what the user never set (frequency 1500), fields give the rest.
    expect(start.source).toEqual({ kind: 'generator', signal: 'tone', frequency: 1500, sampleRate: 48000 });
    expect(start.analysis).toMatchObject({ fft: 2048, overlap: 0.75, window: 'hann', averaging: 0.1 });
    expect(live.sourceState).toBe('running');
    expect(live.info?.session).toBe(1);
    expect(hooks.info?.session).toBe(1);
  });

  it('starts with the user’s stored parameters for the kind', async () => {
    localStorage.setItem(
      'phasor.settings',
      JSON.stringify({
        version: 1,
        settings: {
          fft: 4000,
          sourceKind: 'generator',
          sourceParams: { generator: { frequency: 440, signal: 'chirp' } },
        },
      }),
    );
    const { conn } = await setup();
    const start = conn.last('start')!;
    expect(start.source).toEqual({ kind: 'generator', signal: 'chirp', frequency: 440, sampleRate: 48000 });
    expect((start.analysis as Analysis).fft).toBe(4000);
  });

  it('acknowledges rows at once while no waterfall draws them, and updates the traces', async () => {
    const { conn, live } = await setup();
    conn.pushRows(rowsMessage(1, 0, 3, 1025));
    expect(conn.acks).toEqual([{ session: 1, seq: 0 }]);
    expect(live.traces.width).toBe(1025);
    // current = the message's last row (row 2): −20 − c/10 − 2
    expect(live.traces.current[10]).toBeCloseTo(-23, 5);
    expect(live.traces.average[10]).toBeCloseTo(-30.5, 5);
    expect(live.traces.peak[30]).toBeCloseTo(-11, 5);
    expect(hooks.rowsReceived).toBe(3);
  });

  it('hands rows to the waterfall as they arrive and acknowledges each after', async () => {
    const { conn, live } = await setup();
    const seen: string[] = [];
    const release = live.setSink((m) => {
      seen.push(`${m.seq}`);
      expect(conn.acks.some((a) => a.seq === m.seq)).toBe(false); // acked only after the sink took it
    });
    conn.pushRows(rowsMessage(1, 0, 2, 1025));
    conn.pushRows(rowsMessage(1, 1, 2, 1025));
    expect(seen).toEqual(['0', '1']);
    expect(conn.acks).toEqual([
      { session: 1, seq: 0 },
      { session: 1, seq: 1 },
    ]);
    release(); // the waterfall goes away: rows are still acknowledged
    conn.pushRows(rowsMessage(1, 2, 2, 1025));
    expect(seen).toEqual(['0', '1']);
    expect(conn.acks.at(-1)).toEqual({ session: 1, seq: 2 });
  });

  it('acknowledges a message even when drawing it fails', async () => {
    const { conn, live } = await setup();
    live.setSink(() => {
      throw new Error('context lost');
    });
    expect(() => conn.pushRows(rowsMessage(1, 0, 1, 1025))).toThrow('context lost');
    expect(conn.acks).toEqual([{ session: 1, seq: 0 }]);
  });

  it('consumes rows without drawing while paused, from another session, or of another width', async () => {
    const { conn, live } = await setup();
    const drawn: number[] = [];
    live.setSink((m) => drawn.push(m.seq));
    conn.pushRows(rowsMessage(7, 0, 1, 1025)); // another session
    conn.pushRows(rowsMessage(1, 1, 1, 512)); // a width the session no longer has
    live.setPaused(true);
    conn.pushRows(rowsMessage(1, 2, 1, 1025));
    expect(drawn).toEqual([]);
    expect(conn.acks.map((a) => a.seq)).toEqual([0, 1, 2]);
    expect(hooks.rowsDiscarded).toBe(3);
    live.setPaused(false);
    conn.pushRows(rowsMessage(1, 3, 1, 1025));
    expect(drawn).toEqual([3]);
  });

  it('sends analysis changes to the running session, and restores them when the engine refuses', async () => {
    const { conn, live, settings } = await setup();
    await live.setAnalysis({ fft: 3000 });
    expect(conn.last('configure')).toEqual({ analysis: { fft: 3000 } });
    expect(settings.s.fft).toBe(3000);
    expect(live.info?.fft).toBe(3000);
    conn.handle('configure', () => {
      throw new RequestError('invalid-argument', 'unknown window "tukey"');
    });
    await live.setAnalysis({ window: 'tukey' });
    expect(settings.s.window).toBe('hann');
    expect(live.lastError).toMatch(/tukey/);
  });

  it('asks for as many columns as the waterfall has pixels, once per change', async () => {
    const { conn, live } = await setup();
    await live.setColumns(1733.4);
    await live.setColumns(1733);
    expect(conn.requests.filter((r) => r.method === 'configure')).toEqual([
      { method: 'configure', params: { analysis: { columns: 1733 } } },
    ]);
    expect(live.analysis().columns).toBe(1733);
  });

  it('sends the columns the display measured while the session was starting, once it runs', async () => {
    // The first start (on hello) is on its way when the waterfall measures its width (the page mounting).
    const conn = new FakeConnection();
    let answer!: () => void;
    conn.handle(
      'start',
      (p) =>
        new Promise((done) => (answer = () => done(liveInfo({ session: 1, width: p.analysis.columns })))),
    );
    conn.handle('configure', (p) => liveInfo({ session: 1, width: p.analysis.columns }));
    const { live } = await setup(conn);
    expect(live.sourceState).toBe('starting');
    expect(conn.last('start')!.analysis.columns).toBe(2048);
    await live.setColumns(956);
    expect(conn.methods()).not.toContain('configure');
    answer();
    await settle();
    expect(conn.requests.filter((r) => r.method === 'configure')).toEqual([
      { method: 'configure', params: { analysis: { columns: 956 } } },
    ]);
    expect(live.info).toMatchObject({ session: 1, width: 956 });
    // Nothing changed during the next start: nothing more is sent.
    conn.handle('start', (p) => liveInfo({ session: 2, width: p.analysis.columns }));
    await live.start();
    expect(conn.methods().filter((m) => m === 'configure')).toHaveLength(1);
    expect(live.info).toMatchObject({ session: 2, width: 956 });
  });

  it('shows a source that fails to start, or fails later (device unplugged), as an error', async () => {
    const conn = new FakeConnection();
    conn.handle('start', () => {
      throw new RequestError('io', 'mic: no input device');
    });
    const { live } = await setup(conn);
    expect(live.sourceState).toBe('error');
    expect(live.sourceMessage).toBe('mic: no input device');

    conn.handle('start', () => liveInfo({ session: 2 }));
    await live.start();
    expect(live.sourceState).toBe('running');
    conn.emit('source', { session: 2, state: 'error', message: 'mic: the device was unplugged' });
    expect(live.sourceState).toBe('error');
    expect(live.sourceMessage).toMatch(/unplugged/);
    conn.emit('source', { session: 1, state: 'ended' }); // an old session: ignored
    expect(live.sourceState).toBe('error');
  });

  it('refuses to start an unavailable kind and says why', async () => {
    const { live, settings, conn } = await setup();
    conn.handle('hello', () =>
      helloResult({
        sources: [{ kind: 'mic', label: 'Microphone', fields: [], unavailable: 'no audio input library' }],
        defaults: { analysis: live.analysis(), source: { kind: 'mic' } },
      }),
    );
    await useConnectionStore().attach(conn);
    await settle();
    settings.s.sourceKind = 'mic';
    await live.start();
    expect(live.sourceState).toBe('error');
    expect(live.sourceMessage).toBe('Microphone cannot be used here: no audio input library');
  });

  it('stops and stays stopped across a reconnection', async () => {
    const { conn, live } = await setup();
    await live.stop();
    expect(live.sourceState).toBe('stopped');
    conn.setState('reconnecting');
    conn.setState('open');
    await settle();
    expect(conn.methods().filter((m) => m === 'start')).toHaveLength(1);
  });
});

describe('status store', () => {
  const event = (session: number, droppedRows: number) => ({
    session,
    backend: 'cpu',
    sampleRate: 48000,
    blocksPerSecond: 46.9,
    rowsPerSecond: 93.75,
    droppedRows,
    droppedBlocks: 0,
    computeMs: 0.25,
  });

  it('keeps the current session’s status and ignores other sessions', async () => {
    const { conn, status } = await setup();
    conn.emit('status', event(1, 4));
    conn.emit('status', event(9, 100));
    expect(status.engine?.droppedRows).toBe(4);
  });

  it('samples the renderer’s fps and latency percentiles', async () => {
    const { status } = await setup();
    for (let i = 1; i <= 100; i++) hooks.latency.push(i);
    hooks.rowsDrawn = 1234;
    status.sampleRenderer(59.96);
    expect(status.fps).toBe(60);
    expect(status.latencyP50).toBeCloseTo(50.5, 9);
    expect(status.latencyP99).toBeCloseTo(99.01, 9);
    expect(status.rowsDrawn).toBe(1234);
    expect(hooks.fps).toBe(59.96);
    const stats = hooks.latencyStats();
    expect(stats).toMatchObject({ count: 100, max: 100 });
  });
});

describe('viewport store', () => {
  it('zooms and pans within the axis, and resets when the axis type changes', async () => {
    const { settings } = await setup();
    const v = useViewportStore();
    expect(v.axis?.log).toBe(false);
    v.zoomFrequency(4, 0.5);
    expect(v.view.b - v.view.a).toBeCloseTo(0.25, 12);
    v.panFrequency(-10);
    expect(v.view.b).toBeCloseTo(1, 12);
    settings.s.logFrequency = true;
    await settle();
    expect(v.axis?.log).toBe(true);
    expect(v.view).toEqual({ a: 0, b: 1 });
  });

  it('zooms time between the whole history and 16 pixels per row, and pans back in time', async () => {
    await setup();
    const v = useViewportStore();
    v.setWaterfallSize(500, 2000);
    expect(v.rowsVisible).toBe(500);
    v.zoomTime(0.01);
    expect(v.timeScale).toBeCloseTo(0.25, 12);
    expect(v.rowsVisible).toBeCloseTo(2000, 9);
    v.zoomTime(1e6);
    expect(v.timeScale).toBe(16);
    v.panTime(1e9);
    expect(v.timeOffset).toBeCloseTo(2000 - 500 / 16, 9);
    v.reset();
    expect([v.timeScale, v.timeOffset]).toEqual([1, 0]);
  });
});
