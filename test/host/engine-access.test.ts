// The desktop app's engine host reads only what each window's user chose: a window's connection refuses
// every path until the main process grants it (a dialog, a drop), grants are per window, and they go with
// the window. The keeper in the main process passes grants on, also to a host that restarted.
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createEngineConnection } from '../../electron/engine/live/connection.js';
import type { ServerMessage } from '../../electron/engine/protocol/messages.js';
import { EngineConnections, type PortLike } from '../../electron/engine-host/connections.js';
import type { HostMessage } from '../../electron/engine-host/messages.js';
import { isHostMessage } from '../../electron/engine-host/messages.js';
import { EngineProcess, type UtilityLike } from '../../electron/main/engine-process.js';
import { tones } from '../support/signals.js';
import { writeTestWav } from '../support/wav.js';

const dir = mkdtempSync(join(tmpdir(), 'phasor-engine-access-'));
const wav = join(dir, 'chosen.wav');
const other = join(dir, 'other.wav');
writeTestWav(wav, tones(4800, 48000, [{ frequency: 1000, amplitude: 0.5 }]), 48000, 1);
writeTestWav(other, tones(4800, 48000, [{ frequency: 2000, amplitude: 0.5 }]), 48000, 1);
symlinkSync(other, join(dir, 'link-to-other.wav'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

class Port implements PortLike {
  readonly received: Array<ServerMessage | ArrayBuffer> = [];
  #onMessage: ((e: { data: unknown }) => void) | null = null;
  postMessage(message: unknown): void {
    this.received.push(message as ServerMessage);
  }
  on(event: 'message' | 'close', listener: (e: { data: unknown }) => void): this {
    if (event === 'message') this.#onMessage = listener;
    return this;
  }
  start(): void {}
  close(): void {}
  async request(id: number, method: string, params: unknown): Promise<Record<string, unknown>> {
    this.#onMessage?.({ data: { type: 'request', id, method, params } });
    const end = Date.now() + 15000;
    for (;;) {
      const r = this.received.find((m) => !(m instanceof ArrayBuffer) && m.type === 'reply' && m.id === id);
      if (r) return r as unknown as Record<string, unknown>;
      if (Date.now() > end) throw new Error(`no reply ${id}`);
      await new Promise((res) => setTimeout(res, 5));
    }
  }
}

describe('the engine host grants paths per window', () => {
  it('refuses what was not chosen, opens what was, and forgets it with the window', async () => {
    const conns = new EngineConnections((send, access) => createEngineConnection(send, { access }));
    const a = new Port();
    const b = new Port();
    conns.add(3, a);
    conns.add(4, b);
    const refused = (r: Record<string, unknown>) =>
      expect((r.error as { message: string }).message).toMatch(/outside the folders this client may use/);
    refused(await a.request(1, 'openFile', { path: wav }));
    refused(await a.request(2, 'listDirectory', { path: dir }));
    expect(conns.grant(3, wav)).toBe(true);
    expect(await a.request(3, 'openFile', { path: wav })).toMatchObject({ ok: true });
    // Only that file, only for that window; a link to another file is not it.
    refused(await a.request(4, 'openFile', { path: other }));
    refused(await a.request(5, 'openFile', { path: join(dir, 'link-to-other.wav') }));
    refused(await b.request(1, 'openFile', { path: wav }));
    // Writing: only where the user chose, or a new file beside a file opened with `beside`.
    const file = ((await a.request(6, 'openFile', { path: wav })) as { result: { file: number } }).result
      .file;
    const taps = [0.25, 0.5, 0.25];
    refused(await a.request(7, 'applyFilter', { file, output: 'new.wav', taps }));
    conns.grant(3, wav, true);
    expect(await a.request(8, 'applyFilter', { file, output: 'new.wav', taps })).toMatchObject({ ok: true });
    refused(await a.request(9, 'applyFilter', { file, output: 'other.wav', taps }));
    refused(await a.request(10, 'applyFilter', { file, output: join(tmpdir(), 'elsewhere.wav'), taps }));
    // A reload replaces the port and keeps nothing: the main process grants again what it has to.
    conns.remove(3);
    const again = new Port();
    conns.add(3, again);
    refused(await again.request(1, 'openFile', { path: wav }));
    conns.closeAll();
  });

  it('takes grants from the main process over the parent port, validated', () => {
    expect(isHostMessage({ type: 'grant', window: 3, path: '/data/x.wav' })).toBe(true);
    expect(isHostMessage({ type: 'grant', window: 3 })).toBe(false);
    expect(isHostMessage({ type: 'grant', window: '3', path: '/x' })).toBe(false);
    expect(isHostMessage({ type: 'grant', window: 3, path: '' })).toBe(false);
  });
});

class FakeChild implements UtilityLike<string> {
  readonly got: HostMessage[] = [];
  #exit: Array<(code: number) => void> = [];
  postMessage(message: HostMessage): void {
    this.got.push(message);
  }
  on(_event: 'exit', listener: (code: number) => void): this {
    this.#exit.push(listener);
    return this;
  }
  kill(): boolean {
    return true;
  }
  exit(code: number): void {
    for (const l of this.#exit) l(code);
  }
}

describe('the keeper passes grants on', () => {
  it('to the host, again after a restart, and not after the window went', async () => {
    const children: FakeChild[] = [];
    const keeper = new EngineProcess<string>({
      fork: () => {
        const c = new FakeChild();
        children.push(c);
        return c;
      },
      createChannel: () => ({ host: 'h', window: 'w' }),
      deliver: () => undefined,
      notify: () => undefined,
      restartDelay: () => 1,
    });
    keeper.attach(3);
    keeper.grant(3, '/data/a.wav');
    keeper.grant(9, '/data/not-a-window.wav');
    expect(children[0].got).toEqual([
      { type: 'connect', window: 3 },
      { type: 'grant', window: 3, path: '/data/a.wav' },
    ]);
    children[0].exit(1);
    await new Promise((r) => setTimeout(r, 50));
    expect(children[1].got).toEqual([
      { type: 'connect', window: 3 },
      { type: 'grant', window: 3, path: '/data/a.wav' },
    ]);
    keeper.detach(3);
    keeper.attach(3);
    expect(children[1].got.slice(2)).toEqual([
      { type: 'disconnect', window: 3 },
      { type: 'connect', window: 3 },
    ]);
  });
});
