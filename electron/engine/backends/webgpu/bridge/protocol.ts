// The WebGPU bridge's messages: the engine (client.ts) calls a backend that runs elsewhere (server.ts, on
// Chromium's navigator.gpu in the desktop app) over a MessagePort-like port.
//
//   engine ─► server   { id, op, … }                      id 0: no reply (free, reset, dispose of a processor)
//   server ─► engine   { id, ok: true, result } | { id, ok: false, error }
//
// Float32Arrays and raw integer samples travel as typed arrays whose buffers are in the transfer list, so
// on one side of a port they are moved, not copied (between processes Chromium's IPC carries the bytes
// once). Processors and DeviceArrays are numbered by the engine side, so creating one needs no round trip.
// Errors travel as the engine's error classes (WireError ↔ PhasorError): a lost device arrives as a sticky
// BackendFailedError, which the failover answers as it does for CUDA. Browser-safe: no Node imports.

import {
  BackendFailedError,
  BackendUnavailableError,
  CancelledError,
  CorruptFileError,
  InvalidArgumentError,
  PhasorError,
  UnsupportedFormatError,
  type PhasorErrorCode,
} from '../../../errors.js';
import type { RawSamples } from '../../../types.js';
import type {
  CorrelationChunk,
  CorrelatorConfig,
  DeviceBenchResult,
  FirConfig,
  SpectrogramConfig,
  SpectrogramRows,
} from '../../backend.js';

/** Bumped when a message changes shape; the engine refuses a server of another version. */
export const BRIDGE_VERSION = 1;

/** What a page posts to the bridge's worker (worker.ts) with a port in the transfer list: serve a backend on it. */
export const PORT_MESSAGE = 'phasor-webgpu-port';

/** The parts of a MessagePort the bridge uses (a web MessagePort, a worker, or an adapter around
 * Electron's MessagePortMain or a WebSocket). Only ArrayBuffers are ever in `transfer`. */
export interface BridgePort {
  postMessage(message: unknown, transfer: ArrayBuffer[]): void;
  onmessage: ((event: { data: unknown }) => void) | null;
  /** Set by the engine's side where the port can tell that its other end went away. */
  onclose?: (() => void) | null;
}

/** An input as it crosses: a host array, a DeviceArray by number, or raw integer samples. */
export type WireInput = { array: Float32Array } | { handle: number } | { raw: RawSamples };

export type ProcessorKind = 'spectrogram' | 'fir' | 'correlator';

export type BridgeRequest =
  | { id: number; op: 'hello' }
  | { id: number; op: 'upload'; handle: number; data: Float32Array }
  | { id: number; op: 'download'; handle: number }
  | { id: 0; op: 'free'; handle: number }
  | { id: number; op: 'fft'; input: WireInput; n: number; inverse: boolean }
  | { id: number; op: 'rfft' | 'irfft'; input: WireInput; n: number }
  | { id: 0; op: 'create'; proc: number; kind: 'spectrogram'; config: SpectrogramConfig }
  | { id: 0; op: 'create'; proc: number; kind: 'fir'; config: FirConfig }
  | { id: 0; op: 'create'; proc: number; kind: 'correlator'; config: CorrelatorConfig }
  | { id: number; op: 'push' | 'process'; proc: number; input: WireInput }
  | { id: number; op: 'flush'; proc: number }
  | { id: 0; op: 'reset' | 'close'; proc: number }
  | {
      id: number;
      op: 'benchmark';
      name: string;
      n: number;
      batch: number;
      reference?: boolean;
      options?: { reps?: number; endToEnd?: boolean };
    }
  | { id: number; op: 'dispose' };

/** What the server says about its backend, in answer to hello. */
export interface BridgeHello {
  version: number;
  device: string;
  details: Record<string, string | number>;
  /** Longest FIR the backend runs in direct form when the method is 'auto'. */
  firDirectMaxTaps: number;
  /** The backend times its kernels on the device (DeviceTimer). */
  deviceTimer: boolean;
}

/** A FIR's result with the frames it still holds back. */
export interface FirResult {
  output: Float32Array;
  pending: number;
}

export type BridgeResult =
  BridgeHello | Float32Array | SpectrogramRows | FirResult | CorrelationChunk | DeviceBenchResult | null;

export interface WireError {
  name: string;
  code: PhasorErrorCode | 'internal';
  message: string;
  file?: string;
  backend?: string;
  sticky?: boolean;
}

export type BridgeReply =
  { id: number; ok: true; result: BridgeResult } | { id: number; ok: false; error: WireError };

export function isBridgeReply(value: unknown): value is BridgeReply {
  if (typeof value !== 'object' || value === null) return false;
  const m = value as { id?: unknown; ok?: unknown };
  return typeof m.id === 'number' && typeof m.ok === 'boolean';
}

export function isBridgeRequest(value: unknown): value is BridgeRequest {
  if (typeof value !== 'object' || value === null) return false;
  const m = value as { id?: unknown; op?: unknown };
  return typeof m.id === 'number' && typeof m.op === 'string';
}

/** An error as it crosses the bridge: a PhasorError keeps its class, code and fields. */
export function toWireError(err: unknown): WireError {
  if (err instanceof PhasorError) {
    const w: WireError = { name: err.name, code: err.code, message: err.message };
    if (err.file !== undefined) w.file = err.file;
    if (err instanceof BackendFailedError) {
      w.backend = err.backend;
      w.sticky = err.sticky;
    } else if (err instanceof BackendUnavailableError) {
      w.backend = err.backend;
    }
    return w;
  }
  const message = err instanceof Error ? err.message : String(err);
  return { name: err instanceof Error ? err.name : 'Error', code: 'internal', message };
}

/** The error the engine throws for a WireError: the same class, code and message as on the other side. */
export function fromWireError(w: WireError): Error {
  let err: Error;
  switch (w.name) {
    case 'BackendFailedError':
      err = new BackendFailedError(w.backend ?? 'webgpu', '', { sticky: w.sticky ?? false });
      break;
    case 'BackendUnavailableError':
      err = new BackendUnavailableError(w.backend ?? 'webgpu', '');
      break;
    case 'InvalidArgumentError':
      err = new InvalidArgumentError('');
      break;
    case 'CancelledError':
      err = new CancelledError();
      break;
    case 'CorruptFileError':
      err = new CorruptFileError(w.file ?? '', '');
      break;
    case 'UnsupportedFormatError':
      err = new UnsupportedFormatError(w.file ?? '', '');
      break;
    default:
      err =
        w.code === 'internal'
          ? new Error('')
          : new PhasorError(w.code, '', w.file !== undefined ? { file: w.file } : {});
  }
  err.message = w.message;
  return err;
}

/** The buffers of the typed arrays in a message (searched through its plain objects and arrays), each
 * listed once: the message's transfer list. A view of part of a larger buffer is left out (transferring
 * it would move the rest too); it is copied instead. */
export function transferables(value: unknown, out: ArrayBuffer[] = []): ArrayBuffer[] {
  if (ArrayBuffer.isView(value)) {
    const b = value.buffer;
    if (
      b instanceof ArrayBuffer &&
      value.byteOffset === 0 &&
      value.byteLength === b.byteLength &&
      !out.includes(b)
    )
      out.push(b);
  } else if (Array.isArray(value)) {
    for (const v of value) if (typeof v === 'object' && v !== null) transferables(v, out);
  } else if (typeof value === 'object' && value !== null && !(value instanceof ArrayBuffer)) {
    for (const v of Object.values(value)) if (typeof v === 'object' && v !== null) transferables(v, out);
  }
  return out;
}
