// PNG snapshot of the live display: every canvas inside it composed at device resolution (the WebGL
// canvas is drawn just before, in the same task, so its buffer still holds the image), plus a caption.

export async function composeSnapshot(root: HTMLElement, caption: string, background: string): Promise<Blob> {
  const rect = root.getBoundingClientRect();
  const dpr = window.devicePixelRatio || 1;
  const captionHeight = Math.round(20 * dpr);
  const out = document.createElement('canvas');
  out.width = Math.max(1, Math.round(rect.width * dpr));
  out.height = Math.max(1, Math.round(rect.height * dpr) + captionHeight);
  const ctx = out.getContext('2d');
  if (!ctx) throw new Error('cannot draw the snapshot (no 2D canvas)');
  ctx.fillStyle = background;
  ctx.fillRect(0, 0, out.width, out.height);
  for (const c of Array.from(root.querySelectorAll('canvas'))) {
    const r = c.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    ctx.drawImage(
      c,
      Math.round((r.left - rect.left) * dpr),
      Math.round((r.top - rect.top) * dpr),
      Math.round(r.width * dpr),
      Math.round(r.height * dpr),
    );
  }
  ctx.fillStyle = '#8691a0';
  ctx.font = `${Math.round(11 * dpr)}px Inter, "Segoe UI", system-ui, sans-serif`;
  ctx.textBaseline = 'middle';
  ctx.fillText(caption, Math.round(8 * dpr), out.height - captionHeight / 2);
  return new Promise<Blob>((resolve, reject) =>
    out.toBlob(
      (b) => (b ? resolve(b) : reject(new Error('the browser could not encode the PNG'))),
      'image/png',
    ),
  );
}

/** Offers `blob` as a download named `name`. */
export function download(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.style.display = 'none';
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 30_000);
}
