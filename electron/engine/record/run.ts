// `phasor record`: a live source written to disk for a given length of signal, headless. The blocks go
// straight from the source to the Recorder (raw integers where the source has them: rtl_tcp's bytes), one
// at a time; a disk slower than the source makes the source drop blocks, which the recording marks as
// gaps. Ctrl-C (the signal) stops it cleanly and keeps the file.
//
//   const r = await runRecord({ source: { kind: 'generator' }, duration: 2, output: 'tone.wav' });
//   // { path, paths, frames, seconds, bytes, dropped, gaps, sampleRate, stopped: 'duration reached' }

import { CancelledError, InvalidArgumentError, PhasorError, type WarningHandler } from '../errors.js';
import { sourceKinds, type SourceKindRegistry } from '../sources/kinds.js';
import type { LiveSource } from '../sources/live-source.js';
import { liveBlockFrames } from '../sources/pace.js';
import { isRawSamples, valuesPerFrame, type SamplesInput } from '../types.js';
import { Recorder, STOPPED, checkRecordingPath, type RecordBlock, type RecordingStats } from './recorder.js';

export interface RecordOptions {
  /** Source parameters, as for monitor ({ kind: 'generator', frequency }, { kind: 'mic' }…). */
  source: unknown;
  /** Seconds of signal (stream time, drops included) to record, > 0. */
  duration: number;
  /** .sigmf-meta / .sigmf-data / .sigmf (SigMF) or .wav; never overwritten. */
  output: string;
  /** Stops the recording cleanly (the file is kept). */
  signal?: AbortSignal;
  onWarning?: WarningHandler;
  /** About once a second while recording, and once at the end. */
  onStatus?: (stats: RecordingStats & { freeBytes?: number }) => void;
  /** core:recorder ("phasor <version>" by default). */
  software?: string;
  kinds?: SourceKindRegistry;
  /** Recorder settings (tests). */
  metaIntervalMs?: number;
  rf64Threshold?: number;
}

export interface RecordResult {
  path: string;
  paths: string[];
  frames: number;
  seconds: number;
  bytes: number;
  /** Frames the source lost while recording, and the gaps they left. */
  dropped: number;
  gaps: number;
  sampleRate: number;
  centerFrequency?: number;
  datatype: string;
  /** Why it stopped ("duration reached", "requested", "disk full", "source ended", "source failed: …"). */
  stopped: string;
  /** The recording stopped by its own failure (a full disk) or its source's: the file is still valid. */
  failed: boolean;
  source: string;
}

/** The first `frames` frames of a block's samples. */
function head(data: SamplesInput, values: number): SamplesInput {
  if (isRawSamples(data)) return { ...data, data: data.data.subarray(0, values) };
  return data.subarray(0, values);
}

export async function runRecord(options: RecordOptions): Promise<RecordResult> {
  const { duration, output } = options;
  if (!(typeof duration === 'number' && Number.isFinite(duration) && duration > 0 && duration <= 604800)) {
    throw new InvalidArgumentError(`--duration must be a number of seconds in (0, 604800], got ${duration}`);
  }
  // The path's extension and an existing file are refused before a device opens.
  await checkRecordingPath(output);
  const kinds = options.kinds ?? sourceKinds;
  const source: LiveSource = await kinds.open(
    options.source,
    options.onWarning ? { onWarning: options.onWarning } : {},
  );
  let recorder: Recorder | undefined;
  let timer: ReturnType<typeof setInterval> | undefined;
  const stop = new AbortController();
  const onAbort = (): void => stop.abort();
  options.signal?.addEventListener('abort', onAbort);
  if (options.signal?.aborted) stop.abort();
  try {
    const info = source.info;
    recorder = await Recorder.create({
      path: output,
      format: info,
      encoding: info.encoding,
      label: source.label,
      ...(info.path !== undefined ? { inputs: [info.path] } : {}),
      ...(options.software !== undefined ? { software: options.software } : {}),
      ...(options.metaIntervalMs !== undefined ? { metaIntervalMs: options.metaIntervalMs } : {}),
      ...(options.rf64Threshold !== undefined ? { rf64Threshold: options.rf64Threshold } : {}),
    });
    const rec = recorder;
    const report = async (): Promise<void> => {
      const free = await rec.freeBytes();
      options.onStatus?.({ ...rec.stats(), ...(free !== undefined ? { freeBytes: free } : {}) });
    };
    if (options.onStatus) {
      timer = setInterval(() => void report(), 1000);
      timer.unref();
    }
    const target = Math.max(1, Math.round(duration * info.sampleRate));
    const vpf = valuesPerFrame(info);
    let first: number | undefined;
    let reason: string = STOPPED.sourceEnded;
    try {
      for await (const block of source.blocks({
        raw: true,
        blockFrames: liveBlockFrames(info.sampleRate),
        signal: stop.signal,
      })) {
        if (stop.signal.aborted) break;
        first ??= block.start;
        const room = target - (block.start - first);
        if (room <= 0) {
          reason = STOPPED.duration;
          break;
        }
        const b: RecordBlock =
          block.frames <= room ? block : { ...block, frames: room, data: head(block.data, room * vpf) };
        if (!(await rec.write(b))) break;
        if (block.start - first + b.frames >= target) {
          reason = STOPPED.duration;
          break;
        }
      }
    } catch (err) {
      if (!(stop.signal.aborted && err instanceof CancelledError)) {
        const why =
          err instanceof PhasorError
            ? err.file !== undefined
              ? `${err.file}: ${err.message}`
              : err.message
            : String(err);
        reason = STOPPED.sourceFailed(why);
      }
    }
    if (stop.signal.aborted) reason = STOPPED.requested;
    const s = await rec.stop(reason);
    if (timer) clearInterval(timer);
    if (options.onStatus) await report();
    const result: RecordResult = {
      path: s.path,
      paths: s.paths,
      frames: s.frames,
      seconds: s.seconds,
      bytes: s.bytes,
      dropped: s.droppedFrames,
      gaps: s.gaps,
      sampleRate: s.sampleRate,
      datatype: s.datatype,
      stopped: s.stopped ?? reason,
      failed: s.failed || (s.stopped ?? '').startsWith('source failed'),
      source: source.label,
    };
    if (s.centerFrequency !== undefined) result.centerFrequency = s.centerFrequency;
    return result;
  } finally {
    if (timer) clearInterval(timer);
    options.signal?.removeEventListener('abort', onAbort);
    await recorder?.stop(STOPPED.requested).catch(() => undefined);
    await source.close().catch(() => undefined);
  }
}
