// The engine host's way to the desktop app's WebGPU: Dawn cannot run in an Electron process (its readback
// buffers are external ArrayBuffers, which Electron refuses), so the WebGpuBackend runs on Chromium's
// navigator.gpu in a hidden window, and the engine reaches it through the bridge
// (engine/backends/webgpu/bridge). Each backend gets a channel of its own: the host asks the main process
// for one (`gpu-port` on the parent port, messages.ts), the main process gives one end to the hidden window
// and the other to the host. A port whose other end goes away (the window crashed) fails that backend, and
// the failover moves its work on.

import { webGpuBridgeProvider } from '../engine/backends/webgpu/bridge/client.js';
import type { BridgePort } from '../engine/backends/webgpu/bridge/protocol.js';
import type { BackendProvider } from '../engine/backends/backend.js';
import type { PortLike } from './connections.js';
import type { EngineRequest } from './messages.js';

/** How long the host waits for the main process to answer a request for a port. */
const ANSWER_MS = 10_000;

/** A BridgePort over a MessagePortMain. Between processes Chromium's IPC carries each buffer's bytes once;
 * MessagePortMain transfers only ports, so the transfer list is not passed on. */
export function bridgePortOf(port: PortLike): BridgePort {
  const bridge: BridgePort = {
    postMessage: (message) => port.postMessage(message),
    onmessage: null,
    onclose: null,
  };
  port.on('message', (e) => bridge.onmessage?.({ data: e.data }));
  port.on('close', () => bridge.onclose?.());
  port.start();
  return bridge;
}

export class GpuPorts {
  readonly #ask: (request: EngineRequest) => void;
  readonly #waiting = new Map<number, (answer: { port: BridgePort } | { reason: string }) => void>();
  #next = 1;

  /** `ask` posts a request to the main process (process.parentPort.postMessage). */
  constructor(ask: (request: EngineRequest) => void) {
    this.#ask = ask;
  }

  /** A port to a new WebGPU server in the hidden window, or why there is none. */
  connect(): Promise<{ port: BridgePort } | { reason: string }> {
    const request = this.#next++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(request);
        resolve({ reason: `the app's WebGPU window did not answer within ${ANSWER_MS / 1000} s` });
      }, ANSWER_MS);
      this.#waiting.set(request, (answer) => {
        clearTimeout(timer);
        resolve(answer);
      });
      this.#ask({ type: 'gpu-port', request });
    });
  }

  /** The main process's answer to request `answer.request` (serveParent's onGpuPort). */
  answer(answer: { request: number; reason?: string }, port: PortLike | undefined): void {
    const done = this.#waiting.get(answer.request);
    if (!done) {
      port?.close();
      return;
    }
    this.#waiting.delete(answer.request);
    if (port && answer.reason === undefined) done({ port: bridgePortOf(port) });
    else done({ reason: answer.reason ?? 'the main process sent no port' });
  }

  /** The registry's provider for WebGPU in this host: the bridge to the hidden window. */
  provider(): BackendProvider {
    return webGpuBridgeProvider(() => this.connect());
  }
}
