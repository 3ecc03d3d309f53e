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

/** Empty whitelist = no restriction. */
export function ipAllowed(whitelist: string[], ip: string): boolean {
  if (whitelist.length === 0) return true;
  const list = new BlockList();
  for (const entry of whitelist) {
    const [address = '', prefix] = entry.split('/');
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(prefix), family);
  }
  const client = normaliseIp(ip);
  return list.check(client, isIP(client) === 6 ? 'ipv6' : 'ipv4');
}
