// "phasor <version>" for a recording's core:recorder: the version of the package this module belongs to,
// found by walking up from here (the source tree, dist/ and the app's bundle sit at different depths).

import { readFileSync } from 'node:fs';

let name: string | undefined;

export function recorderName(): string {
  if (name !== undefined) return name;
  name = 'phasor';
  for (let up = '../'; up.length <= 5 * 3; up += '../') {
    try {
      const pkg = JSON.parse(readFileSync(new URL(`${up}package.json`, import.meta.url), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'phasor' && typeof pkg.version === 'string') {
        name = `phasor ${pkg.version}`;
        break;
      }
    } catch {
      // not at this depth
    }
  }
  return name;
}
