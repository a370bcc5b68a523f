// The engine host's keeper in the main process, kept free of Electron imports so tests run it with fake
// processes and ports. It forks the utility process (electron/engine-host), gives every connected window
// a MessageChannel of its own to it (one end to the host, the other to the window), and when the host
// dies tells each window, restarts the host with a growing delay and gives each window a new port. Too
// many deaths in a short time and it stops trying until a window connects again (a reload). It also
// carries what each window's user chose in a dialog or dropped (grant), and gives it to a restarted host.

import type { HostMessage } from '../engine-host/messages.js';

/** The parts of Electron's UtilityProcess used here. */
export interface UtilityLike<Port> {
  postMessage(message: HostMessage, transfer?: Port[]): void;
  on(event: 'exit', listener: (code: number) => void): unknown;
  kill(): boolean;
}

/** What a window is told when the engine goes away: restarting, or given up on. */
export interface EngineDown {
  state: 'reconnecting' | 'closed';
  detail: string;
}

export interface EngineProcessOptions<Port> {
  /** Starts the engine host (utilityProcess.fork of out/main/engine-host.js). */
  fork(): UtilityLike<Port>;
  createChannel(): { host: Port; window: Port };
  /** Hands a window its end of a new channel (the preload's PORT_CHANNEL). */
  deliver(windowId: number, port: Port): void;
  /** Tells a window the engine stopped (the preload's ENGINE_STATE_CHANNEL). */
  notify(windowId: number, down: EngineDown): void;
  /** Delay (ms) before restart number `attempt` (0-based) within the window; default 250 ms doubling to 8 s. */
  restartDelay?(attempt: number): number;
  /** At most this many restarts within `restartWindowMs` (default 5 within 60 s), then give up. */
  maxRestarts?: number;
  restartWindowMs?: number;
  log?(message: string): void;
}

export function defaultRestartDelay(attempt: number): number {
  return Math.min(8000, 250 * 2 ** attempt);
}

export class EngineProcess<Port> {
  readonly #o: EngineProcessOptions<Port>;
  readonly #windows = new Set<number>();
  /** What each window's user chose, for the host (again after a restart); gone with the window. */
  readonly #grants = new Map<number, Array<{ path: string; beside: boolean }>>();
  #child: UtilityLike<Port> | null = null;
  /** When the host died lately (ms since the epoch), within the restart window. */
  #deaths: number[] = [];
  #timer: ReturnType<typeof setTimeout> | null = null;
  /** Set while the host is down: what windows that connect meanwhile are told. */
  #down: EngineDown | null = null;
  #stopping = false;
  #exited: (() => void) | null = null;
  /** Hosts started so far (the first one included). */
  #starts = 0;

  constructor(options: EngineProcessOptions<Port>) {
    this.#o = options;
  }

  /** Whether a host process is running (or starting). */
  get running(): boolean {
    return this.#child !== null;
  }

  /** How many times the host was started. */
  get starts(): number {
    return this.#starts;
  }

  /** Starts the host, unless it runs, waits for its restart, or the app is quitting. */
  start(): void {
    if (this.#child || this.#timer || this.#stopping) return;
    this.#down = null;
    const child = this.#o.fork();
    this.#child = child;
    this.#starts++;
    child.on('exit', (code) => this.#onExit(child, code));
    for (const id of this.#windows) this.#link(id);
  }

  /** Connects window `id` to the engine (again, after a reload: the host replaces its connection). */
  attach(id: number): void {
    this.#windows.add(id);
    if (this.#child) {
      this.#link(id);
    } else if (this.#down?.state === 'closed') {
      // Given up on: a window asking again starts a fresh round.
      this.#deaths = [];
      this.start();
    } else if (this.#down) {
      this.#o.notify(id, this.#down);
    } else {
      this.start();
    }
  }

  /** Lets window `id`'s connection use `path`, which its user chose (a dialog, a drop); `beside`: a file
   * opened, beside which new files (a filtered copy) may be made. */
  grant(id: number, path: string, beside = false): void {
    if (!this.#windows.has(id)) return;
    const list = this.#grants.get(id) ?? [];
    if (!list.some((g) => g.path === path && g.beside === beside)) list.push({ path, beside });
    this.#grants.set(id, list);
    this.#child?.postMessage({ type: 'grant', window: id, path, ...(beside ? { beside } : {}) });
  }

  /** Ends window `id`'s connection (closed, reloaded, crashed), and what it was granted. */
  detach(id: number): void {
    this.#grants.delete(id);
    if (!this.#windows.delete(id)) return;
    this.#child?.postMessage({ type: 'disconnect', window: id });
  }

  /** Asks the host to close everything and exit; kills it after `timeoutMs`. Never restarts it again. */
  stop(timeoutMs = 2000): Promise<void> {
    this.#stopping = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    const child = this.#child;
    if (!child) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        child.kill();
        resolve();
      }, timeoutMs);
      this.#exited = () => {
        clearTimeout(timer);
        resolve();
      };
      child.postMessage({ type: 'shutdown' });
    });
  }

  #link(id: number): void {
    const { host, window } = this.#o.createChannel();
    this.#child!.postMessage({ type: 'connect', window: id }, [host]);
    for (const { path, beside } of this.#grants.get(id) ?? [])
      this.#child!.postMessage({ type: 'grant', window: id, path, ...(beside ? { beside } : {}) });
    this.#o.deliver(id, window);
  }

  #onExit(child: UtilityLike<Port>, code: number): void {
    if (child !== this.#child) return;
    this.#child = null;
    if (this.#stopping) {
      this.#exited?.();
      return;
    }
    const now = Date.now();
    const windowMs = this.#o.restartWindowMs ?? 60_000;
    this.#deaths = this.#deaths.filter((t) => now - t < windowMs);
    this.#deaths.push(now);
    const restarts = this.#deaths.length;
    if (restarts > (this.#o.maxRestarts ?? 5)) {
      this.#down = {
        state: 'closed',
        detail: `the engine stopped ${restarts} times in ${Math.round(windowMs / 1000)} s (exit code ${code}); reload the window to start it again`,
      };
    } else {
      this.#down = { state: 'reconnecting', detail: `the engine stopped (exit code ${code}); restarting…` };
      const delay = (this.#o.restartDelay ?? defaultRestartDelay)(restarts - 1);
      this.#timer = setTimeout(() => {
        this.#timer = null;
        this.start();
      }, delay);
    }
    this.#o.log?.(`phasor: ${this.#down.detail}`);
    for (const id of this.#windows) this.#o.notify(id, this.#down);
  }
}
