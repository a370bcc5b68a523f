// The offline half of the engine's protocol (issue 5): files open per connection, jobs with progress and
// cancel, the server-side file browser, filter design, and the work behind each offline request.

export {
  OFFLINE_METHODS,
  MAX_SAMPLE_VALUES,
  OfflineWork,
  type OfflineEngine,
  type OfflineOptions,
} from './work.js';
export { JobRunner, MAX_JOBS, PROGRESS_INTERVAL_MS, type JobContext, type JobRunnerOptions } from './jobs.js';
export {
  FileRegistry,
  MAX_ANNOTATIONS,
  MAX_OPEN_FILES,
  mapAnnotations,
  resolveUserPath,
  type FileLease,
  type OpenFileParams,
} from './files.js';
export { listDirectory, isOpenable, OPENABLE_EXTENSIONS } from './directory.js';
export { designFilter, designTapsFor, DEFAULT_DESIGN_WINDOW, type DesignParams } from './design.js';
export { Envelope } from './envelope.js';
