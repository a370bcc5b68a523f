// Binary messages: one ArrayBuffer each, transferable through a MessagePort and sent as one binary
// WebSocket frame.
//
// Spectrogram rows (the high-rate stream):
//   u32 magic 'PHR1' | u32 header byte length | header JSON (UTF-8, space-padded to 4 bytes)
//   | f32 rows[count × width] | f32 average[width]? | f32 peak[width]?
// A reply whose result carries many floats (file spectrogram, correlation envelope, samples):
//   u32 magic 'PHB1' | u32 header byte length | JSON {id, result} (space-padded to 4 bytes) | f32 data[]

export interface RowsMessage {
  session: number;
  /** Increments by one per message of a session; acknowledged by the renderer for backpressure. */
  seq: number;
  /** Index of the first row's frame since the session started. */
  firstFrame: number;
  count: number;
  width: number;
  /** Wall-clock time (ms since the epoch, sub-ms) when the last sample of these rows reached the engine. */
  captureTime: number;
  /** Stream time (s) of the first row's frame start. */
  streamTime: number;
  rows: Float32Array;
  average?: Float32Array;
  peak?: Float32Array;
}

const MAGIC = 0x31524850; // 'PHR1' little-endian

export function encodeRows(m: RowsMessage): ArrayBuffer {
  const header = {
    session: m.session,
    seq: m.seq,
    firstFrame: m.firstFrame,
    count: m.count,
    width: m.width,
    captureTime: m.captureTime,
    streamTime: m.streamTime,
    average: !!m.average,
    peak: !!m.peak,
  };
  let json = new TextEncoder().encode(JSON.stringify(header));
  const padded = (json.length + 3) & ~3;
  if (padded !== json.length) {
    const p = new Uint8Array(padded).fill(0x20);
    p.set(json);
    json = p;
  }
  const floats = m.count * m.width + (m.average ? m.width : 0) + (m.peak ? m.width : 0);
  const buf = new ArrayBuffer(8 + json.length + 4 * floats);
  const dv = new DataView(buf);
  dv.setUint32(0, MAGIC, true);
  dv.setUint32(4, json.length, true);
  new Uint8Array(buf, 8, json.length).set(json);
  const f = new Float32Array(buf, 8 + json.length, floats);
  f.set(m.rows.subarray(0, m.count * m.width), 0);
  let o = m.count * m.width;
  if (m.average) {
    f.set(m.average, o);
    o += m.width;
  }
  if (m.peak) f.set(m.peak, o);
  return buf;
}

export function decodeRows(buf: ArrayBuffer): RowsMessage {
  if (buf.byteLength < 8) throw new Error('rows message too short');
  const dv = new DataView(buf);
  if (dv.getUint32(0, true) !== MAGIC) throw new Error('not a rows message');
  const hlen = dv.getUint32(4, true);
  if (hlen % 4 !== 0 || 8 + hlen > buf.byteLength) throw new Error('bad rows header length');
  const h = JSON.parse(new TextDecoder().decode(new Uint8Array(buf, 8, hlen))) as Omit<
    RowsMessage,
    'rows' | 'average' | 'peak'
  > & {
    average: boolean;
    peak: boolean;
  };
  const floats = (buf.byteLength - 8 - hlen) / 4;
  const need = h.count * h.width + (h.average ? h.width : 0) + (h.peak ? h.width : 0);
  if (floats !== need) throw new Error('rows message size does not match its header');
  const f = new Float32Array(buf, 8 + hlen, floats);
  const m: RowsMessage = {
    session: h.session,
    seq: h.seq,
    firstFrame: h.firstFrame,
    count: h.count,
    width: h.width,
    captureTime: h.captureTime,
    streamTime: h.streamTime,
    rows: f.subarray(0, h.count * h.width),
  };
  let o = h.count * h.width;
  if (h.average) {
    m.average = f.subarray(o, o + h.width);
    o += h.width;
  }
  if (h.peak) m.peak = f.subarray(o, o + h.width);
  return m;
}

const BINARY_REPLY_MAGIC = 0x31424850; // 'PHB1' little-endian

function paddedJson(value: unknown): Uint8Array {
  const json = new TextEncoder().encode(JSON.stringify(value));
  const padded = (json.length + 3) & ~3;
  if (padded === json.length) return json;
  const p = new Uint8Array(padded).fill(0x20);
  p.set(json);
  return p;
}

/** A successful reply whose result has a float32 payload (delivered as `result.data`). */
export function encodeBinaryReply(
  id: number,
  result: Record<string, unknown>,
  data: Float32Array,
): ArrayBuffer {
  const json = paddedJson({ id, result });
  const buf = new ArrayBuffer(8 + json.length + 4 * data.length);
  const dv = new DataView(buf);
  dv.setUint32(0, BINARY_REPLY_MAGIC, true);
  dv.setUint32(4, json.length, true);
  new Uint8Array(buf, 8, json.length).set(json);
  new Float32Array(buf, 8 + json.length, data.length).set(data);
  return buf;
}

export type BinaryMessage =
  | { kind: 'rows'; rows: RowsMessage }
  | { kind: 'reply'; id: number; result: Record<string, unknown> & { data: Float32Array } };

/** Decodes either kind of binary message. */
export function decodeBinary(buf: ArrayBuffer): BinaryMessage {
  if (buf.byteLength < 8) throw new Error('binary message too short');
  const dv = new DataView(buf);
  const magic = dv.getUint32(0, true);
  if (magic === MAGIC) return { kind: 'rows', rows: decodeRows(buf) };
  if (magic !== BINARY_REPLY_MAGIC) throw new Error('unknown binary message');
  const hlen = dv.getUint32(4, true);
  if (hlen % 4 !== 0 || 8 + hlen > buf.byteLength || (buf.byteLength - 8 - hlen) % 4 !== 0) {
    throw new Error('bad binary reply header');
  }
  const h = JSON.parse(new TextDecoder().decode(new Uint8Array(buf, 8, hlen))) as {
    id: number;
    result: Record<string, unknown>;
  };
  const data = new Float32Array(buf, 8 + hlen, (buf.byteLength - 8 - hlen) / 4);
  return { kind: 'reply', id: h.id, result: { ...h.result, data } };
}
