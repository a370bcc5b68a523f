// The one typed protocol between the renderer and the engine, carried by Electron IPC (rows through a
// MessagePort) in the desktop app and by a WebSocket in web mode (`phasor serve`).
//
// This folder is browser-safe (no Node imports): the renderer imports it too. Every request is validated
// with these schemas on the engine side; a malformed one gets an error reply, never a crash.
//
// Envelopes
//   renderer → engine: { type: 'request', id, method, params }   and   { type: 'ack', session, seq }
//   engine → renderer: { type: 'reply', id, ok: true, result } | { type: 'reply', id, ok: false, error }
//                      { type: 'event', event, data }            and   binary rows (rows-codec.ts)

import { z } from 'zod';

export const PROTOCOL_VERSION = 1;

// ---------------------------------------------------------------------------------------------------
// Live analysis settings

export const analysisSchema = z.object({
  /** Frame length: any n from 16 to 262144 (not only powers of two). */
  fft: z.number().int().min(16).max(262144),
  /** Fraction of a frame shared with the next one. */
  overlap: z.number().min(0).max(0.95),
  /** Window spec: hann, hamming, blackman, blackmanharris, flattop, rectangular, kaiser:BETA. */
  window: z.string().min(1).max(32),
  /** Exponential average weight of a new frame for the average trace, in (0, 1]. */
  averaging: z.number().gt(0).max(1),
  /** Display columns wanted (the engine reduces bins to at most this many, by max). */
  columns: z.number().int().min(1).max(16384),
});
export type Analysis = z.infer<typeof analysisSchema>;

export const defaultAnalysis: Analysis = {
  fft: 2048,
  overlap: 0.75,
  window: 'hann',
  averaging: 0.1,
  columns: 2048,
};

/**
 * A source as the renderer asks for it: a kind plus that kind's parameters. Each kind (generator, mic,
 * file, later rtl_tcp…) is described by the engine in the hello reply (SourceKind) and validated there
 * against its own schema, so a new kind needs no change in the view.
 */
export const sourceParamsSchema = z.looseObject({ kind: z.string().min(1).max(32) });
export type SourceParams = z.infer<typeof sourceParamsSchema>;

/** One field of a source's form, so the view can draw controls for kinds it does not know. */
export interface SourceField {
  name: string;
  label: string;
  type: 'number' | 'text' | 'boolean' | 'select' | 'device' | 'file';
  default?: number | string | boolean;
  min?: number;
  max?: number;
  step?: number;
  unit?: string;
  options?: Array<{ value: string | number; label: string }>;
}

export interface SourceKind {
  kind: string;
  label: string;
  fields: SourceField[];
  /** Why the kind cannot be used here (e.g. no audio input library), when it cannot. */
  unavailable?: string;
}

export interface BackendState {
  name: string;
  available: boolean;
  device?: string;
  reason?: string;
}

export interface AudioDevice {
  id: string;
  name: string;
  isDefault: boolean;
  channels: number;
  sampleRates: number[];
  preferredSampleRate: number;
}

export interface HelloResult {
  version: number;
  /** The backend live analysis runs on. */
  backend: { name: string; device: string };
  backends: BackendState[];
  sources: SourceKind[];
  windows: string[];
  defaults: { analysis: Analysis; source: SourceParams };
}

export interface LiveInfo {
  session: number;
  sampleRate: number;
  complex: boolean;
  centerFrequency?: number;
  fft: number;
  hop: number;
  /** Bins per frame before reduction. */
  bins: number;
  /** Values per row sent (≤ columns asked for). */
  width: number;
  /** Lowest and highest frequency of the rows (Hz, absolute for I/Q with a known centre). */
  frequencyRange: [number, number];
  /** Rows per second of stream time. */
  rowRate: number;
  source: string;
}

// ---------------------------------------------------------------------------------------------------
// Requests

export const requestSchemas = {
  hello: z.object({}),
  listDevices: z.object({ kind: z.string().min(1).max(32) }),
  start: z.object({ source: sourceParamsSchema, analysis: analysisSchema }),
  configure: z.object({ analysis: analysisSchema.partial() }),
  stop: z.object({}),
  resetPeak: z.object({}),
} as const;

export type Method = keyof typeof requestSchemas;

export interface MethodResults {
  hello: HelloResult;
  listDevices: { devices: AudioDevice[] };
  start: LiveInfo;
  configure: LiveInfo;
  stop: Record<string, never>;
  resetPeak: Record<string, never>;
}

export type MethodParams = { [M in Method]: z.input<(typeof requestSchemas)[M]> };

export const requestEnvelopeSchema = z.object({
  type: z.literal('request'),
  id: z.number().int().min(0),
  method: z.string().max(64),
  params: z.unknown(),
});

export const ackEnvelopeSchema = z.object({
  type: z.literal('ack'),
  session: z.number().int().min(0),
  seq: z.number().int().min(0),
});

export const clientMessageSchema = z.discriminatedUnion('type', [requestEnvelopeSchema, ackEnvelopeSchema]);
export type ClientMessage = z.infer<typeof clientMessageSchema>;

// ---------------------------------------------------------------------------------------------------
// Replies and events

export interface ErrorInfo {
  /** PhasorError code, or 'bad-request' for a malformed message. */
  code: string;
  message: string;
}

export type ReplyMessage =
  | { type: 'reply'; id: number; ok: true; result: unknown }
  | { type: 'reply'; id: number; ok: false; error: ErrorInfo };

export interface StatusEvent {
  session: number;
  backend: string;
  sampleRate: number;
  /** Source blocks processed per second (over the last second). */
  blocksPerSecond: number;
  rowsPerSecond: number;
  /** Rows dropped because the display did not keep up (since start). */
  droppedRows: number;
  /** Source blocks lost (the source overran, e.g. audio input overflow), since start. */
  droppedBlocks: number;
  /** Median compute time per block (ms) over the last second. */
  computeMs: number;
}

export interface SourceEvent {
  session: number;
  state: 'running' | 'ended' | 'error';
  message?: string;
}

export interface EventMap {
  status: StatusEvent;
  source: SourceEvent;
}

export type EventMessage = {
  [E in keyof EventMap]: { type: 'event'; event: E; data: EventMap[E] };
}[keyof EventMap];

export type ServerMessage = ReplyMessage | EventMessage;
