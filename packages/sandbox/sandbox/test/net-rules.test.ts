/**
 * Network by name, the pure parts (issue 24): host rules (names, wildcards, ports, deny first),
 * private addresses, the network setting with pins, and the proxy's parsing of HTTP and SOCKS5
 * requests.
 */

import { networkInterfaces } from 'node:os';
import {
  checkNetworkSetting,
  HostRules,
  isPrivateAddress,
  mapResolver,
  NETWORK_RULES_MAX,
  settingResolver,
} from '@dsh/sandbox';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseHttpAsk, socksGreeting, socksRequest } from '../src/net/fronts.js';

const codeOf = (f: () => unknown): string | undefined => {
  try {
    f();
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return undefined;
};

describe('host rules', () => {
  const rules = new HostRules({
    allow: ['registry.npmjs.org', '*.githubusercontent.com', 'pypi.org:443', '10.1.2.3', '[::1]:8080'],
    deny: ['evil.githubusercontent.com'],
  });
  const allowed = (host: string, port = 443) => rules.decide(host, port).allowed;

  it('allow names exactly, wildcards of one label or more, ports where named, and IP addresses literally', () => {
    expect(allowed('registry.npmjs.org')).toBe(true);
    expect(allowed('REGISTRY.npmjs.org.')).toBe(true);
    expect(allowed('raw.githubusercontent.com')).toBe(true);
    expect(allowed('a.b.githubusercontent.com')).toBe(true);
    expect(allowed('githubusercontent.com')).toBe(false); // the wildcard needs a label
    expect(allowed('evil-githubusercontent.com')).toBe(false);
    expect(allowed('githubusercontent.com.evil.org')).toBe(false);
    expect(allowed('pypi.org', 443)).toBe(true);
    expect(allowed('pypi.org', 80)).toBe(false);
    expect(allowed('10.1.2.3', 22)).toBe(true);
    expect(allowed('[::1]', 8080)).toBe(true);
    expect(allowed('::1', 8081)).toBe(false);
    expect(allowed('npmjs.org')).toBe(false);
  });

  it('deny first, and say why', () => {
    expect(rules.decide('evil.githubusercontent.com', 443)).toEqual({ allowed: false, reason: 'on the deny list' });
    expect(rules.decide('example.com', 443)).toEqual({ allowed: false, reason: 'not in the allow list' });
    expect(rules.decide('bad host', 443)).toEqual({ allowed: false, reason: 'not a valid host name' });
    expect(rules.namesAddress('10.1.2.3', 5432)).toBe(true);
    expect(rules.namesAddress('10.1.2.4', 5432)).toBe(false);
    // An address named with a port is meant only at that port (a name leading there elsewhere is not).
    const ported = new HostRules({ allow: ['127.0.0.1:5432'] });
    expect(ported.namesAddress('127.0.0.1', 5432)).toBe(true);
    expect(ported.namesAddress('127.0.0.1', 22)).toBe(false);
  });

  it('refuse entries that are not hosts, naming the field', () => {
    for (const bad of ['', '*', '*.com', 'http://x.org', 'a b', 'x.org:0', 'x.org:70000', '*.1.2.3.4', 'a..b']) {
      expect(
        codeOf(() => new HostRules({ allow: [bad] })),
        bad,
      ).toBe('INVALID_ARGUMENT');
    }
    expect(codeOf(() => new HostRules({ allow: 'x.org' as unknown as string[] }))).toBe('INVALID_ARGUMENT');
    expect(codeOf(() => new HostRules({ allow: Array(NETWORK_RULES_MAX + 1).fill('x.org') }))).toBe('INVALID_ARGUMENT');
    expect(codeOf(() => new HostRules({ allow: [], allowPrivate: 'yes' as unknown as boolean }))).toBe(
      'INVALID_ARGUMENT',
    );
  });

  it('a wildcard never matches a host outside its domain (property)', () => {
    const label = fc.stringMatching(/^[a-z0-9]{1,10}$/);
    fc.assert(
      fc.property(
        fc.array(label, { minLength: 2, maxLength: 3 }),
        fc.array(label, { minLength: 1, maxLength: 4 }),
        (domain, host) => {
          const d = domain.join('.');
          const h = host.join('.');
          const decided = new HostRules({ allow: [`*.${d}`] }).decide(h, 443).allowed;
          expect(decided).toBe(h.endsWith(`.${d}`));
        },
      ),
    );
  });
});

describe('private addresses', () => {
  it('cover the LAN, loopback, link-local, shared, ULA and mapped forms; public ones are not', () => {
    for (const a of [
      '10.0.0.1',
      '127.0.0.1',
      '169.254.169.254',
      '172.16.5.5',
      '192.168.1.1',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fd00::1',
      'fe80::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      'not-an-ip',
    ]) {
      expect(isPrivateAddress(a), a).toBe(true);
    }
    for (const a of ['93.184.215.14', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8', '172.32.0.1']) {
      expect(isPrivateAddress(a), a).toBe(false);
    }
    // Documentation ranges, and every address of this machine's own interfaces.
    for (const a of ['192.0.2.7', '198.51.100.1', '203.0.113.9', '2001:db8::1', '64:ff9b:1::1']) {
      expect(isPrivateAddress(a), a).toBe(true);
    }
    const own = Object.values(networkInterfaces())
      .flat()
      .map((i) => i?.address.replace(/%.*$/, ''))
      .filter((a): a is string => typeof a === 'string');
    expect(own.length).toBeGreaterThan(0);
    for (const a of own) expect(isPrivateAddress(a), a).toBe(true);
  });
});

describe('the network setting', () => {
  it('is true, false, or hosts by name with pins; anything else names its field', () => {
    expect(checkNetworkSetting(true)).toBe(true);
    expect(checkNetworkSetting({ allow: ['x.org'], pin: { 'X.org': '127.0.0.1:4873' } })).toEqual({
      allow: ['x.org'],
      pin: { 'x.org': '127.0.0.1:4873' },
    });
    for (const bad of [
      'yes',
      null,
      [],
      { allow: ['x.org'], extra: 1 },
      { allow: ['x.org'], pin: { 'x.org': 'x.org:1' } },
      { allow: ['x.org'], pin: { 'x.org': '1.2.3.4' } },
    ]) {
      expect(
        codeOf(() => checkNetworkSetting(bad)),
        JSON.stringify(bad),
      ).toBe('INVALID_ARGUMENT');
    }
  });

  it('resolves pinned names to their address and port (a stand-in, not checked as private)', async () => {
    const resolve = settingResolver({ allow: ['x.org'], pin: { 'x.org': '127.0.0.1:4873' } });
    expect(await resolve('X.ORG', 443)).toEqual([{ address: '127.0.0.1', port: 4873, standIn: true }]);
    // The same name as the rules see it: a trailing dot does not slip past the pin to DNS.
    expect(await resolve('x.org.', 443)).toEqual([{ address: '127.0.0.1', port: 4873, standIn: true }]);
    expect(await mapResolver({ a: '!10.0.0.1:80' })('a', 80)).toEqual([
      { address: '10.0.0.1', port: 80, standIn: false },
    ]);
    await expect(mapResolver({})('nope', 80)).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });
});

describe('the proxy’s requests', () => {
  it('parses CONNECT and absolute-form HTTP, rewriting the latter to origin form without the proxy’s headers', () => {
    expect(parseHttpAsk('CONNECT registry.npmjs.org:443 HTTP/1.1\r\nHost: x\r\n\r\n')).toEqual({
      kind: 'connect',
      host: 'registry.npmjs.org',
      port: 443,
    });
    expect(parseHttpAsk('CONNECT [::1]:8443 HTTP/1.1\r\n\r\n')).toMatchObject({ host: '[::1]', port: 8443 });
    const fwd = parseHttpAsk(
      'GET http://x.org:8080/a?b=1 HTTP/1.1\r\nHost: x.org:8080\r\nProxy-Connection: keep-alive\r\nProxy-Authorization: Basic eA==\r\nAccept: */*\r\n\r\n',
    );
    expect(fwd).toEqual({
      kind: 'forward',
      host: 'x.org',
      port: 8080,
      head: 'GET /a?b=1 HTTP/1.1\r\nHost: x.org:8080\r\nAccept: */*\r\nConnection: close\r\n\r\n',
      bodyBytes: 0,
    });
    // The Host header is the URL's (no other site behind the one decided); the body is counted.
    expect(
      parseHttpAsk('POST http://x.org/p HTTP/1.1\r\nHost: metadata.internal\r\nContent-Length: 12\r\n\r\n'),
    ).toMatchObject({
      head: 'POST /p HTTP/1.1\r\nHost: x.org\r\nContent-Length: 12\r\nConnection: close\r\n\r\n',
      bodyBytes: 12,
    });
    expect(parseHttpAsk('POST http://x.org/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n')).toMatchObject({
      kind: 'bad',
      status: 411,
    });
    expect(parseHttpAsk('POST http://x.org/ HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n').kind).toBe(
      'bad',
    );
    expect(parseHttpAsk('GET /origin HTTP/1.1\r\n\r\n').kind).toBe('bad');
    expect(parseHttpAsk('GET https://x.org/ HTTP/1.1\r\n\r\n').kind).toBe('bad');
    expect(parseHttpAsk('CONNECT x.org HTTP/1.1\r\n\r\n').kind).toBe('bad');
    expect(parseHttpAsk('\x16\x03\x01 binary').kind).toBe('bad');
  });

  it('parses SOCKS5 greetings and requests for names, IPv4 and IPv6, waiting for whole messages', () => {
    expect(socksGreeting(Buffer.from([5, 2, 0, 2]))).toEqual({ length: 4, noAuth: true });
    expect(socksGreeting(Buffer.from([5, 1, 2]))).toEqual({ length: 3, noAuth: false });
    expect(socksGreeting(Buffer.from([5, 2, 0]))).toBeNull();
    const name = Buffer.concat([Buffer.from([5, 1, 0, 3, 5]), Buffer.from('x.org'), Buffer.from([0x01, 0xbb])]);
    expect(socksRequest(name)).toEqual({ length: name.length, command: 1, host: 'x.org', port: 443 });
    expect(socksRequest(name.subarray(0, name.length - 1))).toBeNull();
    expect(socksRequest(Buffer.from([5, 1, 0, 1, 93, 184, 215, 14, 0, 80]))).toMatchObject({
      host: '93.184.215.14',
      port: 80,
    });
    const v6 = Buffer.alloc(22);
    v6.set([5, 1, 0, 4]);
    v6[19] = 1;
    v6.writeUInt16BE(22, 20);
    expect(socksRequest(v6)).toMatchObject({ host: '0:0:0:0:0:0:0:1', port: 22 });
    expect(socksRequest(Buffer.from([5, 1, 0, 9, 0, 0]))).toMatchObject({ bad: 8 });
  });
});
