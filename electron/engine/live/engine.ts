// What every connection of a host shares: one backend (opened on first use) and the source kinds.

import type { Backend, BackendName, BackendProvider } from '../backends/backend.js';
import { getProvider, hostProviders, openBackend, type HostBackendOptions } from '../backends/registry.js';
import { BackendUnavailableError, type WarningHandler } from '../errors.js';
import { WINDOW_NAMES } from '../dsp/index.js';
import {
  PROTOCOL_VERSION,
  defaultAnalysis,
  type BackendDetails,
  type BackendState,
  type HelloResult,
} from '../protocol/messages.js';
import { sourceKinds, type SourceKindRegistry } from '../sources/kinds.js';

export interface EngineOptions {
  /** Backends that must not run in this host, with why (e.g. WebGPU through Dawn in Electron's main
   * process, whose external ArrayBuffers Electron refuses). */
  excludeBackends?: Readonly<Record<string, string>>;
  /** Backends this host reaches its own way (the desktop app's WebGPU, through the bridge to Chromium). */
  replaceBackends?: Readonly<Partial<Record<BackendName, BackendProvider>>>;
  /** The source kinds offered (default: every built-in kind). */
  kinds?: SourceKindRegistry;
  /** Unacknowledged rows messages per session before rows are dropped (default 16). */
  maxInFlight?: number;
  /** Status event period (ms, default 1000). */
  statusIntervalMs?: number;
  /** Shortest time between two progress events of one offline job (ms, default 100). */
  progressIntervalMs?: number;
  onWarning?: WarningHandler;
  /** Where the CPU backend's worker script is, when not beside its module (a bundled host). */
  cpuWorkerUrl?: URL;
  /** The backend to use instead of opening one (tests). */
  backend?: Backend;
}

export class Engine {
  readonly kinds: SourceKindRegistry;
  readonly options: EngineOptions;
  #backend: Promise<Backend> | null = null;
  #nextSession = 1;

  constructor(options: EngineOptions = {}) {
    this.options = options;
    this.kinds = options.kinds ?? sourceKinds;
    if (options.backend) this.#backend = Promise.resolve(options.backend);
  }

  /** A new session number (unique in this process). */
  sessionId(): number {
    return this.#nextSession++;
  }

  /** The best available backend (not excluded), opened once and shared; a failure is retried next time. */
  backend(): Promise<Backend> {
    if (!this.#backend) {
      const p = this.#open();
      this.#backend = p;
      p.catch(() => {
        if (this.#backend === p) this.#backend = null;
      });
    }
    return this.#backend;
  }

  /** How this host runs the backends (the registry's exclusions, replacements and CPU worker script). */
  #host(): HostBackendOptions {
    const { excludeBackends, replaceBackends, cpuWorkerUrl } = this.options;
    return {
      ...(excludeBackends ? { exclude: excludeBackends } : {}),
      ...(replaceBackends ? { replace: replaceBackends } : {}),
      ...(cpuWorkerUrl ? { cpuWorkerUrl } : {}),
    };
  }

  /** `auto`, chosen by the registry as the CLI's is, with this host's backends and worker script. */
  #open(): Promise<Backend> {
    const onWarning = this.options.onWarning;
    return openBackend('auto', { ...this.#host(), ...(onWarning ? { onWarning } : {}) });
  }

  async backends(): Promise<BackendState[]> {
    // An excluded backend is not even probed (probing may load its native module).
    return Promise.all(
      hostProviders(this.#host()).map(async (p): Promise<BackendState> => {
        const a = await p.probe();
        return a.available
          ? { name: p.name, available: true, device: a.device }
          : { name: p.name, available: false, reason: a.reason };
      }),
    );
  }

  /** The shared backend when it is open already (never opens it). */
  async openedBackend(): Promise<Backend | null> {
    return this.#backend ? this.#backend.catch(() => null) : null;
  }

  /** Every backend with its device and details, or why it cannot be used in this host. */
  async backendDetails(): Promise<BackendDetails[]> {
    const shared = await this.openedBackend();
    return Promise.all(
      hostProviders(this.#host()).map(async (p): Promise<BackendDetails> => {
        const a = await p.probe();
        if (!a.available) return { name: p.name, available: false, reason: a.reason };
        const d: BackendDetails = { name: p.name, available: true, device: a.device };
        // The open backend knows more than a probe (threads, measured copy bandwidth…).
        const details = { ...(a.details ?? {}), ...(shared?.name === p.name ? (shared.details ?? {}) : {}) };
        if (Object.keys(details).length > 0) d.details = details;
        return d;
      }),
    );
  }

  /** A new backend of its own (not the shared one, no failover), e.g. for a benchmark; dispose it after. */
  async createBackend(name: string): Promise<Backend> {
    const known = getProvider(name); // an unknown name is refused with the list of backends
    const p = hostProviders(this.#host()).find((x) => x.name === known.name) ?? known;
    const a = await p.probe();
    if (!a.available) throw new BackendUnavailableError(p.name, a.reason);
    return p.create();
  }

  async hello(): Promise<HelloResult> {
    const [backend, backends, sources] = await Promise.all([
      this.backend(),
      this.backends(),
      this.kinds.describe(),
    ]);
    const first = sources.find((s) => s.unavailable === undefined && s.kind === 'generator') ?? sources[0];
    let source: HelloResult['defaults']['source'] = { kind: first?.kind ?? 'generator' };
    try {
      source = this.kinds.parse(source);
    } catch {
      // A kind whose parameters have no complete defaults (a file needs a path): the bare kind.
    }
    return {
      version: PROTOCOL_VERSION,
      backend: { name: backend.name, device: backend.device },
      backends,
      sources,
      windows: [...WINDOW_NAMES],
      defaults: { analysis: { ...defaultAnalysis }, source },
    };
  }

  async dispose(): Promise<void> {
    const b = this.#backend;
    this.#backend = null;
    if (b && !this.options.backend) await (await b.catch(() => null))?.dispose();
  }
}

let shared: Engine | undefined;

/** The process-wide engine used by connections that are not given one. */
export function defaultEngine(): Engine {
  shared ??= new Engine();
  return shared;
}
