// The in-app file browser of web mode (the engine lists folders on its machine: listDirectory). Remembers
// the last folder it showed.

import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import type { DirectoryListing } from '../../../electron/engine/protocol/messages.js';
import { useConnectionStore } from './connection.js';

export const BROWSER_DIR_KEY = 'phasor.browserDir';

function storage(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null;
  }
}

export const useBrowserStore = defineStore('browser', () => {
  const connection = useConnectionStore();
  const listing = shallowRef<DirectoryListing | null>(null);
  const loading = ref(false);
  const error = ref('');
  /** Show only files Phasor can open (and folders). */
  const onlyOpenable = ref(true);

  const entries = computed(() => {
    const all = listing.value?.entries ?? [];
    const shown = onlyOpenable.value ? all.filter((e) => e.kind === 'directory' || e.openable) : all;
    // Folders first, then by name (case-insensitive, numbers in order).
    return [...shown].sort(
      (a, b) =>
        (a.kind === 'directory' ? 0 : 1) - (b.kind === 'directory' ? 0 : 1) ||
        a.name.localeCompare(b.name, undefined, { numeric: true, sensitivity: 'base' }),
    );
  });

  /** The newest list() call: an earlier one answering late (the folder shown on opening, when a path was
   *  typed meanwhile) must not replace what was asked for last. */
  let latest = 0;

  /** Lists `path` (default: the last folder shown, else the engine's default, the home folder). */
  async function list(path?: string): Promise<void> {
    const target = path ?? storage()?.getItem(BROWSER_DIR_KEY) ?? undefined;
    const call = ++latest;
    loading.value = true;
    error.value = '';
    try {
      const result = await connection.request('listDirectory', target ? { path: target } : {});
      if (call !== latest) return;
      listing.value = result;
      try {
        storage()?.setItem(BROWSER_DIR_KEY, result.path);
      } catch {
        // Not remembered: fine.
      }
    } catch (e) {
      if (call !== latest) return;
      error.value = e instanceof Error ? e.message : String(e);
      // A remembered folder that is gone: fall back to the default once.
      if (path === undefined && target !== undefined) {
        storage()?.removeItem(BROWSER_DIR_KEY);
        loading.value = false;
        return list('');
      }
    } finally {
      if (call === latest) loading.value = false;
    }
  }

  function up(): Promise<void> {
    const parent = listing.value?.parent;
    return parent ? list(parent) : Promise.resolve();
  }

  return { listing, loading, error, onlyOpenable, entries, list, up };
});
