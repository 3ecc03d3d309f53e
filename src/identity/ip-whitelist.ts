import { BlockList, isIP } from 'node:net';
import { invalidValue } from '../platform/errors.ts';

export const MAX_WHITELIST_ENTRIES = 50;

/** `::ffff:1.2.3.4` is how an IPv4 client appears on a dual-stack socket: compare it as IPv4. */
export function normaliseIp(ip: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  return mapped ? mapped[1]! : ip;
}

/** Validates and canonicalises entries: a plain IPv4/IPv6 address or a CIDR range. */
export function parseWhitelist(entries: unknown, field = 'ipWhitelist'): string[] {
  if (!Array.isArray(entries))
    throw invalidValue(field, `Field ${field} must be an array of IP addresses or CIDR ranges.`);
  if (entries.length > MAX_WHITELIST_ENTRIES) {
    throw invalidValue(field, `Field ${field} may list at most ${MAX_WHITELIST_ENTRIES} entries.`);
  }
  return entries.map((entry, index) => {
    const problem = () =>
      invalidValue(
        `${field}[${index}]`,
        `"${String(entry).slice(0, 64)}" is not an IP address or CIDR range.`,
      );
    if (typeof entry !== 'string' || entry.length > 64) throw problem();
    const [address = '', prefix, extra] = entry.trim().split('/');
    const family = isIP(address);
    if (family === 0 || extra !== undefined) throw problem();
    if (prefix === undefined) return address.toLowerCase();
    const bits = Number(prefix);
    if (!/^\d{1,3}$/.test(prefix) || bits > (family === 4 ? 32 : 128)) throw problem();
    return `${address.toLowerCase()}/${bits}`;
  });
}

const familyOf = (address: string) => (isIP(address) === 6 ? 'ipv6' : 'ipv4');

/** A canonical entry (parseWhitelist) as address, family and prefix length; a plain address is a full-length range. */
function rangeOf(entry: string) {
  const [address = '', prefix] = entry.split('/');
  const family = familyOf(address);
  const bits = prefix === undefined ? (family === 'ipv6' ? 128 : 32) : Number(prefix);
  return { address, family, bits } as const;
}

function blockListOf(whitelist: string[]): BlockList {
  const list = new BlockList();
  for (const entry of whitelist) {
    const { address, family, bits } = rangeOf(entry);
    list.addSubnet(address, bits, family);
  }
  return list;
}

/** Empty whitelist = no restriction. */
export function ipAllowed(whitelist: string[], ip: string): boolean {
  if (whitelist.length === 0) return true;
  const client = normaliseIp(ip);
  return blockListOf(whitelist).check(client, familyOf(client));
}

/**
 * The index of the first entry of `inner` that no entry of `outer` contains, -1 when all are
 * contained. A range lies within another of its family when it is at least as long a prefix and
 * its address falls inside the other: the other's prefix bits are then its own too. Both lists
 * are canonical (parseWhitelist); an empty `outer` contains everything.
 */
export function firstEntryOutside(inner: string[], outer: string[]): number {
  if (outer.length === 0) return -1;
  const outerRanges = outer.map((entry) => ({ ...rangeOf(entry), list: blockListOf([entry]) }));
  return inner.findIndex((entry) => {
    const range = rangeOf(entry);
    return !outerRanges.some(
      (container) =>
        container.family === range.family &&
        container.bits <= range.bits &&
        container.list.check(range.address, range.family),
    );
  });
}
