// Network grants (live/network-access.ts): endpoints parsed and compared after normalising case, IPv6
// brackets and spelling; 'any' allows everything; a refusal is one line naming the flag.
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_NETWORK_GRANTS,
  NetworkAccess,
  normalizeHost,
  parseEndpoint,
} from '../../electron/engine/live/network-access.js';

describe('network access', () => {
  it('parses HOST:PORT and [IPv6]:PORT, normalising the host', () => {
    expect(parseEndpoint('SDR.Local.:1234')).toEqual({ host: 'sdr.local', port: 1234 });
    expect(parseEndpoint('[0:0:0:0:0:0:0:1]:7373')).toEqual({ host: '::1', port: 7373 });
    expect(parseEndpoint('192.168.1.5:1')).toEqual({ host: '192.168.1.5', port: 1 });
    expect(normalizeHost('[FE80::0001]')).toBe('fe80::1');
  });

  it.each(['localhost', 'host:0', 'host:65536', '::1:1234', '[nothex]:1234', ':1234', 'a b:1'])(
    'refuses "%s" naming the option',
    (text) => {
      expect(() => parseEndpoint(text, '--rtl-tcp')).toThrow(/^--rtl-tcp takes HOST:PORT/);
    },
  );

  it('allows the granted endpoints, however they are spelt, and nothing else', () => {
    const net = new NetworkAccess(DEFAULT_NETWORK_GRANTS);
    expect(net.unrestricted).toBe(false);
    expect(net.endpoints).toEqual(['127.0.0.1:1234', '[::1]:1234', 'localhost:1234']);
    expect(net.allows('LOCALHOST', 1234)).toBe(true);
    expect(net.allows('[::1]', 1234)).toBe(true);
    expect(net.allows('0::0:1', 1234)).toBe(true);
    expect(net.allows('127.0.0.1', 1235)).toBe(false);
    expect(net.allows('127.0.0.2', 1234)).toBe(false);
    expect(() => net.check('rtl_tcp', '::2', 1234)).toThrow(
      'rtl_tcp://[::2]:1234 is not granted to web clients: start phasor serve with --rtl-tcp [::2]:1234',
    );
    expect(() => net.check('rtl_tcp', 'localhost', 1234)).not.toThrow();
  });

  it("allows anything when constructed with 'any'", () => {
    const net = new NetworkAccess('any');
    expect(net.unrestricted).toBe(true);
    expect(net.allows('10.0.0.5', 1234)).toBe(true);
  });
});
