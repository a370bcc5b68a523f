// Non-sample outputs (PNG, .npy) written atomically through the same temporary-file mechanism as the
// sample writers (io/temporary.ts): nothing stands under the final name until commit() succeeds.

import { ioError } from '../errors.js';
import { TemporaryFile } from '../io/temporary.js';

export interface OutputFile {
  readonly path: string;
  write(data: ArrayBufferView): Promise<void>;
  commit(): Promise<void>;
  abort(): Promise<void>;
}

export async function openOutputFile(path: string): Promise<OutputFile> {
  const tmp = await TemporaryFile.create(path);
  return {
    path,
    async write(data) {
      const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      try {
        // A write may store fewer bytes than asked (a disk filling up): go on until all are stored or
        // the next write fails (ENOSPC), never taking a short write for a whole one.
        for (let done = 0; done < bytes.length;) {
          const { bytesWritten } = await tmp.handle.write(bytes, done, bytes.length - done);
          done += bytesWritten;
        }
      } catch (e) {
        throw ioError(path, e);
      }
    },
    async commit() {
      await tmp.close(true);
      await tmp.publish();
    },
    abort: () => tmp.discard(),
  };
}
