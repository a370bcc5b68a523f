// Which backends exist, which are usable here, and how a host gets one.
// Adding a backend means adding a provider to `providers` (best first); callers never change.

import * as osModule from 'node:os';
import { BackendUnavailableError, InvalidArgumentError, type WarningHandler } from '../errors.js';
import type { Availability, Backend, BackendName, BackendProvider } from './backend.js';
import { FailoverBackend, usable } from './failover.js';
import { createCpuBackend, type CpuPrecision } from './cpu/index.js';
import { defaultCpuPrecision } from './cpu/precision.js';

// The GPU backends' modules load when they are first probed or created: a job on one backend does not pay
// for loading the other (the WebGPU backend's shaders and planner) at start-up. The CPU backend, every
// chain's last resort, loads with the registry. (electron.vite.config.ts gives each a chunk of its own.)
const cudaModule = () => import('./cuda/index.js');
const webGpuModule = () => import('./webgpu/index.js');

export type { Availability, BackendProvider } from './backend.js';

const notBuilt = (name: BackendName, why: string): BackendProvider => ({
  name,
  probe: async () => ({ available: false, reason: why }),
  create: async () => {
    throw new BackendUnavailableError(name, why);
  },
});

/** Every backend Phasor knows, best first: the order `auto` tries them in. */
export const providers: readonly BackendProvider[] = [
  {
    name: 'cuda',
    probe: async () => (await cudaModule()).probeCuda(),
    create: async () => (await cudaModule()).createCudaBackend(),
  },
  // Dawn (the webgpu package) loads only when probed: hosts that must not load it exclude it.
  {
    name: 'webgpu',
    probe: async () => (await webGpuModule()).probeWebGpu(),
    create: async () => (await webGpuModule()).createWebGpuBackend(),
  },
  {
    name: 'cpu',
    probe: async () => ({ available: true, device: cpuDeviceName() }),
    create: () => createCpuBackend(cpuThreadsFromEnv()),
  },
];

export const backendNames: readonly BackendName[] = providers.map((p) => p.name);

/** PHASOR_CPU_THREADS limits the CPU backend's worker threads (0 = the calling thread only). */
export function cpuThreadsFromEnv(env: NodeJS.ProcessEnv = process.env): { threads?: number } {
  const text = env.PHASOR_CPU_THREADS;
  if (text === undefined || text === '') return {};
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0 || n > 1024) {
    throw new InvalidArgumentError(`PHASOR_CPU_THREADS must be a whole number from 0 to 1024, got "${text}"`);
  }
  return { threads: n };
}

function cpuDeviceName(): string {
  return `CPU (${cpuThreadsFromEnv().threads ?? availableThreads()} threads)`;
}

function availableThreads(): number {
  // os.availableParallelism exists from Node 18.14.
  return typeof osModule.availableParallelism === 'function'
    ? osModule.availableParallelism()
    : osModule.cpus().length;
}

export function getProvider(name: string): BackendProvider {
  const p = providers.find((x) => x.name === name);
  if (!p) {
    throw new InvalidArgumentError(
      `unknown backend "${name}"; choose one of: auto, ${backendNames.join(', ')}`,
    );
  }
  return p;
}

/** Every backend with its availability, in priority order (for `phasor bench` and the benchmark view). */
export async function listBackends(): Promise<Array<{ name: BackendName } & Availability>> {
  return Promise.all(providers.map(async (p) => ({ name: p.name, ...(await p.probe()) })));
}

/** How a host runs the backends. */
export interface HostBackendOptions {
  /** Backends that must not run in this host, with why: never probed, never chosen. */
  exclude?: Readonly<Record<string, string>>;
  /** Backends this host reaches its own way, in their place in the `auto` order (the desktop app's
   * WebGPU, which runs on Chromium's navigator.gpu through the bridge instead of Dawn). */
  replace?: Readonly<Partial<Record<BackendName, BackendProvider>>>;
  /** Where the CPU backend's worker script is, when not beside its module (a bundled host). */
  cpuWorkerUrl?: URL;
  /** The CPU backend's arithmetic: 'single' (default, float32 SIMD for power-of-two transforms) or 'double'. */
  cpuPrecision?: CpuPrecision;
}

/**
 * The providers as a host runs them, best first: an excluded one is unavailable with the host's reason
 * (and its own probe, which may load a native module, never runs); a replaced one is the host's provider
 * (the default's probe never runs either); the CPU uses the host's worker script.
 */
export function hostProviders(options: HostBackendOptions = {}): readonly BackendProvider[] {
  const exclude = options.exclude ?? {};
  const replace = options.replace ?? {};
  const workerUrl = options.cpuWorkerUrl;
  const precision = options.cpuPrecision;
  return providers.map((p) => {
    if (p.name in exclude) return notBuilt(p.name, exclude[p.name]);
    const own = replace[p.name];
    if (own) {
      if (own.name !== p.name) {
        throw new InvalidArgumentError(`the provider given for backend ${p.name} is backend ${own.name}'s`);
      }
      return own;
    }
    if (p.name === 'cpu' && (workerUrl || precision)) {
      return {
        ...p,
        create: () =>
          createCpuBackend({
            ...cpuThreadsFromEnv(),
            ...(workerUrl ? { workerUrl } : {}),
            ...(precision ? { precision } : {}),
          }),
      };
    }
    return p;
  });
}

export interface OpenBackendOptions extends HostBackendOptions {
  /** Told when a backend fails and its work moves to the next one. */
  onWarning?: WarningHandler;
}

/** A backend created ahead of its job (the CLI's standby process): the provider's instance, taken by the
 * next openBackend whose chain starts with that provider under the same host options. */
let prepared: { name: BackendName; key: string; backend: Promise<Backend> } | undefined;

const preparedKey = (options: HostBackendOptions): string | undefined =>
  options.exclude || options.replace || options.cpuWorkerUrl
    ? undefined
    : (options.cpuPrecision ?? defaultCpuPrecision);

/**
 * Creates now the backend that openBackend(choice, options) would open first, for a job that comes later:
 * that job does not wait for a GPU's driver and context. Only the default host options (no exclusions or
 * replacements) are kept this way. Resolves to the backend (the provider's own, not failing over). One
 * that no job took is handed out again when it would be created anew, else disposed: never two held.
 */
export async function prepareBackend(choice: string, options: HostBackendOptions = {}): Promise<Backend> {
  const key = preparedKey(options);
  if (key === undefined)
    throw new InvalidArgumentError('a backend is prepared with the default host options only');
  const first = (await chainFor(choice, hostProviders(options)))[0];
  if (prepared !== undefined) {
    if (prepared.name === first.name && prepared.key === key) return prepared.backend;
    void prepared.backend.then((b) => b.dispose()).catch(() => undefined);
    prepared = undefined;
  }
  const backend = first.create();
  prepared = { name: first.name, key, backend };
  try {
    return await backend;
  } catch (e) {
    if (prepared?.backend === backend) prepared = undefined;
    throw e;
  }
}

/** The providers a choice opens, first to last: `auto` from the first usable one, a name then the CPU. */
async function chainFor(choice: string, hosted: readonly BackendProvider[]): Promise<BackendProvider[]> {
  if (choice === 'auto') {
    // the first usable provider opens; the ones after it are probed only if the work moves to them
    // (FailoverBackend), so a CUDA job does not start Dawn and the Vulkan driver as well
    let first = -1;
    for (let i = 0; i < hosted.length && first < 0; i++) if (await usable(hosted[i])) first = i;
    if (first < 0) throw new BackendUnavailableError('auto', 'no backend is available');
    return hosted.slice(first);
  }
  const asked = hosted[providers.indexOf(getProvider(choice))];
  const a = await asked.probe();
  if (!a.available) throw new BackendUnavailableError(asked.name, a.reason);
  return [asked, ...hosted.filter((p) => p !== asked && p.name === 'cpu')];
}

/** The chain with its first provider handing out the prepared backend, when it matches. */
function takePrepared(chain: BackendProvider[], options: HostBackendOptions): BackendProvider[] {
  const held = prepared;
  if (!held || held.name !== chain[0].name || held.key !== preparedKey(options)) return chain;
  prepared = undefined;
  return [{ ...chain[0], create: () => held.backend }, ...chain.slice(1)];
}

/**
 * Opens a backend for a host. 'auto' picks the best available one; a name asks for that backend and is an
 * error (saying why) when it is unavailable. Either way the result hands a block to the next available
 * backend (the CPU last) when the chosen one fails while running, so no block is lost.
 */
export async function openBackend(
  choice: 'auto' | BackendName | string = 'auto',
  options: OpenBackendOptions = {},
): Promise<Backend> {
  const chain = takePrepared(await chainFor(choice, hostProviders(options)), options);
  return FailoverBackend.open(chain, options.onWarning);
}
