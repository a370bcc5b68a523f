// `npm run dist` for Linux as far as these machines go: the real electron-builder CLI builds the deb and
// rpm targets from electron-builder.yml and package.json, on a stand-in of the unpacked app
// (--prepackaged: no Electron binary can be downloaded here) and with a stand-in for fpm
// (test/host/fake-fpm.mjs: fpm is downloaded from GitHub, which is out of reach). Everything up to fpm is
// electron-builder's own code: the desktop entry, the MIME package, the icons, the package's fields and
// dependencies, read here from the files and arguments it hands fpm. fpm writes -d as Depends, --maintainer
// as Maintainer and --url as Homepage; dpkg-deb then builds a package with those fields, so Debian's own
// parser checks their syntax. Not covered here: the AppImage (its runtime is downloaded too), the .ico and
// .icns (electron-builder's icon tool is downloaded), and fpm itself.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { root } from '../support/cli.js';

const builderRequire = createRequire(createRequire(import.meta.url).resolve('electron-builder'));
const FpmTarget = (
  builderRequire('app-builder-lib/out/targets/FpmTarget.js') as {
    default: { prototype: { getDefaultDepends(target: string): string[] } };
  }
).default;
const cli = builderRequire.resolve('electron-builder/cli.js');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  version: string;
  homepage: string;
  author: { name: string; email: string };
};

// Our extensions and the MIME types the desktop entry lists for them (WAV's are the system's own).
const OWN_TYPES: Record<string, string> = {
  'sigmf-meta': 'application/x-sigmf-meta',
  sigmf: 'application/x-sigmf',
  cu8: 'application/x-iq-cu8',
  cs8: 'application/x-iq-cs8',
  cs16: 'application/x-iq-cs16',
  cf32: 'application/x-iq-cf32',
};
const WAV_TYPES = ['audio/wav', 'audio/x-wav', 'audio/vnd.wave'];
const ICON_SIZES = [16, 24, 32, 48, 64, 128, 256, 512, 1024];

let dir = '';
let stage = '';
let build: ReturnType<typeof spawnSync>;
const argsOf = (target: string): string[] => JSON.parse(readFileSync(join(stage, `${target}.json`), 'utf8'));
/** The values of an option given as `--name value` (every occurrence, in order). */
const option = (args: string[], name: string): string[] =>
  args.flatMap((a, i) => (a === name && i + 1 < args.length ? [args[i + 1]] : []));
const staged = (target: string, file: string): string => join(stage, target, file);

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'phasor-dist-'));
  stage = join(dir, 'stage');
  mkdirSync(stage);
  // The unpacked app as `electron-builder --linux dir` leaves it (linux-unpacked/): the executable, named
  // after the package, and its resources folder.
  const unpacked = join(dir, 'linux-unpacked');
  mkdirSync(join(unpacked, 'resources'), { recursive: true });
  writeFileSync(join(unpacked, 'phasor'), '#!/bin/sh\n');
  chmodSync(join(unpacked, 'phasor'), 0o755);
  writeFileSync(join(unpacked, 'resources', 'app.asar'), '');
  const fpm = join(root, 'test', 'host', 'fake-fpm.mjs');
  chmodSync(fpm, 0o755);
  build = spawnSync(
    process.execPath,
    [
      cli,
      '--linux',
      'deb',
      'rpm',
      '--x64',
      '--prepackaged',
      unpacked,
      `-c.directories.output=${join(dir, 'release')}`,
      '--publish',
      'never',
    ],
    {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, CUSTOM_FPM_PATH: fpm, FAKE_FPM_STAGE: stage },
      timeout: 60_000,
    },
  );
}, 90_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('electron-builder --linux deb rpm', () => {
  it('runs through to fpm for both targets', () => {
    expect(build.error).toBeUndefined();
    expect(`${build.stderr}`).not.toMatch(/⨯|error/i);
    expect(build.status, `${build.stdout}${build.stderr}`).toBe(0);
    expect(option(argsOf('deb'), '--package')).toEqual([
      join(dir, 'release', `phasor_${pkg.version}_amd64.deb`),
    ]);
    expect(option(argsOf('rpm'), '--package')).toEqual([
      join(dir, 'release', `phasor-${pkg.version}.x86_64.rpm`),
    ]);
  });

  it('installs a desktop entry that opens our files: MimeType, Exec with %U, Icon, Categories', () => {
    const text = readFileSync(staged('deb', 'usr/share/applications/phasor.desktop'), 'utf8');
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toBe('[Desktop Entry]');
    const entry = Object.fromEntries(
      lines.slice(1).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    );
    expect(entry).toMatchObject({
      Type: 'Application',
      Name: 'Phasor',
      Terminal: 'false',
      // The file manager passes the files it opens as URLs (%U).
      Exec: '/opt/Phasor/phasor %U',
      Icon: 'phasor',
      // package.json's desktopName, which Electron takes as the window's app id.
      StartupWMClass: 'phasor',
    });
    expect(entry.Categories.split(';')).toEqual(['Science', 'Engineering', '']);
    expect(entry.MimeType.endsWith(';')).toBe(true);
    expect(entry.MimeType.split(';').slice(0, -1).sort()).toEqual(
      [...WAV_TYPES, ...Object.values(OWN_TYPES)].sort(),
    );
    // The rpm installs the same entry.
    expect(readFileSync(staged('rpm', 'usr/share/applications/phasor.desktop'), 'utf8')).toBe(text);
  });

  it('defines our MIME types by their extensions, and leaves WAV to the system', () => {
    const xml = readFileSync(staged('deb', 'usr/share/mime/packages/phasor.xml'), 'utf8');
    const defined = [...xml.matchAll(/<mime-type type="([^"]+)">\s*<glob pattern="([^"]+)"\/>/g)].map((m) => [
      m[2],
      m[1],
    ]);
    expect(Object.fromEntries(defined)).toEqual(
      Object.fromEntries(Object.entries(OWN_TYPES).map(([ext, type]) => [`*.${ext}`, type])),
    );
    expect(xml).not.toMatch(/audio\//);
    expect(xml).toMatch(
      /^<\?xml version="1.0" encoding="utf-8"\?>\n<mime-info xmlns="http:\/\/www.freedesktop.org\/standards\/shared-mime-info">/,
    );
  });

  it('installs the icon at every size into the hicolor theme, under the name the entry uses', () => {
    for (const size of ICON_SIZES) {
      const file = staged('deb', `usr/share/icons/hicolor/${size}x${size}/apps/phasor.png`);
      const png = PNG.sync.read(readFileSync(file));
      expect([png.width, png.height], file).toEqual([size, size]);
    }
  });

  it('gives the deb its fields: Depends = the defaults + ALSA and PulseAudio, Maintainer with email, Homepage', () => {
    const args = argsOf('deb');
    const depends = option(args, '-d');
    // electron-builder's own defaults (what Electron needs) come first, all of them, then ours.
    const defaults = FpmTarget.prototype.getDefaultDepends('deb');
    expect(defaults).toContain('libgtk-3-0');
    expect(depends).toEqual([...defaults, 'libasound2t64 | libasound2', 'libpulse0']);
    const [maintainer] = option(args, '--maintainer');
    expect(maintainer).toBe(`${pkg.author.name} <${pkg.author.email}>`);
    expect(maintainer).toMatch(/^[^<>]+ <[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+>$/);
    const [url] = option(args, '--url');
    expect(url).toBe(pkg.homepage);
    expect(new URL(url).protocol).toBe('https:');
    expect(option(args, '--name')).toEqual(['phasor']);
    expect(option(args, '--version')).toEqual([pkg.version]);
    expect(option(args, '--license')).toEqual(['MIT']);
    // The app itself, under /opt, with the AppArmor profile electron-builder adds for Ubuntu 24.04.
    expect(args).toContain(`${join(dir, 'linux-unpacked')}/=/opt/Phasor`);
    expect(readFileSync(staged('deb', 'opt/Phasor/resources/apparmor-profile'), 'utf8')).toContain(
      '/opt/Phasor/phasor',
    );

    // Debian's parser on those fields, as fpm writes them into the control file.
    const pkgDir = join(dir, 'control-check');
    mkdirSync(join(pkgDir, 'DEBIAN'), { recursive: true });
    const [description] = option(args, '--description');
    writeFileSync(
      join(pkgDir, 'DEBIAN', 'control'),
      [
        'Package: phasor',
        `Version: ${pkg.version}`,
        'Architecture: amd64',
        `Maintainer: ${maintainer}`,
        `Depends: ${depends.join(', ')}`,
        `Recommends: ${option(args, '--deb-recommends').join(', ')}`,
        `Homepage: ${url}`,
        `Description: ${description}`,
        '',
      ].join('\n'),
    );
    const deb = join(dir, 'control-check.deb');
    const made = spawnSync('dpkg-deb', ['--build', '--root-owner-group', pkgDir, deb], { encoding: 'utf8' });
    expect(made.status, made.stderr).toBe(0);
    const fields = spawnSync('dpkg-deb', ['-f', deb, 'Depends', 'Maintainer', 'Homepage'], {
      encoding: 'utf8',
    });
    expect(fields.stdout).toBe(
      `Depends: ${[...defaults, 'libasound2t64 | libasound2', 'libpulse0'].join(', ')}\n` +
        `Maintainer: ${maintainer}\nHomepage: ${url}\n`,
    );
  });

  it('gives the rpm the defaults + alsa-lib and pulseaudio-libs', () => {
    const args = argsOf('rpm');
    expect(option(args, '-d')).toEqual([
      ...FpmTarget.prototype.getDefaultDepends('rpm'),
      'alsa-lib',
      'pulseaudio-libs',
    ]);
    expect(option(args, '--url')).toEqual([pkg.homepage]);
    expect(option(args, '--maintainer')).toEqual([`${pkg.author.name} <${pkg.author.email}>`]);
  });
});
