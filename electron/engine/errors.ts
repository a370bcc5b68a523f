// Typed errors of the engine. Hosts turn them into one line a person can act on:
//   phasor: <file>: <what is wrong>
// and never show a stack trace for bad input (the CLI shows one only with --debug).

import type { ErrorInfo } from './protocol/messages.js';

export type PhasorErrorCode =
  | 'corrupt' // the file is damaged or is not what its name says
  | 'unsupported' // a valid file using something Phasor does not read (codec, datatype…)
  | 'io' // the operating system refused (missing file, permissions, disk full)
  | 'invalid-argument' // an argument outside its documented range
  | 'backend-unavailable' // a backend asked for by name cannot be used here
  | 'backend-failed' // a backend failed while running; the engine moves the work to the next one
  | 'cancelled'; // the user or the host cancelled the job

export class PhasorError extends Error {
  readonly code: PhasorErrorCode;
  /** The file the error is about, when there is one. */
  readonly file?: string;

  constructor(code: PhasorErrorCode, message: string, options: { file?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'PhasorError';
    this.code = code;
    if (options.file !== undefined) this.file = options.file;
  }
}

/** The file is damaged, empty, or not of the format it claims. */
export class CorruptFileError extends PhasorError {
  constructor(file: string, message: string, cause?: unknown) {
    super('corrupt', message, { file, cause });
    this.name = 'CorruptFileError';
  }
}

/** The file is well formed but uses a feature Phasor does not support. */
export class UnsupportedFormatError extends PhasorError {
  constructor(file: string, message: string) {
    super('unsupported', message, { file });
    this.name = 'UnsupportedFormatError';
  }
}

/** An argument outside its documented range; the message names the constraint. */
export class InvalidArgumentError extends PhasorError {
  constructor(message: string) {
    super('invalid-argument', message);
    this.name = 'InvalidArgumentError';
  }
}

export class BackendUnavailableError extends PhasorError {
  readonly backend: string;
  constructor(backend: string, reason: string) {
    super('backend-unavailable', `backend ${backend} is not available: ${reason}`);
    this.name = 'BackendUnavailableError';
    this.backend = backend;
  }
}

/** A backend failed while computing. `sticky` failures (device lost, illegal address) disable the backend. */
export class BackendFailedError extends PhasorError {
  readonly backend: string;
  readonly sticky: boolean;
  constructor(backend: string, message: string, options: { sticky?: boolean; cause?: unknown } = {}) {
    super('backend-failed', `backend ${backend} failed: ${message}`, { cause: options.cause });
    this.name = 'BackendFailedError';
    this.backend = backend;
    this.sticky = options.sticky ?? false;
  }
}

export class CancelledError extends PhasorError {
  constructor(message = 'cancelled') {
    super('cancelled', message);
    this.name = 'CancelledError';
  }
}

/** Throws CancelledError when the signal has been aborted. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new CancelledError();
}

/** Wraps an operating-system error (ENOENT, EACCES…) as a PhasorError naming the file. */
export function ioError(file: string, err: unknown): PhasorError {
  if (err instanceof PhasorError) return err;
  const e = err as { code?: string; message?: string } | undefined;
  const reasons: Record<string, string> = {
    ENOENT: 'no such file',
    EACCES: 'permission denied',
    EISDIR: 'is a directory, not a file',
    ENOSPC: 'no space left on the device',
    EROFS: 'read-only file system',
    EMFILE: 'too many open files',
  };
  const reason = (e && e.code && reasons[e.code]) || (e && e.message) || String(err);
  return new PhasorError('io', reason, { file, cause: err });
}

/** Characters never printed raw: C0 and C1 controls, DEL, and the Unicode line, paragraph and direction
 * controls (a file's bytes could otherwise move the cursor, recolour the terminal or break the line). */
// eslint-disable-next-line no-control-regex
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** The longest error line a host prints (a message quoting a file's bytes is cut there). */
export const MAX_ERROR_CHARS = 1000;

const ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** `text` on one line: control characters written as escapes (\n, \x1b, \u2028), cut to `max` characters. */
export function oneLine(text: string, max = MAX_ERROR_CHARS): string {
  const escaped = text.replace(UNPRINTABLE, (c) => {
    const n = c.charCodeAt(0);
    return ESCAPES[c] ?? (n < 0x100 ? `\\x${n.toString(16).padStart(2, '0')}` : `\\u${n.toString(16)}`);
  });
  if (escaped.length <= max) return escaped;
  // never cut a surrogate pair in two
  let end = max - 1;
  if (/[\udc00-\udfff]/.test(escaped[end])) end--;
  return `${escaped.slice(0, end)}…`;
}

/** Text taken from a file, for a message: quoted, escaped, at most `max` characters inside the quotes. */
export function quote(text: string, max = 64): string {
  return `'${oneLine(text, max)}'`;
}

/** One line for a person: `phasor: <file>: <message>` (or `phasor: <message>`), escaped (see oneLine). */
export function formatError(err: unknown): string {
  if (err instanceof PhasorError) {
    const message = oneLine(err.message);
    return err.file !== undefined ? `phasor: ${oneLine(err.file)}: ${message}` : `phasor: ${message}`;
  }
  const msg = err instanceof Error ? err.message : String(err);
  return `phasor: ${oneLine(msg)}`;
}

/** The error part of a protocol reply: a PhasorError keeps its code and names its file; anything else is
 * an internal error (never a stack trace). The message is one escaped line, as formatError's. */
export function errorInfo(err: unknown): ErrorInfo {
  if (err instanceof PhasorError) {
    const message = oneLine(err.message);
    return { code: err.code, message: err.file !== undefined ? `${oneLine(err.file)}: ${message}` : message };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { code: 'internal', message: `internal error: ${oneLine(message)}` };
}

/** A non-fatal condition worth telling the user about (e.g. a truncated file). */
export interface PhasorWarning {
  file?: string;
  message: string;
}

export type WarningHandler = (warning: PhasorWarning) => void;
