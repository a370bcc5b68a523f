// The native file dialog of the desktop app (PhasorBridge.chooseFile), kept free of Electron imports so
// tests run it with fake events and dialogs. The renderer invokes CHOOSE_FILE_CHANNEL with OpenDialogOptions;
// the sender is checked like the connect handshake, the payload validated, and one dialog at a time is
// shown per window. The reply is { ok: true, path } (null when the user cancelled) or { ok: false, error }.
// A chosen path is granted to that window's engine connection before the reply goes (the engine refuses
// every path the user did not choose); so is a dropped file's path (GRANT_DROPPED_CHANNEL, sent by the
// preload with what Electron says the dropped File is, which a page cannot forge).

import { isAbsolute } from 'node:path';
import { z } from 'zod';
import type { OpenDialogOptions } from '../engine/protocol/bridge.js';
import type { ErrorInfo } from '../engine/protocol/messages.js';
import { senderProblem, type IpcEventLike, type IpcHubOptions } from './ipc.js';

export const CHOOSE_FILE_CHANNEL = 'phasor:choose-file';
/** preload → main, synchronous: { path } of a file dropped on the window; answers true when granted. */
export const GRANT_DROPPED_CHANNEL = 'phasor:grant-dropped';

const extension = z
  .string()
  .regex(
    /^(\*|[A-Za-z0-9][A-Za-z0-9_-]{0,15}(\.[A-Za-z0-9_-]{1,16})?)$/,
    'an extension such as wav or sigmf-meta',
  );

export const chooseFileSchema = z.strictObject({
  title: z.string().max(200).optional(),
  mode: z.enum(['open', 'save']),
  defaultPath: z.string().min(1).max(4096).optional(),
  filters: z
    .array(
      z.strictObject({ name: z.string().min(1).max(100), extensions: z.array(extension).min(1).max(64) }),
    )
    .max(32)
    .optional(),
}) satisfies z.ZodType<OpenDialogOptions>;

export type ChooseFileReply = { ok: true; path: string | null } | { ok: false; error: ErrorInfo };

/** What Electron's dialog module is asked (the window is the sender's). */
export interface NativeDialogOptions {
  title?: string;
  defaultPath?: string;
  filters?: Array<{ name: string; extensions: string[] }>;
  properties?: Array<'openFile' | 'createDirectory' | 'showOverwriteConfirmation'>;
}

export interface DialogHost extends Pick<IpcHubOptions, 'isAppUrl' | 'isAppWebContents'> {
  showOpen(
    event: IpcEventLike,
    options: NativeDialogOptions,
  ): Promise<{ canceled: boolean; filePaths: string[] }>;
  showSave(
    event: IpcEventLike,
    options: NativeDialogOptions,
  ): Promise<{ canceled: boolean; filePath?: string }>;
  /** Lets window `windowId`'s engine connection use `path` (engine-process.ts's grant); `beside`: a file
   * opened, beside which new files may be made. */
  grant?(windowId: number, path: string, beside: boolean): void;
}

function fail(code: string, message: string): ChooseFileReply {
  return { ok: false, error: { code, message } };
}

/** Shows the dialog a trusted page asked for; never throws. */
export class FileDialogs {
  readonly #host: DialogHost;
  /** Windows (webContents ids) with a dialog open. */
  readonly #open = new Set<number>();

  constructor(host: DialogHost) {
    this.#host = host;
  }

  async handle(event: unknown, payload: unknown): Promise<ChooseFileReply> {
    try {
      const problem = senderProblem(event, this.#host);
      if (problem !== null) return fail('forbidden', problem);
      const p = chooseFileSchema.safeParse(payload);
      if (!p.success) {
        const i = p.error.issues[0];
        const where = i && i.path.length > 0 ? `${i.path.join('.')}: ` : '';
        return fail('bad-request', `bad file dialog request: ${where}${i?.message ?? 'invalid'}`);
      }
      const e = event as IpcEventLike;
      const id = e.sender.id;
      if (this.#open.has(id)) return fail('busy', 'a file dialog is already open in this window');
      this.#open.add(id);
      try {
        const o = p.data;
        const options: NativeDialogOptions = {};
        if (o.title !== undefined) options.title = o.title;
        if (o.defaultPath !== undefined) options.defaultPath = o.defaultPath;
        if (o.filters !== undefined)
          options.filters = o.filters.map((f) => ({ ...f, extensions: [...f.extensions] }));
        if (o.mode === 'open') {
          options.properties = ['openFile'];
          const r = await this.#host.showOpen(e, options);
          return this.#chosen(id, r.canceled || r.filePaths.length === 0 ? null : r.filePaths[0], true);
        }
        options.properties = ['createDirectory', 'showOverwriteConfirmation'];
        const r = await this.#host.showSave(e, options);
        return this.#chosen(id, r.canceled || !r.filePath ? null : r.filePath, false);
      } finally {
        this.#open.delete(id);
      }
    } catch (err) {
      return fail('internal', `the file dialog failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  #chosen(windowId: number, path: string | null, beside: boolean): ChooseFileReply {
    if (path !== null) this.#host.grant?.(windowId, path, beside);
    return { ok: true, path };
  }

  /** The GRANT_DROPPED_CHANNEL handler: grants an absolute path dropped on a trusted window. Never throws. */
  handleDropped(event: unknown, payload: unknown): boolean {
    try {
      if (senderProblem(event, this.#host) !== null) return false;
      const p = droppedSchema.safeParse(payload);
      if (!p.success) return false;
      this.#host.grant?.((event as IpcEventLike).sender.id, p.data.path, true);
      return true;
    } catch {
      return false;
    }
  }
}

const droppedSchema = z.strictObject({
  path: z
    .string()
    .min(1)
    .max(4096)
    .refine((p) => isAbsolute(p) && !p.includes('\0'), 'an absolute path'),
});
