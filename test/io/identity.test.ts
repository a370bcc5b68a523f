// Same-file detection by identity: the names that reach an input's file are refused as outputs, whatever
// their text; names that only look alike are not.

import { linkSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../electron/engine/errors.js';
import { fileIdentity, recordingFiles, refuseOverwritingInputs } from '../../electron/engine/io/identity.js';
import { writerPaths } from '../../electron/engine/io/writer.js';
import { makeTempDir } from './helpers.js';

const tmp = makeTempDir('identity');
afterAll(() => tmp.cleanup());

const dir = `${tmp.dir}/d`;
mkdirSync(dir);
writeFileSync(`${dir}/x.wav`, 'x');
writeFileSync(`${dir}/rec.sigmf-data`, 'data');
writeFileSync(`${dir}/rec.sigmf-meta`, '{}');
writeFileSync(`${dir}/arch.sigmf`, 'archive');
symlinkSync('.', `${dir}/loop`);
linkSync(`${dir}/x.wav`, `${dir}/hard.wav`);
symlinkSync('x.wav', `${dir}/soft.wav`);

describe('refuseOverwritingInputs', () => {
  for (const [output, input] of [
    ['loop/x.wav', 'x.wav'],
    ['hard.wav', 'x.wav'],
    ['soft.wav', 'x.wav'],
    ['rec.sigmf', 'rec.sigmf-meta'],
    ['loop/rec.sigmf-meta', 'rec.sigmf-data'],
  ] as const) {
    it(`${output} over the input ${input}: refused, naming both`, async () => {
      const err = await refuseOverwritingInputs(
        writerPaths(`${dir}/${output}`),
        recordingFiles(`${dir}/${input}`),
      ).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InvalidArgumentError);
      const message = (err as Error).message;
      expect(message).not.toMatch(/\n/);
      expect(message).toMatch(/same file/);
      expect(message).toContain(dir);
    });
  }

  for (const [output, input] of [
    ['arch.sigmf', 'arch.sigmf'], // a pair written beside the archive it reads
    ['y.wav', 'x.wav'], // does not exist yet
    ['loop/../x.wav', 'x.wav'], // `..` after a link is the link target's parent: another folder
    ['rec.sigmf-data', 'x.wav'],
  ] as const) {
    it(`${output} from the input ${input}: allowed`, async () => {
      await expect(
        refuseOverwritingInputs(writerPaths(`${dir}/${output}`), recordingFiles(`${dir}/${input}`)),
      ).resolves.toBeUndefined();
    });
  }

  it('the identity follows links and is undefined for no file', async () => {
    expect(await fileIdentity(`${dir}/loop/loop/x.wav`)).toBe(await fileIdentity(`${dir}/x.wav`));
    expect(await fileIdentity(`${dir}/rec.sigmf-data`)).not.toBe(await fileIdentity(`${dir}/x.wav`));
    expect(await fileIdentity(`${dir}/none.wav`)).toBeUndefined();
  });
});
