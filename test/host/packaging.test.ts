// The packaging config (electron-builder.yml), read and validated by the electron-builder the project
// depends on, the way `npx electron-builder` does, and the Electron fuses its packager would flip; the
// lint step that validates it (scripts/check-builder.mjs); the icons it packages (scripts/make-icon.mjs).
// What `electron-builder --linux` makes of it: dist.test.ts.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PNG } from 'pngjs';
import { afterAll, describe, expect, it } from 'vitest';
import { root } from '../support/cli.js';

// electron-builder's own copy of app-builder-lib (its config loader, schema validator and packager), and
// the @electron/fuses that packager uses.
const builderRequire = createRequire(createRequire(import.meta.url).resolve('electron-builder'));
const libRequire = createRequire(builderRequire.resolve('app-builder-lib/out/util/config/config.js'));

interface Config {
  asar?: unknown;
  asarUnpack?: string[];
  disableAsarIntegrity?: boolean;
  electronFuses?: Record<string, boolean>;
}
const { getConfig, validateConfiguration } = builderRequire('app-builder-lib/out/util/config/config.js') as {
  getConfig(projectDir: string): Promise<Config>;
  validateConfiguration(config: Config, debugLogger: { isEnabled: boolean; add(): void }): Promise<void>;
};
// A packager's fuse wiring (every platform's packager inherits it).
const { LinuxPackager } = builderRequire('electron-builder') as {
  LinuxPackager: {
    prototype: { generateFuseConfig(fuses: Record<string, boolean>): Promise<Record<string, unknown>> };
  };
};
const { FuseV1Options } = libRequire('@electron/fuses') as { FuseV1Options: Record<string, number> };
const quiet = { isEnabled: false, add: () => undefined };

describe('electron-builder.yml', () => {
  it('is a valid electron-builder configuration (and the validator refuses an invalid one)', async () => {
    const config = await getConfig(root);
    await expect(validateConfiguration(config, quiet)).resolves.toBeUndefined();
    const misspelt = { ...config, electronFuses: { runAsNod: false } } as Config;
    await expect(validateConfiguration(misspelt, quiet)).rejects.toThrow(/configuration.electronFuses/);
  });

  it('flips the fuses: no running as Node, no NODE_OPTIONS or --inspect, encrypted cookies, the app only from a checked asar', async () => {
    const config = await getConfig(root);
    expect(config.electronFuses).toEqual({
      runAsNode: false,
      enableCookieEncryption: true,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      grantFileProtocolExtraPrivileges: false,
    });
    // What the packager writes into the Electron binary, wire by wire.
    const wires = await LinuxPackager.prototype.generateFuseConfig(config.electronFuses ?? {});
    expect({
      runAsNode: wires[FuseV1Options.RunAsNode],
      cookieEncryption: wires[FuseV1Options.EnableCookieEncryption],
      nodeOptions: wires[FuseV1Options.EnableNodeOptionsEnvironmentVariable],
      inspect: wires[FuseV1Options.EnableNodeCliInspectArguments],
      asarIntegrity: wires[FuseV1Options.EnableEmbeddedAsarIntegrityValidation],
      onlyAsar: wires[FuseV1Options.OnlyLoadAppFromAsar],
      fileProtocol: wires[FuseV1Options.GrantFileProtocolExtraPrivileges],
    }).toEqual({
      runAsNode: false,
      cookieEncryption: true,
      nodeOptions: false,
      inspect: false,
      asarIntegrity: true,
      onlyAsar: true,
      fileProtocol: false,
    });
  });

  it('packs the app into an asar with its integrity recorded, only native code unpacked', async () => {
    const config = await getConfig(root);
    // onlyLoadAppFromAsar needs app.asar; the integrity fuse needs electron-builder to record its hash.
    expect(config.asar).not.toBe(false);
    expect(config.disableAsarIntegrity).not.toBe(true);
    // The app's own code (out/) stays inside the checked archive.
    for (const pattern of config.asarUnpack ?? []) {
      expect(pattern).not.toMatch(/^(\*\*\/)?(out\b|\*($|\.js|\.\w*js))/);
    }
  });
});

describe('scripts/check-builder.mjs (npm run lint)', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  /** Runs the check on a copy of the project's package.json and electron-builder.yml, edited by `edit`. */
  const check = (
    edit?: (yml: string) => string,
  ): { status: number | null; stdout: string; stderr: string } => {
    let dir = root;
    if (edit) {
      dir = mkdtempSync(join(tmpdir(), 'phasor-builder-'));
      dirs.push(dir);
      copyFileSync(join(root, 'package.json'), join(dir, 'package.json'));
      const yml = readFileSync(join(root, 'electron-builder.yml'), 'utf8');
      const edited = edit(yml);
      expect(edited).not.toBe(yml);
      writeFileSync(join(dir, 'electron-builder.yml'), edited);
    }
    const r = spawnSync(process.execPath, [join(root, 'scripts', 'check-builder.mjs'), dir], {
      encoding: 'utf8',
    });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  };

  it('passes this project quietly', () => {
    expect(check()).toEqual({ status: 0, stdout: '', stderr: '' });
  });

  it("fails a misspelt or misplaced key with electron-builder's own schema, one line a problem", () => {
    const misspelt = check((yml) => yml.replace(/^linux:$/m, 'linxu:'));
    expect(misspelt.status).toBe(1);
    expect(misspelt.stderr).toBe(
      "phasor: electron-builder.yml: configuration has an unknown property 'linxu'\n",
    );
    // A key of another target's options: the schema knows where each one belongs.
    const misplaced = check((yml) => yml.replace(/^nsis:$/m, 'nsis:\n  depends: [libfoo]'));
    expect(misplaced.status).toBe(1);
    expect(misplaced.stderr).toMatch(/^phasor: electron-builder\.yml: configuration\.nsis /);
    // A wrong type, its detail on the same line.
    const wrongType = check((yml) => yml.replace('\n  oneClick: false\n', '\n  oneClick: [no]\n'));
    expect(wrongType.status).toBe(1);
    expect(wrongType.stderr).toMatch(
      /^phasor: electron-builder\.yml: configuration\.nsis\.oneClick should be a boolean/m,
    );
    for (const r of [misspelt, misplaced, wrongType]) {
      expect(r.stderr.split('\n').every((l) => l === '' || l.startsWith('phasor: '))).toBe(true);
    }
  });

  it("fails a deb or rpm dependency list that lost one of electron-builder's defaults", () => {
    const deb = check((yml) => yml.replace('\n    - libnss3\n', '\n'));
    expect(deb.status).toBe(1);
    expect(deb.stderr).toMatch(
      /^phasor: electron-builder\.yml: deb\.depends replaces electron-builder's defaults and lacks libnss3 \(its defaults: libgtk-3-0, /,
    );
    const rpm = check((yml) => yml.replace('\n    - gtk3\n', '\n'));
    expect(rpm.status).toBe(1);
    expect(rpm.stderr).toMatch(/^phasor: electron-builder\.yml: rpm\.depends .* lacks gtk3 /);
  });

  it('fails where there is no electron-builder.yml', () => {
    const dir = mkdtempSync(join(tmpdir(), 'phasor-builder-'));
    dirs.push(dir);
    const r = spawnSync(process.execPath, [join(root, 'scripts', 'check-builder.mjs'), dir], {
      encoding: 'utf8',
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(`phasor: electron-builder.yml: not found in ${dir}\n`);
  });
});

describe('the app icon (resources/icons, drawn by scripts/make-icon.mjs)', () => {
  const sizes = [16, 24, 32, 48, 64, 128, 256, 512, 1024];
  const icons = join(root, 'resources', 'icons');

  it('is there at every size a desktop asks for, each a square RGBA tile with transparent corners', () => {
    expect(readdirSync(icons).sort()).toEqual(sizes.map((n) => `${n}x${n}.png`).sort());
    for (const n of sizes) {
      const png = PNG.sync.read(readFileSync(join(icons, `${n}x${n}.png`)));
      expect([png.width, png.height, png.colorType], `${n}`).toEqual([n, n, 6]);
      const alpha = (x: number, y: number): number => png.data[(y * n + x) * 4 + 3];
      expect([alpha(0, 0), alpha(n - 1, 0), alpha(0, n - 1), alpha(n - 1, n - 1)], `${n}`).toEqual([
        0, 0, 0, 0,
      ]);
      expect(alpha(n >> 1, n >> 1), `${n}`).toBe(255);
    }
  });

  it('is what the script draws (run `node scripts/make-icon.mjs` after changing the picture)', async () => {
    const { drawIcon, ICON_SIZES } = (await import(
      pathToFileURL(join(root, 'scripts', 'make-icon.mjs')).href
    )) as {
      drawIcon(size: number): PNG;
      ICON_SIZES: number[];
    };
    expect(ICON_SIZES).toEqual(sizes);
    // The small sizes, pixel for pixel (the large ones take seconds to draw).
    for (const n of sizes.filter((n) => n <= 128)) {
      const committed = PNG.sync.read(readFileSync(join(icons, `${n}x${n}.png`)));
      expect(Buffer.compare(committed.data, drawIcon(n).data), `${n}x${n}.png`).toBe(0);
    }
  });
});
