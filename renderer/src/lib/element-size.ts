// CSS size of an element, kept up to date by a ResizeObserver.
import { onBeforeUnmount, onMounted, shallowRef, type Ref } from 'vue';

export function useElementSize(el: Ref<HTMLElement | null>): Ref<{ width: number; height: number }> {
  const size = shallowRef({ width: 0, height: 0 });
  let observer: ResizeObserver | null = null;
  onMounted(() => {
    const target = el.value;
    if (!target) return;
    const read = () => {
      const r = target.getBoundingClientRect();
      if (r.width !== size.value.width || r.height !== size.value.height) {
        size.value = { width: r.width, height: r.height };
      }
    };
    read();
    if (typeof ResizeObserver !== 'undefined') {
      observer = new ResizeObserver(read);
      observer.observe(target);
    }
  });
  onBeforeUnmount(() => observer?.disconnect());
  return size;
}
