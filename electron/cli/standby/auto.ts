// A standby started by a job, as Gradle starts its daemon: a file job that ran on CUDA in its own process
// (PHASOR_STANDBY unset or `auto`) leaves a standby behind as it exits, so the next job does not pay for
// Node, the CUDA driver and the context again. Only CUDA: the CPU backend starts in milliseconds, and a
// machine without a GPU grows no background process. Never on a GPU whose compute mode is not `default`:
// there a waiting context keeps other programs off the GPU. A standby a job started is replaced without a
// word by a job of another environment (the user did not ask for that one); one the user started is not.

import { dirname } from 'node:path';
import { jobBackendUsed } from '../util.js';
import { askStandby } from './client.js';
import { DEFAULT_IDLE_MS, startStandby } from './launch.js';
import {
  environmentDigest,
  jobEnvironment,
  privateDirProblem,
  STANDBY_COMMANDS,
  standbyMode,
  standbySocket,
  startingStandby,
} from './paths.js';
import { Frame } from './protocol.js';

/** For tests only (CI has no GPU): backends besides CUDA whose jobs leave a standby, comma-separated
 * (`cpu`). Nothing a user sets by chance. */
export const TEST_BACKENDS_VARIABLE = 'PHASOR_STANDBY_AUTO_BACKENDS_FOR_TESTS';

/** What a job that ran in this process leaves a standby after. */
export interface FinishedJob {
  /** The command (the first word of the command line that is not an option). */
  command: string | undefined;
  /** It ran in a standby, not in this process (the standby's client starts none). */
  viaStandby: boolean;
  /** This process's environment: PHASOR_STANDBY, and the tests' variable. */
  env: NodeJS.ProcessEnv;
  /** Node runs with flags of its own (profiling, a loader), which a standby would not have. */
  nodeFlags: boolean;
  /** Its exit status (130: cancelled). */
  code: number;
  /** The backend it ran on at its end (jobBackendUsed: a job that fell back to the CPU names the CPU). */
  backend: string | undefined;
  /** The GPU's compute mode, from the CUDA probe's details ("default", "exclusive-process", …). */
  computeMode: string | undefined;
}

/** The standby of this build's socket as the job ends. */
export type StandbyState = 'none' | 'starting' | { auto: boolean; sameEnvironment: boolean };

/** Whether the job is one that leaves a standby behind, whatever standby there is now. */
export function leavesStandby(job: FinishedJob): boolean {
  if (standbyMode(job.env) !== 'auto') return false; // `manual`, `off`, or a value the job refused
  if (job.viaStandby || job.nodeFlags || job.code === 130) return false;
  if (job.command === undefined || !STANDBY_COMMANDS.has(job.command)) return false;
  if (job.backend === 'cuda') return job.computeMode === 'default'; // unknown (an older addon): not
  const forTests = (job.env[TEST_BACKENDS_VARIABLE] ?? '').split(',');
  return job.backend !== undefined && forTests.includes(job.backend);
}

/** What the job does as it exits: start a standby, replace an automatic one of another environment (stop
 * it, start one in this environment), or nothing. */
export function standbyAction(job: FinishedJob, standby: StandbyState): 'start' | 'replace' | 'none' {
  if (!leavesStandby(job)) return 'none';
  if (standby === 'none') return 'start';
  if (standby === 'starting' || standby.sameEnvironment || !standby.auto) return 'none';
  return 'replace';
}

/** Called as a job of this process ends (run.ts): starts a standby, detached, when the rules above say
 * so. It prints nothing: a standby that could not be started is not the job's failure. */
export async function afterJob(argv: readonly string[], code: number): Promise<void> {
  const used = jobBackendUsed();
  const job: FinishedJob = {
    command: argv.find((a) => !a.startsWith('-')),
    viaStandby: false,
    env: process.env,
    nodeFlags: process.execArgv.length > 0,
    code,
    backend: used?.name,
    computeMode: used?.computeMode,
  };
  if (!leavesStandby(job)) return;
  try {
    const path = standbySocket();
    // a folder open to others holds no standby (the job has said so if one was there)
    if (privateDirProblem(dirname(path), true)) return;
    let standby: StandbyState = 'none';
    if (startingStandby(path) !== undefined) standby = 'starting';
    else {
      const info = await askStandby(path, Frame.ping, { timeoutMs: 500 });
      const env = environmentDigest(jobEnvironment(process.env));
      if (info) standby = { auto: info.auto, sameEnvironment: info.env === env };
    }
    const action = standbyAction(job, standby);
    if (action === 'none') return;
    // the stopped one stops listening at once (a job it runs finishes): the new one takes the socket
    if (action === 'replace') {
      const why = 'replaced by one of the environment of a job it refused';
      await askStandby(path, Frame.stop, { timeoutMs: 500, why });
    }
    startStandby(DEFAULT_IDLE_MS, path, Date.now(), true);
  } catch {
    // nothing to tell: the next job runs in its own process, as this one did
  }
}
