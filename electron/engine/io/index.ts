// File I/O of the engine: readers (WAV/RF64/BW64, SigMF, raw IQ) and writers (WAV/RF64, SigMF).

export { openSource, parseRawFormat, RAW_FORMAT_HELP } from './open.js';
export {
  createWriter,
  defaultOutputEncoding,
  outputContainer,
  buildSigmfMetadata,
  PHASOR_SIGMF_NAMESPACE,
  type OutputContainer,
  type SampleWriter,
  type WriterOptions,
} from './writer.js';
export { removePendingTemporaries, pendingTemporaries } from './temporary.js';
export {
  parseEncoding,
  encodingName,
  quantization,
  decodeValues,
  encodeValues,
  RAW_FORMAT_ALIASES,
  type SampleEncoding,
  type SampleKind,
  type Quantization,
  type U8Convention,
} from './encoding.js';
export { sigmfPair, SIGMF_VERSION, type SigmfDescription } from './sigmf.js';
export { FileSampleSource } from './reader.js';
export { DEFAULT_BLOCK_FRAMES, resolveRange, type ReadRange } from './range.js';
