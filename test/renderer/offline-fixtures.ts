// Shared pieces for the offline views' tests: FileInfo values, and a long request the test drives by hand
// (progress events, completion, cancel) through the FakeConnection.
import type {
  FileInfo,
  Method,
  MethodParams,
  MethodResults,
  ProgressEvent,
} from '../../electron/engine/protocol/messages.js';
import { RequestError, type RequestOptions } from '../../renderer/src/transport/connection.js';
import type { FakeConnection } from './fake-connection.js';

let nextFile = 1;

export function fileInfo(extra: Partial<FileInfo> = {}): FileInfo {
  const sampleRate = extra.sampleRate ?? 48000;
  const samples = extra.samples ?? 4 * sampleRate;
  return {
    file: nextFile++,
    path: '/data/tones.wav',
    name: 'tones.wav',
    container: 'wav',
    encoding: 'ri16_le',
    sampleRate,
    channels: 1,
    complex: false,
    samples,
    duration: samples / sampleRate,
    bytes: 44 + 2 * samples,
    annotations: [],
    warnings: [],
    ...extra,
  };
}

/** A request the test finishes: progress(), resolve(), reject(); abort rejects it as the engine would. */
export interface Driven<M extends Method> {
  params: MethodParams[M] | null;
  options: RequestOptions | null;
  calls: number;
  progress(done: number, total?: number, extra?: Partial<ProgressEvent>): void;
  resolve(result: MethodResults[M]): void;
  reject(code: string, message: string): void;
  cancelled: boolean;
}

export function drive<M extends Method>(conn: FakeConnection, method: M): Driven<M> {
  let settle: { resolve(v: MethodResults[M]): void; reject(e: Error): void } | null = null;
  const d: Driven<M> = {
    params: null,
    options: null,
    calls: 0,
    cancelled: false,
    progress(done, total, extra = {}) {
      d.options?.onProgress?.({ request: 1, done, total, unit: 'frames', ...extra });
    },
    resolve(result) {
      settle?.resolve(result);
    },
    reject(code, message) {
      settle?.reject(new RequestError(code, message));
    },
  };
  conn.handle(method, (params, options) => {
    d.params = params;
    d.options = options;
    d.calls++;
    return new Promise<MethodResults[M]>((resolve, reject) => {
      settle = { resolve, reject };
      options.signal?.addEventListener('abort', () => {
        d.cancelled = true;
        reject(new RequestError('cancelled', 'cancelled'));
      });
    });
  });
  return d;
}
