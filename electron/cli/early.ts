// Which words of a file job's command line may name its inputs, read ahead from the process's first
// moments (engine/io/early-reads.ts) before the job's modules load.

/** Options whose value is an output, never read. */
const OUTPUT_OPTIONS = new Set(['-o', '--output']);

/** The words after the command that are not options and not the value of -o/--output (option values that
 * are not files, such as `--format cf32`, are dropped by the reader's stat); a SigMF recording named by
 * its metadata brings its samples' file. */
export function inputCandidates(argv: readonly string[], command: string): string[] {
  const words: string[] = [];
  let seen = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (OUTPUT_OPTIONS.has(a)) i++;
    else if (a.startsWith('-')) continue;
    else if (!seen && a === command) seen = true;
    else if (seen) words.push(a);
  }
  return words.flatMap((w) => (w.endsWith('.sigmf-meta') ? [w, `${w.slice(0, -'meta'.length)}data`] : [w]));
}
