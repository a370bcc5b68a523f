// Which network servers a client may have the engine connect to (an rtl_tcp source's host and port): the
// endpoints its host granted (`phasor serve --rtl-tcp HOST:PORT`), or any (the desktop app, the CLI,
// tests). The mirror of FileAccess (offline/access.ts) for networked sources. Hosts are compared as
// written after normalising (case, IPv6 brackets and spelling): no name is resolved, so a grant of
// `localhost:1234` allows the name localhost, not whatever address someone else calls it.
//
//   const net = new NetworkAccess(['127.0.0.1:1234', '[::1]:1234'], { flag: '--rtl-tcp' });
//   net.check('rtl_tcp', '10.0.0.5', 1234);  // PhasorError: … start phasor serve with --rtl-tcp 10.0.0.5:1234

import { isIPv6 } from 'node:net';
import { InvalidArgumentError, PhasorError } from '../errors.js';

export interface Endpoint {
  host: string;
  port: number;
}

/** What `phasor serve` grants when no --rtl-tcp is given: rtl_tcp's default port on this machine. */
export const DEFAULT_NETWORK_GRANTS: readonly string[] = ['127.0.0.1:1234', '[::1]:1234', 'localhost:1234'];

/** A host as compared: lower case, no brackets or trailing dot, IPv6 in its canonical short form. */
export function normalizeHost(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  if (h.endsWith('.')) h = h.slice(0, -1);
  if (isIPv6(h)) {
    try {
      return new URL(`http://[${h}]/`).hostname.slice(1, -1);
    } catch {
      return h;
    }
  }
  return h;
}

/** `HOST:PORT` as a person writes it (brackets around an IPv6 address). */
export function formatEndpoint(e: Endpoint): string {
  const h = normalizeHost(e.host);
  return `${h.includes(':') ? `[${h}]` : h}:${e.port}`;
}

/** Parses `HOST:PORT` or `[IPv6]:PORT`; `what` names the option in the refusal. */
export function parseEndpoint(text: string, what = 'an endpoint'): Endpoint {
  const m = /^\s*(?:\[([^\]]+)\]|([^:[\]\s]+)):(\d{1,5})\s*$/.exec(text);
  const port = m ? Number(m[3]) : NaN;
  const host = m ? (m[1] ?? m[2]) : '';
  if (!m || port < 1 || port > 65535 || (m[1] !== undefined && !isIPv6(m[1]))) {
    throw new InvalidArgumentError(
      `${what} takes HOST:PORT (e.g. 192.168.1.5:1234, sdr.local:1234 or [::1]:1234), got "${text.slice(0, 80)}"`,
    );
  }
  return { host: normalizeHost(host), port };
}

export interface NetworkAccessOptions {
  /** The command-line option that grants an endpoint (named in the refusal). Default --rtl-tcp. */
  flag?: string;
}

export class NetworkAccess {
  readonly #granted: Set<string> | null;
  readonly #flag: string;

  /** `endpoints`: HOST:PORT strings (parsed now: a bad one throws); 'any': no restriction. */
  constructor(endpoints: readonly string[] | 'any', options: NetworkAccessOptions = {}) {
    this.#flag = options.flag ?? '--rtl-tcp';
    this.#granted =
      endpoints === 'any'
        ? null
        : new Set(endpoints.map((e) => formatEndpoint(parseEndpoint(e, this.#flag))));
  }

  get unrestricted(): boolean {
    return this.#granted === null;
  }

  /** The granted endpoints, normalised (empty when unrestricted). */
  get endpoints(): readonly string[] {
    return this.#granted ? [...this.#granted] : [];
  }

  allows(host: string, port: number): boolean {
    return this.#granted === null || this.#granted.has(formatEndpoint({ host, port }));
  }

  /** Nothing when the client may reach `scheme://host:port`; else one line saying how to grant it. */
  check(scheme: string, host: string, port: number): void {
    if (this.allows(host, port)) return;
    const where = formatEndpoint({ host: host.slice(0, 253), port });
    throw new PhasorError(
      'invalid-argument',
      `${scheme}://${where} is not granted to web clients: start phasor serve with ${this.#flag} ${where}`,
    );
  }
}
