// Security pieces shared by the hosts that show the renderer: the Content-Security-Policy, the access
// token of `phasor serve` and its constant-time comparison, and which host names are loopback.

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export interface CspOptions {
  /** Extra connect-src sources (e.g. the WebSocket URL of `phasor serve`). */
  connect?: readonly string[];
}

/**
 * The page's policy: scripts only from the app itself (no inline script, no eval), no plugins, no framing,
 * no form posts; images from the app, data: and blob: (snapshots); workers from the app or blob:. Inline
 * styles stay allowed because Vue binds style attributes.
 */
export function contentSecurityPolicy(options: CspOptions = {}): string {
  const connect = ["'self'", ...(options.connect ?? [])].join(' ');
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    `connect-src ${connect}`,
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Headers sent with every page and asset; `microphone` lets the page itself (not a frame of another
 * origin) ask the browser for its microphone (web mode's browser-mic source). */
export function securityHeaders(csp: string, allow: { microphone?: boolean } = {}): Record<string, string> {
  return {
    'Content-Security-Policy': csp,
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'Permissions-Policy': `camera=(), microphone=(${allow.microphone ? 'self' : ''}), geolocation=(), usb=(), serial=()`,
  };
}

/** A random access token (192 bits, URL-safe). */
export function newToken(): string {
  return randomBytes(24).toString('base64url');
}

/** Compares two tokens in time independent of where they differ (hashes first, so lengths match too). */
export function tokensEqual(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}

/** True for addresses only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h) || h === '::ffff:127.0.0.1';
}
