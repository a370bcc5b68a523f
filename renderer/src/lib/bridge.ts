// The desktop bridge (window.phasor) when the app runs in Electron; web mode has none. Read at each call
// so tests can put a fake one in place.

import type { OpenDialogOptions, PhasorBridge } from '../../../electron/engine/protocol/bridge.js';

export function bridge(): PhasorBridge | null {
  return typeof window !== 'undefined' ? (window.phasor ?? null) : null;
}

/** Whether the native file dialog is there (the desktop app). */
export function hasNativeDialog(): boolean {
  return typeof bridge()?.chooseFile === 'function';
}

/** The native dialog's answer, or null when cancelled or when there is no native dialog. */
export async function chooseFile(options: OpenDialogOptions): Promise<string | null> {
  const b = bridge();
  if (!b?.chooseFile) return null;
  return b.chooseFile(options);
}

/** The real path of a dropped file (desktop only), or null. */
export function pathForFile(file: File): string | null {
  const b = bridge();
  if (!b?.pathForFile) return null;
  try {
    const p = b.pathForFile(file);
    return p ? p : null;
  } catch {
    return null;
  }
}
