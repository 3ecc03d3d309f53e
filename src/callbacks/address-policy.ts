import { BlockList, isIP } from 'node:net';

/**
 * Which IP addresses a callback may be sent to. A callback is a request Rampart makes on a
 * partner's word, so without this a partner could make Rampart reach its own database, the cloud
 * metadata service or anything else on the private network (SSRF).
 */

// Everything that is not a public unicast address: unspecified, "this network", private,
// CGNAT, loopback, link-local, IETF/documentation/benchmark ranges, multicast, reserved, broadcast.
const NON_PUBLIC_V4: [string, number][] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];

// Unspecified, loopback and the deprecated IPv4-compatible block (all of ::/96, which no network
// routes), discard, IETF protocol assignments (Teredo among them, whose client address hides
// behind a relay), documentation, NAT64 local use, unique-local, link-local, site-local,
// multicast. The forms in IPV4_EMBEDDINGS are judged by the IPv4 address they carry instead.
const NON_PUBLIC_V6: [string, number][] = [
  ['::', 96],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['64:ff9b:1::', 48],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
];

/** IPv6 ranges whose addresses stand for an IPv4 address: their leading bytes, and where the IPv4 sits. */
const IPV4_EMBEDDINGS: { range: string; prefix: number[]; at: number }[] = [
  { range: 'IPv4-mapped ::ffff:0:0/96', prefix: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff], at: 12 },
  { range: 'IPv4-translated ::ffff:0:0:0/96', prefix: [0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0], at: 12 },
  { range: 'NAT64 64:ff9b::/96', prefix: [0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0], at: 12 },
  { range: '6to4 2002::/16', prefix: [0x20, 0x02], at: 2 },
];

const nonPublic = new BlockList();
for (const [network, prefix] of NON_PUBLIC_V4) nonPublic.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of NON_PUBLIC_V6) nonPublic.addSubnet(network, prefix, 'ipv6');

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/** The 16 bytes of an IPv6 address (which must already be valid, e.g. from isIP). */
export function ipv6Bytes(address: string): number[] {
  let text = address;
  const tail: number[] = [];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    tail.push(...dotted[1]!.split('.').map(Number));
    text = `${text.slice(0, dotted.index)}0:0`;
  }
  const [head = '', rest] = text.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16)));
  const left = groups(head);
  const right = rest === undefined ? [] : groups(rest);
  const words = [...left, ...new Array(8 - left.length - right.length).fill(0), ...right];
  const bytes = words.flatMap((word) => [word >> 8, word & 0xff]);
  if (tail.length === 4) bytes.splice(12, 4, ...tail);
  return bytes;
}

/** The IPv4 address an IPv6 address stands for (see IPV4_EMBEDDINGS), if any. */
export function embeddedIpv4(address: string): string | undefined {
  const bytes = ipv6Bytes(address);
  for (const { prefix, at } of IPV4_EMBEDDINGS) {
    if (prefix.every((byte, index) => bytes[index] === byte)) return bytes.slice(at, at + 4).join('.');
  }
  return undefined;
}

export interface AddressRules {
  /** Sandbox only: receivers on this machine (127.0.0.0/8, ::1) are allowed, for local tests. */
  allowLoopback: boolean;
}

/** True when a callback may connect to this IP address under these rules. */
export function addressAllowed(address: string, rules: AddressRules): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 6) {
    const v4 = embeddedIpv4(address);
    if (v4 !== undefined) return addressAllowed(v4, rules);
  }
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (rules.allowLoopback && loopback.check(address, type)) return true;
  return !nonPublic.check(address, type);
}
