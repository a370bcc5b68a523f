// Recording the live source to a file: where it goes (the save dialog on the desktop, a name in the file
// browser's folder in web mode), recordStart/recordStop, the engine's `recording` events (frames, bytes,
// free space, drops), and the one line said when it ends (asked, or by itself: a full disk, the source
// ending). Once a recording is over, the file browser lists its folder again so the File view shows it.

import { defineStore } from 'pinia';
import { computed, ref, shallowRef, watch } from 'vue';
import type { RecordingStatus } from '../../../electron/engine/protocol/messages.js';
import { chooseFile, hasNativeDialog } from '../lib/bridge.js';
import { formatElapsed, recordingName } from '../lib/format.js';
import { dirName, joinPath } from '../lib/paths.js';
import { useBrowserStore } from './browser.js';
import { useConnectionStore } from './connection.js';
import { useLiveStore } from './live.js';

export type RecordingFormat = 'sigmf' | 'wav';

export const RECORDING_EXTENSIONS: Record<RecordingFormat, 'sigmf-meta' | 'wav'> = {
  sigmf: 'sigmf-meta',
  wav: 'wav',
};

/** The one line shown when a recording is over. */
export function recordingSummary(s: RecordingStatus): string {
  const name = s.path.split(/[\\/]/).pop() ?? s.path;
  const size = `${(s.bytes / 1e6).toFixed(1)} MB`;
  const what = `${name} (${formatElapsed(s.seconds)}, ${size})`;
  if (s.state === 'failed') return `Recording failed${s.reason ? `: ${s.reason}` : ''} — ${what}`;
  return s.reason ? `Recording stopped: ${s.reason} — ${what}` : `Recorded ${what}`;
}

export const useRecordingStore = defineStore('recording', () => {
  const connection = useConnectionStore();
  const live = useLiveStore();
  const browser = useBrowserStore();

  /** The latest status of the current (or last) recording. */
  const status = shallowRef<RecordingStatus | null>(null);
  /** Waiting for recordStart or recordStop to answer. */
  const busy = ref(false);
  /** Why the last start or stop was refused (shown where the recording was asked for). */
  const error = ref('');
  /** The line said once a recording is over (until dismissed or the next one starts). */
  const message = ref('');
  /** Web mode's naming dialog is open. */
  const dialogOpen = ref(false);

  const recording = computed(() => status.value?.state === 'recording');
  /** A source runs that can be recorded. */
  const available = computed(() => live.running && !!live.info);
  /** WAV holds real samples only: the engine refuses complex sources. */
  const wavAllowed = computed(() => !!live.info && !live.info.complex);

  function messageOf(e: unknown): string {
    return e instanceof Error ? e.message : String(e);
  }

  /** A status from a reply or an event; the end of a recording is announced once. */
  function apply(next: RecordingStatus): void {
    const before = status.value;
    // A late event of a recording that is already over changes nothing.
    if (before && before.path === next.path && before.state !== 'recording' && next.state === 'recording')
      return;
    status.value = next;
    if (next.state === 'recording') return;
    message.value = recordingSummary(next);
    if (!before || before.path !== next.path || before.state === 'recording') void refreshBrowser(next.path);
  }

  /** Lists the recording's folder again, so the file browser (File view) shows the new file. */
  async function refreshBrowser(path: string): Promise<void> {
    if (hasNativeDialog() && !browser.listing) return; // the desktop opens files with its own dialog
    await browser.list(dirName(path) || undefined);
  }

  async function start(path: string): Promise<boolean> {
    if (busy.value || recording.value) return false;
    busy.value = true;
    error.value = '';
    try {
      const result = await connection.request('recordStart', { path });
      message.value = '';
      status.value = null;
      apply(result);
      return true;
    } catch (e) {
      error.value = messageOf(e);
      return false;
    } finally {
      busy.value = false;
    }
  }

  async function stop(): Promise<void> {
    if (busy.value || !recording.value) return;
    busy.value = true;
    try {
      apply(await connection.request('recordStop', {}));
    } catch (e) {
      // Already over on the engine's side (its event says why): nothing left to stop.
      error.value = messageOf(e);
    } finally {
      busy.value = false;
    }
  }

  /** The default name of a new recording in `format`. */
  function defaultName(format: RecordingFormat, date = new Date()): string {
    return recordingName(date, RECORDING_EXTENSIONS[format]);
  }

  /** The folder web mode records into: the file browser's current one. */
  const folder = computed(() => browser.listing?.path ?? '');

  /** Where a name typed in web mode's dialog goes. */
  function pathFor(name: string): string {
    return joinPath(folder.value, name.trim());
  }

  /** The record button: stops a recording, or asks where a new one goes (then starts it). */
  async function toggle(): Promise<void> {
    if (recording.value) return stop();
    if (!available.value || busy.value) return;
    error.value = '';
    if (!hasNativeDialog()) {
      if (!browser.listing) void browser.list();
      dialogOpen.value = true;
      return;
    }
    let path: string | null;
    try {
      path = await chooseFile({
        mode: 'save',
        title: 'Record the source to',
        defaultPath: defaultName('sigmf'),
        filters: [
          { name: 'SigMF', extensions: ['sigmf-meta'] },
          ...(wavAllowed.value ? [{ name: 'WAV', extensions: ['wav'] }] : []),
        ],
      });
    } catch (e) {
      error.value = messageOf(e);
      return;
    }
    if (path) await start(path);
  }

  /** Web mode's dialog confirmed with `name` in the browser's folder. */
  async function confirmName(name: string): Promise<boolean> {
    if (!name.trim()) {
      error.value = 'name the recording';
      return false;
    }
    if (!folder.value) {
      error.value = 'no folder to record into: open the file browser first';
      return false;
    }
    const ok = await start(pathFor(name));
    if (ok) dialogOpen.value = false;
    return ok;
  }

  function closeDialog(): void {
    dialogOpen.value = false;
    error.value = '';
  }

  function dismiss(): void {
    message.value = '';
    error.value = '';
  }

  function receive(e: RecordingStatus): void {
    apply(e);
  }

  let unsubscribe: (() => void) | null = null;
  function bind(): void {
    unsubscribe?.();
    unsubscribe = null;
    try {
      unsubscribe = connection.connection().on('recording', receive);
    } catch {
      // Not connected yet: bound again after hello.
    }
  }
  watch(
    () => connection.epoch,
    () => {
      // A new connection (the engine restarted, or the link came back): a recording of the old one is over.
      if (recording.value && status.value) {
        status.value = { ...status.value, state: 'failed', reason: 'the connection to the engine was lost' };
        message.value = recordingSummary(status.value);
      }
      bind();
    },
    { immediate: true },
  );

  return {
    status,
    busy,
    error,
    message,
    dialogOpen,
    recording,
    available,
    wavAllowed,
    folder,
    start,
    stop,
    toggle,
    confirmName,
    closeDialog,
    dismiss,
    defaultName,
    pathFor,
    receive,
  };
});
