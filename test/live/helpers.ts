// Shared pieces of the live tests: an unpaced live source (blocks as fast as they are pulled, so tests do
// not wait on the wall clock), a collecting sink, and a fake audio driver.
import type { LiveBlock, LiveSource } from '../../electron/engine/sources/live-source.js';
import type { SessionSink } from '../../electron/engine/live/session.js';
import type { EventMessage } from '../../electron/engine/protocol/messages.js';
import type { RowsMessage } from '../../electron/engine/protocol/rows-codec.js';
import type {
  MicDriver,
  MicOpenRequest,
  MicStream,
  MicStreamHandlers,
} from '../../electron/engine/sources/mic.js';
import type { ReadOptions, SampleSource, SourceInfo } from '../../electron/engine/sources/source.js';

/** A LiveSource over any SampleSource, unpaced; optionally failing after `failAfter` blocks. */
export function unpaced(
  inner: SampleSource,
  options: { blocks?: number; failAfter?: number; channel?: number } = {},
): LiveSource {
  return {
    info: inner.info as SourceInfo,
    channel: options.channel ?? 0,
    label: 'test source',
    droppedBlocks: 0,
    async *blocks(o: ReadOptions = {}): AsyncGenerator<LiveBlock> {
      let n = 0;
      for await (const b of inner.blocks({
        blockFrames: o.blockFrames ?? 256,
        ...(o.signal ? { signal: o.signal } : {}),
      })) {
        if (options.failAfter !== undefined && n === options.failAfter)
          throw new Error('the test source broke');
        if (options.blocks !== undefined && n === options.blocks) return;
        n++;
        yield { ...b, captureTime: performance.timeOrigin + performance.now() };
      }
    },
    close: () => inner.close(),
  };
}

/** Collects everything a session sends; keeps copies of the rows (the session reuses its arrays). */
export class CollectingSink implements SessionSink {
  readonly messages: RowsMessage[] = [];
  readonly events: EventMessage[] = [];
  onRows: ((m: RowsMessage) => void) | null = null;

  rows(m: RowsMessage): void {
    const copy: RowsMessage = { ...m, rows: m.rows.slice(0, m.count * m.width) };
    if (m.peak) copy.peak = m.peak.slice();
    if (m.average) copy.average = m.average.slice();
    this.messages.push(copy);
    this.onRows?.(copy);
  }

  event(e: EventMessage): void {
    this.events.push(e);
  }

  sourceEvents(): Array<{ state: string; message?: string }> {
    return this.events
      .filter((e) => e.event === 'source')
      .map((e) => e.data as { state: string; message?: string });
  }
}

/** A fake audio library: the test pushes blocks and errors into the open stream by hand. */
export class FakeDriver implements MicDriver {
  handlers: MicStreamHandlers | null = null;
  request: MicOpenRequest | null = null;
  closed = 0;
  unavailable: string | undefined;
  failOpen: string | undefined;

  probe(): Promise<string | undefined> {
    return Promise.resolve(this.unavailable);
  }

  listDevices(): Promise<
    Array<{
      id: string;
      name: string;
      isDefault: boolean;
      channels: number;
      sampleRates: number[];
      preferredSampleRate: number;
    }>
  > {
    return Promise.resolve([
      {
        id: 'Test Mic',
        name: 'Test Mic',
        isDefault: true,
        channels: 2,
        sampleRates: [48000],
        preferredSampleRate: 48000,
      },
    ]);
  }

  open(request: MicOpenRequest, handlers: MicStreamHandlers): Promise<MicStream> {
    if (this.failOpen) return Promise.reject(new Error(this.failOpen));
    this.request = request;
    this.handlers = handlers;
    return Promise.resolve({
      sampleRate: request.sampleRate || 48000,
      frameSize: request.frameSize,
      deviceName: 'Test Mic',
      close: async () => {
        this.closed++;
      },
    });
  }
}

/** Resolves when `check` holds, polling every few ms (fails the test after `ms`). */
export async function until(check: () => boolean, ms = 10000, what = 'condition'): Promise<void> {
  const end = performance.now() + ms;
  while (!check()) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
