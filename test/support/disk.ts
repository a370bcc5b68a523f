// A small disk for a job: a tmpfs mounted for it, directly as root, else in a user and mount namespace of
// its own (unshare -rm), so any Linux user runs it. Optionally filled first, so the job finds it full.
import { spawnSync } from 'node:child_process';

// $1: the mount point; $2: its size; $3: the filler's bytes (0: none); the rest: the command. Prints the
// command's stdout, then its exit status, then what the disk holds.
const SCRIPT =
  'disk=$1; size=$2; fill=$3; shift 3; mount -t tmpfs -o size="$size" tmpfs "$disk" || exit 97; ' +
  '[ "$fill" -gt 0 ] && head -c "$fill" /dev/urandom > "$disk/filler" 2>/dev/null; "$@"; echo "exit $?"; ' +
  'ls -A "$disk"; umount "$disk" 2>/dev/null; true';

export interface SmallDiskRun {
  code: number;
  stdout: string;
  stderr: string;
  /** The names on the disk after the job (a filler included). */
  left: string[];
}

/** Runs argv (its own process, no standby) with a tmpfs of `size` (e.g. '2m') at `disk`, holding a file
 * `filler` of `fill` random bytes first when `fill` > 0. */
export function onSmallDisk(disk: string, argv: string[], size = '2m', fill = 0): SmallDiskRun {
  const asRoot = process.getuid?.() === 0;
  const shell = asRoot ? ['sh'] : ['unshare', '--user', '--map-root-user', '--mount', 'sh'];
  const r = spawnSync(shell[0], [...shell.slice(1), '-c', SCRIPT, 'sh', disk, size, String(fill), ...argv], {
    encoding: 'utf8',
    env: { ...process.env, PHASOR_STANDBY: 'off' },
  });
  if (r.status === 97 || r.error) {
    throw new Error(`cannot mount a tmpfs for the test (${asRoot ? 'as root' : 'unshare -rm'}): ${r.stderr}`);
  }
  const lines = r.stdout.trim().split('\n');
  const at = lines.findIndex((l) => l.startsWith('exit '));
  return {
    code: Number(lines[at].slice(5)),
    stdout: lines.slice(0, at).join('\n'),
    stderr: r.stderr,
    left: lines.slice(at + 1),
  };
}
