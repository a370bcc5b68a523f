// Cold reads of one file by several strategies, each after evicting the file from the page cache
// (posix_fadvise DONTNEED from Python): `cat`, and Node reads of a piece size with several in flight.
// Prints medians of ROUNDS, seconds. The file must be clean (written out: sync after writing it).
//   node bench/cold-reads.mjs FILE [ROUNDS]
import { open } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
const [file, roundsArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: node bench/cold-reads.mjs FILE [ROUNDS]');
  process.exit(2);
}
const rounds = Number(roundsArg ?? 3);
const evict = () =>
  execFileSync('python3', [
    '-c',
    `import os\nfd=os.open(${JSON.stringify(file)},os.O_RDONLY)\nos.posix_fadvise(fd,0,0,os.POSIX_FADV_DONTNEED)\nos.close(fd)`,
  ]);
async function nodeRead(piece, depth) {
  const h = await open(file, 'r');
  const size = (await h.stat()).size;
  let next = 0;
  const worker = async () => {
    const buf = new Uint8Array(piece);
    while (next < size) {
      const pos = next;
      next += piece;
      await h.read(buf, 0, Math.min(piece, size - pos), pos);
    }
  };
  await Promise.all(Array.from({ length: depth }, worker));
  await h.close();
}
const ways = {
  cat: async () => execFileSync('sh', ['-c', 'cat "$1" > /dev/null', 'sh', file]),
  'node 4M x1': () => nodeRead(4 << 20, 1),
  'node 4M x2': () => nodeRead(4 << 20, 2),
  'node 4M x4': () => nodeRead(4 << 20, 4),
  'node 1M x8': () => nodeRead(1 << 20, 8),
  'node 16M x1': () => nodeRead(16 << 20, 1),
};
const times = Object.fromEntries(Object.keys(ways).map((k) => [k, []]));
for (let r = 0; r < rounds; r++) {
  for (const [k, f] of Object.entries(ways)) {
    evict();
    const t = performance.now();
    await f();
    times[k].push((performance.now() - t) / 1000);
  }
}
for (const [k, t] of Object.entries(times)) {
  const s = [...t].sort((a, b) => a - b);
  console.log(
    `cold read ${k}: median ${s[Math.floor(s.length / 2)].toFixed(3)} s (${t.map((x) => x.toFixed(3)).join(' ')})`,
  );
}
