// The optional system parts some tests need (Chromium, PulseAudio, the audify addon, clang for the wasm
// check, a WebGPU adapter), each checked once per test file, with the command that installs it on this
// distribution. A test that needs one says so on its describe line:
//
//   describe('live view in web mode', needs(chromium), () => { … });
//
// Without the part the suite is skipped, and its tests carry the skip note (`missing <part>: <install command>`),
// which test/support/skip-guard.ts prints and groups. In CI (CI=true) such a skip fails the run: CI installs
// every part (.ci/run); only [needs-gpu] tests may skip there.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { networkInterfaces } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

declare module 'vitest' {
  interface TaskMeta {
    /** Why the suite is skipped where a part is missing: `missing <part>: <install command>`. */
    skipNote?: string;
  }
}

export interface Requirement {
  /** What is missing, in words (`chromium`, `pulseaudio, pactl, paplay`). */
  part: string;
  ok: boolean;
  /** The command that installs it here. */
  install: string;
}

type Distro = 'debian' | 'fedora' | 'arch';

/** The package family of this machine, from /etc/os-release (Debian and Ubuntu when unknown). */
export function distro(osRelease = readOsRelease()): Distro {
  const ids = /^(?:ID|ID_LIKE)=(.*)$/gm;
  const words = [...osRelease.matchAll(ids)].flatMap((m) => m[1].replace(/"/g, '').split(/\s+/));
  if (words.some((w) => w === 'fedora' || w === 'rhel' || w === 'centos')) return 'fedora';
  if (words.some((w) => w === 'arch')) return 'arch';
  return 'debian';
}

function readOsRelease(): string {
  try {
    return readFileSync('/etc/os-release', 'utf8');
  } catch {
    return '';
  }
}

const os = distro();
/** The install command for packages named per family. */
function install(pkgs: Record<Distro, string>): string {
  const p = pkgs[os];
  if (os === 'fedora') return `dnf install -y ${p}`;
  if (os === 'arch') return `pacman -S --needed ${p}`;
  return `apt-get install -y ${p}`;
}

export function onPath(name: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((d) => d !== '' && existsSync(join(d, name)));
}

function requirement(part: string, ok: boolean, how: string): Requirement {
  return { part, ok, install: how };
}

export const CHROMIUM_PATH = process.env.PHASOR_CHROMIUM ?? '/usr/bin/chromium';

/** Chromium for the browser tests (playwright-core drives it; PHASOR_CHROMIUM names another). */
export const chromium = requirement(
  `Chromium (${CHROMIUM_PATH})`,
  existsSync(CHROMIUM_PATH),
  install({ debian: 'chromium', fedora: 'chromium', arch: 'chromium' }),
);

const pulseTools = ['pulseaudio', 'pactl', 'paplay'].filter((n) => !onPath(n));
/** A PulseAudio daemon and its tools, for the tests that capture a tone played into a private null sink. */
export const pulseaudio = requirement(
  `PulseAudio (${pulseTools.join(', ') || 'pulseaudio, pactl, paplay'})`,
  pulseTools.length === 0,
  install({
    debian: 'pulseaudio pulseaudio-utils',
    fedora: 'pulseaudio pulseaudio-utils',
    arch: 'pulseaudio',
  }),
);

const root = fileURLToPath(new URL('../..', import.meta.url));

function resolves(pkg: string): boolean {
  try {
    createRequire(import.meta.url).resolve(pkg);
    return true;
  } catch {
    return false;
  }
}

/** Whether a package loads in a Node process of its own (a native addon may be installed but not built);
 * asked once, on first use. */
function loadsLazily(pkg: string): () => boolean {
  let ok: boolean | undefined;
  return () =>
    (ok ??=
      spawnSync(process.execPath, ['-e', `require(${JSON.stringify(pkg)})`], {
        cwd: root,
        stdio: 'ignore',
        timeout: 30000,
      }).status === 0);
}

const audifyLoads = loadsLazily('audify');
/** The optional audify addon (microphone input), which npm builds from source against the audio headers;
 * without them npm drops it (then `npm install` after installing them builds it) or, where the package is
 * there unbuilt, `npm rebuild audify` builds it. */
export const audify: Requirement = {
  part: 'the audio input addon audify (npm builds it against the ALSA and PulseAudio headers)',
  get ok() {
    return audifyLoads();
  },
  install: `${install({
    debian: 'libasound2-dev libpulse-dev',
    fedora: 'alsa-lib-devel pulseaudio-libs-devel',
    arch: 'alsa-lib libpulse',
  })} && ${resolves('audify') ? 'npm rebuild audify' : 'npm install'}`,
};

const clangBin = process.env.CLANG ?? 'clang';
/** clang and wasm-ld, to rebuild native/wasm/phasor-simd.wasm and compare it with the committed one. */
export const clangWasm = requirement(
  'clang and wasm-ld (lld)',
  spawnSync(clangBin, ['--version']).status === 0 && spawnSync('wasm-ld', ['--version']).status === 0,
  install({ debian: 'clang lld', fedora: 'clang lld', arch: 'clang lld' }),
);

const vulkanDirs = [
  '/usr/lib/x86_64-linux-gnu',
  '/usr/lib/aarch64-linux-gnu',
  '/usr/lib64',
  '/usr/lib',
  '/lib/x86_64-linux-gnu',
  '/usr/local/lib',
];
const loaderFound = [...(process.env.LD_LIBRARY_PATH ?? '').split(':').filter(Boolean), ...vulkanDirs].some(
  (d) => existsSync(join(d, 'libvulkan.so.1')),
);
/** The Vulkan loader, through which Dawn (npm webgpu) finds any Vulkan driver. */
export const vulkanLoader = requirement(
  'the Vulkan loader (libvulkan.so.1)',
  loaderFound,
  install({ debian: 'libvulkan1', fedora: 'vulkan-loader', arch: 'vulkan-icd-loader' }),
);

/** Debian's chromium ships SwiftShader, the software Vulkan driver the WebGPU tests run on without a GPU. */
export const SWIFTSHADER_ICD_PATH = '/usr/lib/chromium/vk_swiftshader_icd.json';
export const swiftShader = requirement(
  `SwiftShader's Vulkan driver (${SWIFTSHADER_ICD_PATH}) and the Vulkan loader`,
  loaderFound && existsSync(process.env.VK_ICD_FILENAMES ?? SWIFTSHADER_ICD_PATH),
  install({
    debian: 'chromium libvulkan1',
    fedora: 'chromium vulkan-loader',
    arch: 'chromium vulkan-icd-loader',
  }),
);

/** What a WebGPU test needs where there is no GPU: SwiftShader's Vulkan driver (Debian's chromium package
 * ships it) and the Vulkan loader. Whether an adapter is found is known once Dawn is asked
 * (test/webgpu/gpu.ts), so this takes the answer. */
export function webgpuAdapter(ok: boolean, reason: string): Requirement {
  return requirement(
    `a WebGPU adapter (Dawn: ${reason})`,
    ok,
    install({
      debian: 'chromium libvulkan1',
      fedora: 'chromium vulkan-loader',
      arch: 'chromium vulkan-icd-loader',
    }),
  );
}

/** openssl, which makes the throwaway certificates of the TLS tests. */
export const openssl = requirement(
  'openssl',
  spawnSync('openssl', ['version']).status === 0,
  install({ debian: 'openssl', fedora: 'openssl', arch: 'openssl' }),
);

/** This machine's first IPv4 address that is not loopback: a page served there over http is not a secure
 * context, which the browser-microphone-over-TLS test needs. */
export const EXTERNAL_IPV4 = Object.values(networkInterfaces())
  .flatMap((list) => list ?? [])
  .find((a) => a.family === 'IPv4' && !a.internal)?.address;
export const externalAddress = requirement(
  'a network interface with an IPv4 address other than loopback',
  EXTERNAL_IPV4 !== undefined,
  'bring up a network interface (any address; nothing is sent off the machine)',
);

let namespaces: boolean | undefined;
/** A small tmpfs for the full-disk tests (test/support/disk.ts): mounted as root, else in a user and mount
 * namespace of its own (unshare -rm), which a chroot, and a container's default seccomp profile, refuse. */
export const smallDisk: Requirement = {
  part: 'a tmpfs of its own for the full-disk tests (root, or user namespaces for unshare -rm)',
  get ok() {
    if (process.getuid?.() === 0) return true;
    namespaces ??= spawnSync('unshare', ['--user', '--map-root-user', '--mount', 'true']).status === 0;
    return namespaces;
  },
  install: 'run npm test as root, or where user namespaces are allowed (not in a chroot)',
};

/** The skip note of a missing part, as skip-guard.ts groups it. */
export function missingNote(r: Requirement): string {
  return `missing ${r.part}: ${r.install}`;
}

/** Suite options: skip the suite when any of the parts is missing, with the note saying which. */
export function needs(...reqs: Requirement[]): { skip: boolean; meta: { skipNote?: string } } {
  const missing = reqs.filter((r) => !r.ok);
  if (missing.length === 0) return { skip: false, meta: {} };
  return { skip: true, meta: { skipNote: missing.map(missingNote).join('; ') } };
}
