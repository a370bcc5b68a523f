// How the reads into the OS's cache ahead of a job run: the source's prefetch (reader.ts) and the CLI's
// early reads before it (early-reads.ts) share the piece size, the lead and the test for a cached file.

/** Bytes of one read ahead (one in flight, into a scratch buffer). */
export const PREFETCH_PIECE = 4 << 20;

/** Reads in a row from the OS's cache after which reading ahead stops (the file is cached, nothing to do);
 * a read from the cache is one faster than `cacheBytesPerMs`. At most `lead` bytes are read ahead of the
 * job (a file larger than the memory is not read so far ahead that its pages are dropped before the job
 * gets there). */
export const PREFETCH_DEFAULTS = { cachedReads: 8, cacheBytesPerMs: 4e6, lead: 512 << 20 };

/** Whether a read of `bytes` that took `ms` came from the OS's cache. */
export function fromCache(
  bytes: number,
  ms: number,
  cacheBytesPerMs = PREFETCH_DEFAULTS.cacheBytesPerMs,
): boolean {
  return bytes >= cacheBytesPerMs * ms;
}
