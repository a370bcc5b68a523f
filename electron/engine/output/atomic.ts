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
      try {
        await tmp.handle.write(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
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
