/** Aborted by Ctrl-C; a second Ctrl-C exits at once (temporary files are removed on exit). A standby
 * process, which runs one job after another, starts each with a fresh one (`renewInterrupt`). */
let current = new AbortController();

export const interrupt = {
  get signal(): AbortSignal {
    return current.signal;
  },
  abort(): void {
    current.abort();
  },
};

export function renewInterrupt(): void {
  current = new AbortController();
}
