// The bridge's messages over a byte stream (a WebSocket), for where no MessagePort reaches: a browser
// tab serving the engine, or a test driving headless Chromium. One message is one binary frame:
//
//   u32 header length │ header: the message as JSON, each typed array replaced by { $t: type, o, n }
//   │ padding to 8 bytes │ the typed arrays' bytes, each at its offset o (8-byte aligned), n elements
//
// Decoded arrays get buffers of their own, so they can be transferred on (to a worker) without a copy.

import type { BridgePort } from './protocol.js';

const TYPES = {
  Float32Array,
  Float64Array,
  Uint8Array,
  Int8Array,
  Int16Array,
  Uint16Array,
  Int32Array,
  Uint32Array,
} as const;
type TypeName = keyof typeof TYPES;
type Typed = InstanceType<(typeof TYPES)[TypeName]>;

function typeName(v: ArrayBufferView): TypeName | undefined {
  const name = v.constructor.name as TypeName;
  return name in TYPES ? name : undefined;
}

const align8 = (n: number): number => (n + 7) & ~7;

/** One message as one binary frame. */
export function encodeFrame(message: unknown): ArrayBuffer {
  const arrays: Typed[] = [];
  let bytes = 0;
  const json = JSON.stringify(message, (_key, value: unknown) => {
    if (!ArrayBuffer.isView(value)) return value;
    const t = typeName(value);
    if (t === undefined) throw new Error(`the bridge cannot send a ${value.constructor.name}`);
    const o = bytes;
    arrays.push(value as Typed);
    bytes = align8(bytes + value.byteLength);
    return { $t: t, o, n: (value as Typed).length };
  });
  const header = new TextEncoder().encode(json);
  const start = align8(4 + header.length);
  const frame = new Uint8Array(start + bytes);
  new DataView(frame.buffer).setUint32(0, header.length, true);
  frame.set(header, 4);
  let at = start;
  for (const a of arrays) {
    frame.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), at);
    at = align8(at + a.byteLength);
  }
  return frame.buffer;
}

/** The message of one binary frame. */
export function decodeFrame(frame: ArrayBuffer): unknown {
  const length = new DataView(frame).getUint32(0, true);
  const json = new TextDecoder().decode(new Uint8Array(frame, 4, length));
  const start = align8(4 + length);
  return JSON.parse(json, (_key, value: unknown) => {
    const v = value as { $t?: unknown; o?: unknown; n?: unknown } | null;
    if (typeof v !== 'object' || v === null || typeof v.$t !== 'string' || !(v.$t in TYPES)) return value;
    const Type = TYPES[v.$t as TypeName];
    const at = start + (v.o as number);
    return new Type(frame.slice(at, at + (v.n as number) * Type.BYTES_PER_ELEMENT));
  });
}

/** The parts of a WebSocket used here (the browser's, or the ws package's with binaryType 'arraybuffer'). */
export interface SocketLike {
  send(data: ArrayBuffer): void;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: (() => void) | null;
}

/** A BridgePort over a WebSocket: each message one binary frame (transfer lists have no meaning here);
 * the socket closing tells the engine's side that the far side went away. */
export function socketPort(socket: SocketLike): BridgePort {
  const port: BridgePort = {
    postMessage: (message) => socket.send(encodeFrame(message)),
    onmessage: null,
    onclose: null,
  };
  socket.onclose = () => port.onclose?.();
  socket.onmessage = (event) => {
    if (event.data instanceof ArrayBuffer) port.onmessage?.({ data: decodeFrame(event.data) });
  };
  return port;
}
