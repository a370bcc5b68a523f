// The `phasor` command line: every file operation of the engine, scriptable. This entry stays small: a file
// job goes to a waiting standby process when there is one (Node, the job's modules and the GPU are ready
// there; started by `phasor standby start` or by an earlier job on CUDA), else everything loads and runs
// here (run.ts). bin/phasor's native client asks the standby without starting Node, and runs this in its
// place when it gets no answer (STANDBY_TRIED: not asked again).

import { STANDBY_SERVE, STANDBY_TRIED } from './standby/paths.js';
import { viaStandby } from './standby/client.js';

// a reader that went away (`phasor … --json | head -1`) loses the rest of the output, and the job goes on
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE' && e.code !== 'ERR_STREAM_DESTROYED') throw e;
  });
}

const argv = process.argv.slice(2);
const tried = process.env[STANDBY_TRIED] !== undefined;
delete process.env[STANDBY_TRIED]; // not passed on to the processes this one starts
if (argv[0] === STANDBY_SERVE) {
  await (await import('./standby/server.js')).serveStandby(argv.slice(1));
} else {
  const code = tried ? undefined : await viaStandby(argv);
  if (code !== undefined) process.exit(code);
  await (await import('./run.js')).runHere(argv);
}
