// The time the app (out/) was last built, kept in a stamp file: `npm start` (scripts/start.mjs) builds the
// app again only when a source is newer than it; `npm install` (scripts/prepare.mjs) writes it too, so the
// first `npm start` after an install does not build the app a second time.
import { writeFileSync } from 'node:fs';
import path from 'node:path';

export const APP_STAMP = 'out/.phasor-build';

export function markAppBuilt(root) {
  writeFileSync(path.join(root, APP_STAMP), new Date().toISOString() + '\n');
}
