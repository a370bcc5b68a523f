// When a recording began, as far as its metadata says: SigMF's core:datetime of the first capture (the
// time of that capture's first sample), moved back by the capture's core:sample_start. WAV and raw files
// carry no start time (their mtime is when writing ended, not when the recording began).

import type { SigmfMetadata } from '../sources/source.js';

/** ISO 8601 UTC time of the recording's sample 0, or undefined when the metadata gives none. */
export function recordingStartTime(info: { sigmf?: SigmfMetadata; sampleRate: number }): string | undefined {
  const capture = info.sigmf?.captures.find((c) => typeof c['core:datetime'] === 'string');
  if (!capture) return undefined;
  const ms = Date.parse(capture['core:datetime'] as string);
  if (!Number.isFinite(ms)) return undefined;
  const start = capture['core:sample_start'];
  const offset = typeof start === 'number' && Number.isFinite(start) ? (start / info.sampleRate) * 1000 : 0;
  const t = new Date(ms - offset);
  return Number.isFinite(t.getTime()) ? t.toISOString() : undefined;
}
