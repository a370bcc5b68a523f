// The page of chromium-bridge.test.ts (bundled by the test): it starts the bridge's worker (bridge/worker.ts),
// hands it one end of a MessageChannel, and relays between the other end and a WebSocket to the test, which
// stands in for the desktop app's MessagePortMain. The messages are the bridge's own (wire.ts frames them).
import { PORT_MESSAGE, transferables } from '../../electron/engine/backends/webgpu/bridge/protocol.js';
import type { BridgePort } from '../../electron/engine/backends/webgpu/bridge/protocol.js';
import { socketPort, type SocketLike } from '../../electron/engine/backends/webgpu/bridge/wire.js';

interface PageScope {
  location: { host: string };
  WebSocket: new (url: string) => SocketLike & { binaryType: string; onopen: (() => void) | null };
  Worker: new (
    url: string,
    options: { type: 'module' },
  ) => {
    postMessage(message: unknown, transfer: unknown[]): void;
    onerror: ((event: { message: string }) => void) | null;
  };
  MessageChannel: new () => { port1: BridgePort; port2: unknown };
}

const page = globalThis as unknown as PageScope;
const worker = new page.Worker('/worker.js', { type: 'module' });
worker.onerror = (event) => console.error(`the bridge worker failed: ${event.message}`);
const channel = new page.MessageChannel();
worker.postMessage({ type: PORT_MESSAGE }, [channel.port2]);

const ws = new page.WebSocket(`ws://${page.location.host}/bridge`);
ws.binaryType = 'arraybuffer';
const socket = socketPort(ws);
socket.onmessage = (event) => channel.port1.postMessage(event.data, transferables(event.data));
channel.port1.onmessage = (event) => socket.postMessage(event.data, []);
