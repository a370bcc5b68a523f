// Web mode has no file paths on the user's side: a file dropped on the page is uploaded to `phasor serve`
// (`PUT /upload?name=<file name>`, same origin and access token as the page; bridge.ts) and opened by the
// path the server answers with.

export class UploadError extends Error {
  override name = 'UploadError';
}

/** The upload URL for a page at `pageHref`: same origin, the page's token passed on. */
export function uploadUrl(name: string, pageHref: string): string {
  const page = new URL(pageHref);
  const url = new URL('/upload', page);
  url.searchParams.set('name', name);
  const token = page.searchParams.get('token');
  if (token) url.searchParams.set('token', token);
  return url.toString();
}

/** Uploads `file` and resolves with the path the server stored it under. */
export async function uploadFile(
  file: Blob & { name: string },
  pageHref: string = window.location.href,
  fetchFn: typeof fetch = (...args) => fetch(...args),
): Promise<string> {
  let res: Response;
  try {
    res = await fetchFn(uploadUrl(file.name, pageHref), {
      method: 'PUT',
      body: file,
      headers: { 'Content-Type': 'application/octet-stream' },
      credentials: 'same-origin',
    });
  } catch (e) {
    throw new UploadError(`${file.name}: upload failed (${e instanceof Error ? e.message : String(e)})`);
  }
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  if (!res.ok) {
    const why =
      (body as { error?: { message?: string }; message?: string } | null)?.error?.message ??
      (body as { message?: string } | null)?.message ??
      (text.trim().slice(0, 200) || `HTTP ${res.status}`);
    throw new UploadError(`${file.name}: upload failed: ${why}`);
  }
  const path = (body as { path?: unknown } | null)?.path;
  if (typeof path !== 'string' || !path) {
    throw new UploadError(`${file.name}: the server did not say where it stored the upload`);
  }
  return path;
}
