// The desktop app's WebGPU wiring without Electron: the main process's keeper of the hidden WebGPU window
// (electron/main/gpu-window.ts) answers the engine host's requests for ports; the engine host (engine-host/
// gpu.ts) turns each answer into a bridged WebGPU backend. Here the "window" serves the bridge with the CPU
// backend over real MessagePorts (the fake MessagePortMain of fake-electron), so the whole path from the
// host's request to a computed FFT runs; the Chromium side itself is in test/webgpu/chromium-bridge.test.ts.
import { MessageChannel } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { createCpuBackend } from '../../electron/engine/backends/cpu/index.js';
import type { BridgePort } from '../../electron/engine/backends/webgpu/bridge/protocol.js';
import { serveBackend } from '../../electron/engine/backends/webgpu/bridge/server.js';
import { EngineConnections, serveParent, type PortLike } from '../../electron/engine-host/connections.js';
import { GpuPorts } from '../../electron/engine-host/gpu.js';
import { isEngineRequest, isHostMessage, type HostMessage } from '../../electron/engine-host/messages.js';
import {
  GpuWindow,
  linuxVulkanDriver,
  webGpuSwitches,
  type GpuWindowLike,
} from '../../electron/main/gpu-window.js';
import { BackendFailedError } from '../../electron/engine/errors.js';
import { randomF32 } from '../conformance/util.js';
// @ts-expect-error: the stand-in is plain JavaScript
import { PortMain } from './fake-electron/ports.mjs';

type Port = PortLike & { port: unknown };
const newChannel = (): { host: Port; window: Port } => {
  const { port1, port2 } = new MessageChannel();
  return { host: new PortMain(port1) as Port, window: new PortMain(port2) as Port };
};

const closers: Array<() => void> = [];
afterAll(() => closers.forEach((c) => c()));

/** A hidden window whose "preload" serves the CPU backend on every port it is given. */
function fakeWindow(log: string[]): GpuWindowLike<Port> {
  let crashed = false;
  return {
    ready: Promise.resolve(),
    gone: () => crashed,
    deliver: (port) => {
      log.push('delivered');
      closers.push(() => port.close());
      const bridge: BridgePort = { postMessage: (m) => port.postMessage(m), onmessage: null };
      port.on('message', (e) => bridge.onmessage?.({ data: e.data }));
      port.start();
      serveBackend(bridge, () => createCpuBackend({ threads: 0 }), { firDirectMaxTaps: 16 });
    },
    close: () => {
      crashed = true;
      log.push('closed');
    },
  };
}

describe('the WebGPU window and the engine host’s ports to it', () => {
  it('switches on WebGPU, Vulkan and ANGLE on Vulkan on Linux, exact timestamps and no workgroup zero-fill', () => {
    const common = [
      ['enable-webgpu-developer-features'],
      ['enable-dawn-features', 'disable_workgroup_init'],
      ['disable-dawn-features', 'timestamp_quantization'],
    ];
    expect(webGpuSwitches('linux')).toEqual([
      ['enable-unsafe-webgpu'],
      ['enable-features', 'Vulkan'],
      ['use-angle', 'vulkan'],
      ...common,
    ]);
    expect(webGpuSwitches('win32')).toEqual([['enable-unsafe-webgpu'], ...common]);
    // no Vulkan driver: no ANGLE on Vulkan (WebGL keeps the GPU through GL)
    expect(webGpuSwitches('linux', false)).toEqual([
      ['enable-unsafe-webgpu'],
      ['enable-features', 'Vulkan'],
      ...common,
    ]);
  });

  it('finds a Vulkan driver by its manifest, or by the loader’s variables', () => {
    const folders: Record<string, string[]> = { '/usr/share/vulkan/icd.d': ['nvidia_icd.json'] };
    const list = (d: string) => folders[d] ?? [];
    expect(linuxVulkanDriver({}, list)).toBe(true);
    expect(linuxVulkanDriver({}, () => [])).toBe(false);
    expect(linuxVulkanDriver({}, () => ['README'])).toBe(false);
    expect(linuxVulkanDriver({ XDG_DATA_DIRS: '/opt/share' }, list)).toBe(false);
    expect(
      linuxVulkanDriver({ XDG_DATA_DIRS: '/opt/share' }, (d) =>
        d === '/opt/share/vulkan/icd.d' ? ['x.json'] : [],
      ),
    ).toBe(true);
    expect(linuxVulkanDriver({}, (d) => (d === '/etc/vulkan/icd.d' ? ['amd.json'] : []))).toBe(true);
    expect(linuxVulkanDriver({ VK_ICD_FILENAMES: '/x/icd.json' }, () => [])).toBe(true);
    const inHome = (d: string) => (d === '/home/u/.local/share/vulkan/icd.d' ? ['mine.json'] : []);
    expect(linuxVulkanDriver({ HOME: '/home/u' }, inHome)).toBe(true);
  });

  it('gives the host a port per backend, one end to the window, and the host computes through it', async () => {
    const log: string[] = [];
    let opened = 0;
    const gpu = new GpuWindow<Port>({
      open: () => {
        opened++;
        return fakeWindow(log);
      },
      createChannel: newChannel,
    });
    // The host's parent port, as serveParent sees it; the main process answers its requests.
    const parent = {
      listener: null as null | ((e: { data: unknown; ports?: readonly PortLike[] }) => void),
      on(_event: 'message', l: (e: { data: unknown; ports?: readonly PortLike[] }) => void) {
        this.listener = l;
      },
    };
    const toHost = {
      postMessage: (message: HostMessage, transfer: Port[] = []) => {
        expect(isHostMessage(message)).toBe(true);
        parent.listener?.({ data: message, ports: transfer });
      },
    };
    const ports = new GpuPorts((request) => {
      expect(isEngineRequest(request)).toBe(true);
      void gpu.answer(toHost, request);
    });
    serveParent(
      parent,
      new EngineConnections(() => ({}) as never),
      () => undefined,
      (a, p) => ports.answer(a, p),
    );

    const provider = ports.provider();
    const probe = await provider.probe();
    expect(probe).toMatchObject({ available: true, device: expect.stringMatching(/CPU/) });
    const b = await provider.create();
    const x = randomF32(2 * 64, 1);
    const cpu = await createCpuBackend({ threads: 0 });
    expect(await b.fft(x, 64)).toEqual(await cpu.fft(x, 64));
    expect(opened).toBe(1); // one window for every port
    expect(log).toEqual(['delivered', 'delivered']);

    await b.dispose();
    await cpu.dispose();

    // Closing the window (the app's last window closed): the next request opens a new one.
    gpu.close();
    const again = await ports.connect();
    expect('port' in again).toBe(true);
    expect(opened).toBe(2);
  });

  it('a closed port fails the bridged backend with a sticky BackendFailedError', async () => {
    const c = newChannel();
    const gpu = new GpuWindow<Port>({ open: () => fakeWindow([]), createChannel: () => c });
    const ports = new GpuPorts(
      (request) =>
        void gpu.answer({ postMessage: (m, t) => ports.answer(m as { request: number }, t?.[0]) }, request),
    );
    const b = await ports.provider().create();
    c.window.close(); // the window's renderer went away
    await new Promise((r) => setTimeout(r, 20));
    const err = await b.fft(new Float32Array(8), 4).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BackendFailedError);
    expect((err as BackendFailedError).sticky).toBe(true);
  });

  it('says why when the window cannot be opened', async () => {
    const gpu = new GpuWindow<Port>({
      open: () => {
        throw new Error('no display');
      },
      createChannel: newChannel,
    });
    const ports = new GpuPorts(
      (request) =>
        void gpu.answer(
          { postMessage: (m, t) => ports.answer(m as { request: number; reason?: string }, t?.[0]) },
          request,
        ),
    );
    expect(await ports.provider().probe()).toEqual({
      available: false,
      reason: 'backend webgpu is not available: the WebGPU window could not be opened: no display',
    });
  });
});
