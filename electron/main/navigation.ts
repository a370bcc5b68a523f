// Where the desktop app's pages may go, kept free of Electron imports. Every webContents stays on its own
// pages (the app window on phasor://app, the hidden WebGPU window on phasor://gpu); a link leaves the app
// only for the browser, only over https, only to a host the app itself links to, and only once the user
// agreed (index.ts asks).

/** Hosts the app's pages and messages link to: the SigMF specification (the recordings it reads). */
export const EXTERNAL_HOSTS: readonly string[] = ['sigmf.org'];

/** The link as the browser should get it, or null when it may not leave the app: https only, on a host of
 * `hosts` exactly (no subdomain, no other port), with no user name or password in it. */
export function externalLink(url: string, hosts: readonly string[] = EXTERNAL_HOSTS): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if (u.protocol !== 'https:' || u.username !== '' || u.password !== '' || u.port !== '') return null;
  return hosts.includes(u.hostname) ? u.href : null;
}

/** Whether `url` is a page of the custom scheme `scheme` on `host` (Node gives custom schemes the origin
 * "null": compare scheme and host instead). */
export function isSchemePage(url: string, scheme: string, host: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === `${scheme}:` && u.host === host;
  } catch {
    return false;
  }
}
