// The far side of the WebGPU bridge: runs a backend (in the desktop app, the WebGpuBackend on Chromium's
// navigator.gpu, see browser.ts) for the engine on the other end of a port.
//
//   serveBackend(port, () => openBrowserWebGpu(navigator.gpu));
//
// Messages are handled in arrival order, each as a local caller would make the same call: the backend
// itself runs its calls one at a time. Results go back with their buffers transferred. A backend that
// cannot be opened answers hello (and every later call) with its BackendUnavailableError.

import { InvalidArgumentError } from '../../../errors.js';
import { hasDeviceTimer } from '../../backend.js';
import type {
  ArrayInput,
  Backend,
  Correlator,
  DeviceArray,
  FirFilter,
  ProcessorInput,
  SpectrogramProcessor,
} from '../../backend.js';
import {
  BRIDGE_VERSION,
  isBridgeRequest,
  toWireError,
  transferables,
  type BridgeHello,
  type BridgePort,
  type BridgeRequest,
  type BridgeResult,
  type WireInput,
} from './protocol.js';

type ProcessorOf = { spectrogram: SpectrogramProcessor; fir: FirFilter; correlator: Correlator };
type Processor =
  | { kind: 'spectrogram'; p: SpectrogramProcessor }
  | { kind: 'fir'; p: FirFilter }
  | { kind: 'correlator'; p: Correlator };

export interface ServeOptions {
  /** FIR length up to which 'auto' picks direct form on this backend (reported to the engine). */
  firDirectMaxTaps: number;
  /** Told about errors of calls that have no reply (free, reset, close of a processor). */
  onError?(err: unknown): void;
}

/** Serves the backend `open` makes to the engine at the other end of `port`, until it is disposed. */
export function serveBackend(port: BridgePort, open: () => Promise<Backend>, options: ServeOptions): void {
  const opening = open();
  opening.catch(() => undefined); // reported to the engine by hello
  const arrays = new Map<number, DeviceArray>();
  // A processor that could not be created keeps its error: its next call reports it.
  const processors = new Map<number, Processor | { kind: 'error'; error: unknown }>();

  const input = (w: WireInput): ProcessorInput => {
    if ('array' in w) return w.array;
    if ('raw' in w) return w.raw;
    const a = arrays.get(w.handle);
    if (!a) throw new InvalidArgumentError('the DeviceArray was freed and cannot be used');
    return a;
  };
  const arrayInput = (w: WireInput): ArrayInput => {
    if ('raw' in w) throw new InvalidArgumentError('expected a Float32Array or a DeviceArray');
    return input(w) as ArrayInput;
  };
  const processor = <K extends keyof ProcessorOf>(proc: number, kind: K): ProcessorOf[K] => {
    const p = processors.get(proc);
    if (!p) throw new InvalidArgumentError(`the ${kind} was disposed and cannot be used`);
    if (p.kind === 'error') throw p.error;
    if (p.kind !== kind) throw new InvalidArgumentError(`processor ${proc} is not a ${kind}`);
    return p.p as ProcessorOf[K];
  };

  async function run(m: BridgeRequest): Promise<BridgeResult> {
    const b = await opening;
    switch (m.op) {
      case 'hello': {
        const hello: BridgeHello = {
          version: BRIDGE_VERSION,
          device: b.device,
          details: { ...(b.details ?? {}) },
          firDirectMaxTaps: options.firDirectMaxTaps,
          deviceTimer: hasDeviceTimer(b),
        };
        return hello;
      }
      case 'upload':
        arrays.set(m.handle, await b.upload(m.data));
        return null;
      case 'download': {
        const a = arrays.get(m.handle);
        if (!a) throw new InvalidArgumentError('the DeviceArray was freed and cannot be used');
        return a.download();
      }
      case 'free':
        arrays.get(m.handle)?.free();
        arrays.delete(m.handle);
        return null;
      case 'fft':
        return b.fft(arrayInput(m.input), m.n, { inverse: m.inverse });
      case 'rfft':
        return b.rfft(arrayInput(m.input), m.n);
      case 'irfft':
        return b.irfft(arrayInput(m.input), m.n);
      case 'create':
        try {
          if (m.kind === 'spectrogram')
            processors.set(m.proc, { kind: m.kind, p: b.createSpectrogram(m.config) });
          else if (m.kind === 'fir') processors.set(m.proc, { kind: m.kind, p: b.createFir(m.config) });
          else processors.set(m.proc, { kind: m.kind, p: b.createCorrelator(m.config) });
        } catch (error) {
          processors.set(m.proc, { kind: 'error', error });
        }
        return null;
      case 'push':
        return processor(m.proc, 'spectrogram').push(input(m.input));
      case 'process': {
        const p = processors.get(m.proc);
        if (p?.kind === 'correlator') return p.p.process(input(m.input));
        const fir = processor(m.proc, 'fir');
        const output = await fir.process(input(m.input));
        return { output, pending: fir.pending };
      }
      case 'flush': {
        const p = processors.get(m.proc);
        if (p?.kind === 'correlator') return p.p.flush();
        const fir = processor(m.proc, 'fir');
        const output = await fir.flush();
        return { output, pending: fir.pending };
      }
      case 'reset': {
        const p = processors.get(m.proc);
        if (p && p.kind !== 'error') p.p.reset();
        return null;
      }
      case 'close': {
        const p = processors.get(m.proc);
        processors.delete(m.proc);
        if (p && p.kind !== 'error') p.p.dispose();
        return null;
      }
      case 'benchmark':
        if (!hasDeviceTimer(b)) throw new InvalidArgumentError(`backend ${b.name} has no device timer`);
        return b.benchmark(m.name, m.n, m.batch, m.reference, m.options);
      case 'dispose':
        for (const p of processors.values()) if (p.kind !== 'error') p.p.dispose();
        processors.clear();
        for (const a of arrays.values()) a.free();
        arrays.clear();
        await b.dispose();
        return null;
    }
  }

  port.onmessage = (event) => {
    const m = event.data;
    if (!isBridgeRequest(m)) return;
    run(m).then(
      (result) => {
        if (m.id !== 0) port.postMessage({ id: m.id, ok: true, result }, transferables(result));
      },
      (err: unknown) => {
        if (m.id !== 0) port.postMessage({ id: m.id, ok: false, error: toWireError(err) }, []);
        else options.onError?.(err);
      },
    );
  };
}
