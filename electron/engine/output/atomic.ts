// Non-sample outputs (PNG, .npy) written atomically through the same temporary-file mechanism as the
// sample writers (io/temporary.ts): nothing stands under the final name until commit() succeeds.

import { ioError } from '../errors.js';
import { TemporaryFile, type TemporaryOptions } from '../io/temporary.js';

export interface OutputFile {
  readonly path: string;
  write(data: ArrayBufferView): Promise<void>;
  commit(): Promise<void>;
  abort(): Promise<void>;
}

export async function openOutputFile(path: string, options: TemporaryOptions = {}): Promise<OutputFile> {
  const tmp = await TemporaryFile.create(path, options);
  let written = 0;
  return {
    path,
    async write(data) {
      const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      try {
        await tmp.writeAll(bytes, written);
      } catch (e) {
        throw ioError(path, e);
      }
      written += bytes.length;
    },
    async commit() {
      await tmp.close();
      await tmp.publish();
    },
    abort: () => tmp.discard(),
  };
}
