// How an error becomes the error part of a reply: a PhasorError keeps its code and names its file; anything
// else is an internal error (never a stack trace).

import { PhasorError } from '../errors.js';
import type { ErrorInfo } from '../protocol/messages.js';

export function errorInfo(err: unknown): ErrorInfo {
  if (err instanceof PhasorError) {
    return { code: err.code, message: err.file !== undefined ? `${err.file}: ${err.message}` : err.message };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { code: 'internal', message: `internal error: ${message}` };
}
