/**
 * Addresses a world's proxy never connects to for a name unless the policy says so: private,
 * loopback, link-local (the cloud metadata service), shared (CGNAT), unspecified, multicast and
 * reserved and documentation ranges, in IPv4 and IPv6 (IPv4-mapped IPv6 counts as its IPv4
 * address), and every address of this machine's own interfaces.
 */
import { BlockList, isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

/** The ranges a name must not resolve into (RFC 1918, 6598, 3927, 4193, 4291 and kin). */
const PRIVATE_V4: readonly [string, number][] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['192.0.2.0', 24],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];
const PRIVATE_V6: readonly [string, number][] = [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['2001:db8::', 32],
];

const blocked = new BlockList();
for (const [net, prefix] of PRIVATE_V4) blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of PRIVATE_V6) blocked.addSubnet(net, prefix, 'ipv6');

/** This machine's own addresses (a service bound to 0.0.0.0 answers on each, past any outer firewall). */
function ownAddresses(): Set<string> {
  const own = new Set<string>();
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) own.add(a.address.toLowerCase().replace(/%.*$/, ''));
  }
  return own;
}

/**
 * Whether `address` (an IP address) is one a name must not lead to: a private or reserved range,
 * or an address of this machine itself. Not an address: true.
 */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return isPrivateAddress(mapped[1] as string);
  const family = isIP(address);
  if (family === 0) return true;
  return blocked.check(address, family === 4 ? 'ipv4' : 'ipv6') || ownAddresses().has(address.toLowerCase());
}
