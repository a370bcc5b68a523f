// openSource: picks the reader from the file name (or its first bytes) and returns a block source.

import { basename, extname } from 'node:path';
import {
  CorruptFileError,
  InvalidArgumentError,
  PhasorError,
  quote,
  UnsupportedFormatError,
} from '../errors.js';
import type { ContainerFormat, OpenOptions, SampleSource, SigmfMetadata } from '../sources/source.js';
import {
  RAW_FORMAT_ALIASES,
  bytesPerValue,
  encodingName,
  parseEncoding,
  type SampleEncoding,
  type U8Convention,
} from './encoding.js';
import { openRegularFile, readAt, wrapOsError, type OpenedFile } from './file.js';
import { FileSampleSource } from './reader.js';
import { MAX_META_BYTES, sigmfPair, type SigmfDescription } from './sigmf.js';
import { listTar } from './tar.js';

const META_TOO_LARGE = `larger than the ${MAX_META_BYTES / (1024 * 1024)} MiB limit of SigMF metadata`;
import { parseWav, truncationMessage } from './wav.js';

/** The SigMF metadata parser (and its schema library), loaded with the first SigMF recording opened. */
const sigmfMeta = () => import('./sigmf-meta.js');

const WAV_EXTENSIONS = new Set(['.wav', '.wave', '.rf64', '.bw64']);
const RAW_NAMED_EXTENSIONS = new Set(['.cu8', '.cs8', '.cs16', '.cf32', '.cfile']);
const RAW_UNNAMED_EXTENSIONS = new Set(['.raw', '.iq', '.bin', '.dat']);

export const RAW_FORMAT_HELP = 'cu8, cs8, cs16 or cf32 (or a SigMF datatype such as ci16_le)';

/** What a container parser found, before the options (--iq, --center) are applied. */
interface Found {
  readonly container: ContainerFormat;
  readonly path: string;
  readonly opened: OpenedFile;
  readonly dataOffset: number;
  readonly frames: number;
  readonly promisedFrames?: number;
  readonly stored: SampleEncoding;
  readonly u8: U8Convention;
  readonly channels: number;
  readonly sampleRate: number;
  readonly centerFrequency?: number;
  readonly sigmf?: SigmfMetadata;
  readonly warnings: readonly string[];
}

function checkOptions(options: OpenOptions): void {
  const { rate, center, format } = options;
  if (format !== undefined && typeof format !== 'string') {
    throw new InvalidArgumentError(`--format must be a name such as cu8 or cs16, got ${String(format)}`);
  }
  if (rate !== undefined && (typeof rate !== 'number' || !Number.isFinite(rate) || rate <= 0)) {
    throw new InvalidArgumentError(`--rate must be a positive number of Hz, got ${rate}`);
  }
  if (center !== undefined && (typeof center !== 'number' || !Number.isFinite(center))) {
    throw new InvalidArgumentError(`--center must be a finite number of Hz, got ${center}`);
  }
}

/** The SigMF encoding of a raw IQ format name ('cu8', 'cs16', 'cf32', 'ci16_le'…), or undefined. */
export function parseRawFormat(name: string): SampleEncoding | undefined {
  const key = name.trim().toLowerCase();
  const alias = RAW_FORMAT_ALIASES[key];
  return parseEncoding(alias ?? key, { littleEndian: true, complex: true });
}

/**
 * Opens a recording: WAV/RF64/BW64, SigMF (either file of the pair, or a .sigmf archive) or raw IQ.
 * Reads only the header; samples are read when the consumer pulls blocks.
 */
export async function openSource(path: string, options: OpenOptions = {}): Promise<SampleSource> {
  checkOptions(options);
  const ext = extname(path).toLowerCase();
  if (WAV_EXTENSIONS.has(ext)) return withFile(path, (f) => openWav(path, f), options);
  if (ext === '.sigmf-meta' || ext === '.sigmf-data') return openSigmfPair(path, options);
  if (ext === '.sigmf') return withFile(path, (f) => openSigmfArchive(path, f, options), options);
  if (RAW_NAMED_EXTENSIONS.has(ext)) {
    const format = options.format ?? ext.slice(1);
    return withFile(
      path,
      (f) => openRaw(path, f, format, options),
      options,
      () => rawPreflight(format, options),
    );
  }
  if (options.format !== undefined) {
    const format = options.format;
    return withFile(
      path,
      (f) => openRaw(path, f, format, options),
      options,
      () => rawPreflight(format, options),
    );
  }
  // No format given: a WAV under another name is still a WAV.
  return withFile(
    path,
    async (f) => {
      if (f.size === 0) throw new CorruptFileError(path, 'empty file (0 bytes)');
      const head = await readAt(f.handle, path, 0, 4);
      const magic = String.fromCharCode(...head);
      if (magic === 'RIFF' || magic === 'RF64' || magic === 'BW64') return openWav(path, f);
      if (RAW_UNNAMED_EXTENSIONS.has(ext)) {
        throw new InvalidArgumentError(`${path}: raw IQ needs --format (${RAW_FORMAT_HELP}) and --rate`);
      }
      throw new UnsupportedFormatError(
        path,
        `unknown file type (not WAV, RF64 or SigMF); for raw IQ pass --format (${RAW_FORMAT_HELP}) and --rate (Hz)`,
      );
    },
    options,
  );
}

/** Opens `path`, runs `parse`, and closes the file if parsing fails. */
async function withFile(
  path: string,
  parse: (f: OpenedFile) => Promise<Found>,
  options: OpenOptions,
  preflight?: () => void,
): Promise<SampleSource> {
  preflight?.();
  const f = await openRegularFile(path);
  try {
    return finish(await parse(f), options);
  } catch (err) {
    await f.handle.close().catch(() => undefined);
    throw wrapOsError(path, err);
  }
}

function finish(found: Found, options: OpenOptions): SampleSource {
  const { stored } = found;
  let complex = stored.complex;
  let channels = found.channels;
  if (options.iq === true && !complex) {
    if (channels !== 2) {
      throw new InvalidArgumentError(
        `${found.path}: --iq reads a two-channel file as I/Q, but this one has ${channels} channel${channels === 1 ? '' : 's'}`,
      );
    }
    complex = true;
    channels = 1;
  }
  const centerFrequency = complex ? (options.center ?? found.centerFrequency) : undefined;
  for (const message of found.warnings) options.onWarning?.({ file: found.path, message });
  return new FileSampleSource({
    path: found.path,
    handle: found.opened.handle,
    dataOffset: found.dataOffset,
    frames: found.frames,
    stored,
    u8: found.u8,
    valuesPerFrame: found.channels * (stored.complex ? 2 : 1),
    info: {
      container: found.container,
      encoding: encodingName({ ...stored, complex }),
      sampleRate: found.sampleRate,
      complex,
      channels,
      ...(centerFrequency === undefined ? {} : { centerFrequency }),
      samples: found.frames,
      ...(found.promisedFrames === undefined ? {} : { promisedSamples: found.promisedFrames }),
      path: found.path,
      ...(found.sigmf === undefined ? {} : { sigmf: found.sigmf }),
    },
  });
}

async function openWav(path: string, f: OpenedFile): Promise<Found> {
  const w = await parseWav(f.handle, path, f.size);
  return {
    container: w.container,
    path,
    opened: f,
    dataOffset: w.dataOffset,
    frames: w.frames,
    promisedFrames: w.promisedFrames,
    stored: w.stored,
    u8: 'wav',
    channels: w.channels,
    sampleRate: w.sampleRate,
    warnings: w.warnings,
  };
}

function rawPreflight(format: string, options: OpenOptions): void {
  if (parseRawFormat(format) === undefined) {
    throw new InvalidArgumentError(`unknown raw IQ format '${format}'; use ${RAW_FORMAT_HELP}`);
  }
  if (options.rate === undefined) throw new InvalidArgumentError('raw IQ needs --rate (sample rate in Hz)');
}

async function openRaw(path: string, f: OpenedFile, format: string, options: OpenOptions): Promise<Found> {
  const stored = parseRawFormat(format)!;
  if (f.size === 0) throw new CorruptFileError(path, 'empty file (0 bytes)');
  const frameBytes = (stored.complex ? 2 : 1) * bytesPerValue(stored);
  const frames = Math.floor(f.size / frameBytes);
  const rest = f.size - frames * frameBytes;
  return {
    container: 'raw',
    path,
    opened: f,
    dataOffset: 0,
    frames,
    stored,
    u8: 'sigmf',
    channels: 1,
    sampleRate: options.rate!,
    warnings: rest > 0 ? [partialFrameMessage(rest)] : [],
  };
}

function partialFrameMessage(bytes: number): string {
  return `truncated: the file ends inside a frame (${bytes} byte${bytes === 1 ? '' : 's'} after the last whole frame ignored)`;
}

function sigmfFound(
  desc: SigmfDescription,
  path: string,
  opened: OpenedFile,
  memberOffset: number,
  promisedBytes: number,
): Found {
  const { stored } = desc;
  const frameBytes = desc.channels * (stored.complex ? 2 : 1) * bytesPerValue(stored);
  const sampleBytes = promisedBytes - desc.headerBytes - desc.trailingBytes;
  if (sampleBytes < 0) {
    throw new CorruptFileError(
      path,
      `the data (${promisedBytes} bytes) is smaller than its core:header_bytes + core:trailing_bytes`,
    );
  }
  const dataOffset = memberOffset + desc.headerBytes;
  const available = Math.max(0, Math.min(sampleBytes, opened.size - dataOffset));
  const promised = Math.floor(sampleBytes / frameBytes);
  const frames = Math.floor(available / frameBytes);
  const warnings: string[] = [];
  // A recorder marks its metadata so while it writes (record/recorder.ts): one killed left it so.
  if (desc.metadata.global['phasor:recording'] === true) {
    warnings.push(
      `the recording did not finish (its metadata still says it is in progress): reading the ${frames} whole frames its data file holds`,
    );
  }
  if (frames < promised) warnings.push(truncationMessage(promised, frames));
  else if (sampleBytes > frames * frameBytes)
    warnings.push(partialFrameMessage(sampleBytes - frames * frameBytes));
  return {
    container: 'sigmf',
    path,
    opened,
    dataOffset,
    frames,
    promisedFrames: frames < promised ? promised : undefined,
    stored,
    u8: 'sigmf',
    channels: desc.channels,
    sampleRate: desc.sampleRate,
    centerFrequency: desc.centerFrequency,
    sigmf: desc.metadata,
    warnings,
  };
}

async function openSigmfPair(path: string, options: OpenOptions): Promise<SampleSource> {
  const { meta, data } = sigmfPair(path);
  const m = await openRegularFile(meta);
  let text: string;
  try {
    if (m.size === 0) throw new CorruptFileError(meta, 'malformed SigMF metadata: empty file (0 bytes)');
    if (m.size > MAX_META_BYTES)
      throw new CorruptFileError(meta, `SigMF metadata of ${m.size} bytes is ${META_TOO_LARGE}`);
    text = new TextDecoder().decode(await readAt(m.handle, meta, 0, m.size));
  } finally {
    await m.handle.close().catch(() => undefined);
  }
  const desc = (await sigmfMeta()).parseSigmfMeta(text, meta, options.rate);
  let d: OpenedFile;
  try {
    d = await openRegularFile(data);
  } catch (err) {
    if (err instanceof PhasorError && (err.cause as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') {
      throw new PhasorError('io', `SigMF data file not found (it should sit next to ${basename(meta)})`, {
        file: data,
        cause: err,
      });
    }
    throw err;
  }
  try {
    return finish(sigmfFound(desc, data, d, 0, d.size), options);
  } catch (err) {
    await d.handle.close().catch(() => undefined);
    throw wrapOsError(data, err);
  }
}

async function openSigmfArchive(path: string, f: OpenedFile, options: OpenOptions): Promise<Found> {
  if (f.size === 0) throw new CorruptFileError(path, 'empty file (0 bytes)');
  const members = await listTar(f.handle, path, f.size);
  const metaMember = members.find((m) => m.name.toLowerCase().endsWith('.sigmf-meta'));
  if (metaMember === undefined)
    throw new CorruptFileError(path, 'the SigMF archive holds no .sigmf-meta file');
  const dataName = metaMember.name.replace(/\.sigmf-meta$/i, '.sigmf-data');
  const dataMember = members.find((m) => m.name === dataName);
  if (dataMember === undefined) {
    throw new CorruptFileError(
      path,
      `the SigMF archive has ${quote(metaMember.name)} but not its data file ${quote(dataName)}`,
    );
  }
  if (metaMember.offset + metaMember.size > f.size) {
    throw new CorruptFileError(path, `the archive ends inside ${quote(metaMember.name)}`);
  }
  if (metaMember.size > MAX_META_BYTES) {
    throw new CorruptFileError(
      path,
      `${quote(metaMember.name)} of ${metaMember.size} bytes is ${META_TOO_LARGE}`,
    );
  }
  const metaBytes = await readAt(f.handle, path, metaMember.offset, metaMember.size);
  if (metaBytes.length < metaMember.size) {
    throw new CorruptFileError(path, `the archive ends inside ${quote(metaMember.name)}`);
  }
  const desc = (await sigmfMeta()).parseSigmfMeta(new TextDecoder().decode(metaBytes), path, options.rate);
  return sigmfFound(desc, path, f, dataMember.offset, dataMember.size);
}
