// The built renderer's files, as both hosts serve them (`phasor serve` over HTTP, the desktop app through
// its own protocol): paths confined to the app folder, no hidden files, a content type per extension.

import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';

export const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
  '.txt': 'text/plain; charset=utf-8',
};

export interface AppFile {
  file: string;
  size: number;
  type: string;
}

/**
 * The file a URL path names inside `appDir` ('/' is index.html), or null when the path is malformed,
 * leaves the folder (also through a link), names a hidden file or no regular file.
 */
export function resolveAppFile(appDir: string, urlPath: string): AppFile | null {
  let rel: string;
  try {
    rel = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (rel.includes('\0') || rel.includes('\\')) return null;
  if (rel === '' || rel === '/') rel = '/index.html';
  const root = path.resolve(appDir);
  const file = path.resolve(root, '.' + path.posix.normalize('/' + rel));
  const inside = path.relative(root, file);
  if (inside === '' || inside.startsWith('..') || path.isAbsolute(inside)) return null;
  if (inside.split(path.sep).some((p) => p.startsWith('.'))) return null;
  try {
    // A link may not lead out of the folder either.
    const real = path.relative(realpathSync(root), realpathSync(file));
    if (real === '' || real.startsWith('..') || path.isAbsolute(real)) return null;
    const st = statSync(file);
    if (!st.isFile()) return null;
    return {
      file,
      size: st.size,
      type: CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream',
    };
  } catch {
    return null;
  }
}
