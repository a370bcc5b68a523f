// The packaging config (electron-builder.yml), read and validated by the electron-builder the project
// depends on, the way `npx electron-builder` does, and the Electron fuses its packager would flip.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
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
