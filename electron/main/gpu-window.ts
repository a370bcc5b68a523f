// The desktop app's WebGPU, kept free of Electron imports so tests run it with fakes. Dawn cannot run in
// an Electron process, so the engine host's WebGPU backend runs on Chromium's navigator.gpu in a hidden
// window (its preload, electron/preload/gpu.ts, serves the bridge of engine/backends/webgpu/bridge). When
// the host asks for a port (`gpu-port`, engine-host/messages.ts), this makes a channel, gives one end to
// the window (opened on the first request, again after it died) and the other to the host. Linux Chromium
// shows navigator.gpu only with WebGPU and Vulkan switched on (electron issues 41763, 40929), and gives it
// an adapter only with ANGLE on Vulkan too (gpuweb issue 5022; measured below).

import type { EngineRequest, HostMessage } from '../engine-host/messages.js';

/** Chromium switches the WebGPU window needs on this platform (app.commandLine.appendSwitch each): WebGPU
 * (and on Linux Vulkan, with ANGLE on Vulkan: Chromium 156 on the lent H200 found no adapter without
 * `use-angle=vulkan`, and the NVIDIA GPU with it; docs/PERFORMANCE.md, "Which switches give headless
 * Chromium the GPU"); GPU timestamps to the nanosecond for the Benchmark view's device rows (Chromium
 * rounds them to 100 µs otherwise); no zero-fill of workgroup memory, which our kernels always write before
 * they read (15 % of a four-step FFT). The same as Dawn's in Node (webgpu/device.ts dawnFlags), and what
 * bench/webgpu/chromium.ts measured. */
export function webGpuSwitches(platform: string, vulkanDriver = true): Array<[name: string, value?: string]> {
  const switches: Array<[string, string?]> = [['enable-unsafe-webgpu']];
  if (platform === 'linux') {
    switches.push(['enable-features', 'Vulkan']);
    // without a Vulkan driver there is no WebGPU either; ANGLE stays on GL, so WebGL keeps the GPU
    if (vulkanDriver) switches.push(['use-angle', 'vulkan']);
  }
  switches.push(
    ['enable-webgpu-developer-features'],
    ['enable-dawn-features', 'disable_workgroup_init'],
    ['disable-dawn-features', 'timestamp_quantization'],
  );
  return switches;
}

/** Where the Vulkan loader finds drivers on Linux: a manifest in its ICD folders, or the files named by
 * VK_DRIVER_FILES / VK_ICD_FILENAMES. `list` reads a folder (no entries when it is missing). */
export function linuxVulkanDriver(
  env: Record<string, string | undefined>,
  list: (dir: string) => string[],
): boolean {
  if (env.VK_DRIVER_FILES || env.VK_ICD_FILENAMES) return true;
  const home = env.XDG_DATA_HOME ?? (env.HOME ? `${env.HOME}/.local/share` : undefined);
  const data = [home, ...(env.XDG_DATA_DIRS ?? '/usr/local/share:/usr/share').split(':')];
  const dirs = ['/etc/vulkan/icd.d', ...data.filter((d) => d).map((d) => `${d}/vulkan/icd.d`)];
  return dirs.some((d) => list(d).some((f) => f.endsWith('.json')));
}

/** The parts of a hidden BrowserWindow used here. */
export interface GpuWindowLike<Port> {
  /** Resolves once the page and its preload are loaded (did-finish-load). */
  readonly ready: Promise<void>;
  /** Whether the window (or its renderer) is gone. */
  gone(): boolean;
  /** Hands the window its end of a channel (the preload's GPU_PORT_CHANNEL). */
  deliver(port: Port): void;
  close(): void;
}

export interface GpuWindowOptions<Port> {
  /** Opens the hidden window (BrowserWindow with show: false, the GPU preload, phasor://gpu/). */
  open(): GpuWindowLike<Port>;
  createChannel(): { host: Port; window: Port };
  log?(message: string): void;
}

/** What the host's port request is answered with. */
export interface PortAnswerTarget<Port> {
  postMessage(message: HostMessage, transfer?: Port[]): void;
}

export class GpuWindow<Port> {
  readonly #o: GpuWindowOptions<Port>;
  #window: GpuWindowLike<Port> | null = null;

  constructor(options: GpuWindowOptions<Port>) {
    this.#o = options;
  }

  /** Closes the window (the app's last window closed); a later request opens a new one. */
  close(): void {
    this.#window?.close();
    this.#window = null;
  }

  /** Answers the engine host's request for a port: one end to it, the other to the hidden window. */
  async answer(host: PortAnswerTarget<Port>, request: EngineRequest): Promise<void> {
    try {
      if (!this.#window || this.#window.gone()) this.#window = this.#o.open();
      const win = this.#window;
      await win.ready;
      const { host: hostEnd, window: windowEnd } = this.#o.createChannel();
      win.deliver(windowEnd);
      host.postMessage({ type: 'gpu-port', request: request.request }, [hostEnd]);
    } catch (err) {
      const reason = `the WebGPU window could not be opened: ${err instanceof Error ? err.message : String(err)}`;
      this.#o.log?.(`phasor: ${reason}`);
      host.postMessage({ type: 'gpu-port', request: request.request, reason });
    }
  }
}
