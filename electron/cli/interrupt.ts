/** Aborted by Ctrl-C; a second Ctrl-C exits at once (temporary files are removed on exit). */
export const interrupt = new AbortController();
