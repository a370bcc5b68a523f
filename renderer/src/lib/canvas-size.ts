// Keeps a canvas's drawing buffer at its displayed size in device pixels (high-DPI screens, zoom,
// moving between monitors), using the exact device-pixel box when the browser reports it.

import { onBeforeUnmount, onMounted, shallowRef, type Ref } from 'vue';

export interface CanvasSize {
  /** CSS pixels. */
  cssWidth: number;
  cssHeight: number;
  /** Device pixels (the drawing buffer). */
  width: number;
  height: number;
  dpr: number;
}

export function useCanvasSize(
  canvas: Ref<HTMLCanvasElement | null>,
  onResize?: (size: CanvasSize) => void,
): Ref<CanvasSize> {
  const size = shallowRef<CanvasSize>({ cssWidth: 0, cssHeight: 0, width: 0, height: 0, dpr: 1 });
  let observer: ResizeObserver | null = null;

  function apply(cssWidth: number, cssHeight: number, width?: number, height?: number): void {
    const dpr = window.devicePixelRatio || 1;
    const next: CanvasSize = {
      cssWidth,
      cssHeight,
      width: Math.max(1, width ?? Math.round(cssWidth * dpr)),
      height: Math.max(1, height ?? Math.round(cssHeight * dpr)),
      dpr,
    };
    const prev = size.value;
    if (prev.width === next.width && prev.height === next.height && prev.cssWidth === next.cssWidth) return;
    size.value = next;
    onResize?.(next);
  }

  onMounted(() => {
    const el = canvas.value;
    if (!el) return;
    if (typeof ResizeObserver === 'undefined') {
      const r = el.getBoundingClientRect();
      apply(r.width, r.height);
      return;
    }
    observer = new ResizeObserver((entries) => {
      for (const e of entries) {
        const dev = e.devicePixelContentBoxSize?.[0];
        const box = e.contentBoxSize?.[0];
        const cssW = box ? box.inlineSize : e.contentRect.width;
        const cssH = box ? box.blockSize : e.contentRect.height;
        apply(cssW, cssH, dev?.inlineSize, dev?.blockSize);
      }
    });
    try {
      observer.observe(el, { box: 'device-pixel-content-box' });
    } catch {
      observer.observe(el);
    }
  });
  onBeforeUnmount(() => observer?.disconnect());
  return size;
}
