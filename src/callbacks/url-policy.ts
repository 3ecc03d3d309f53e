import type { LookupAddress, LookupAllOptions, LookupOneOptions } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { AppContext } from '../platform/context.ts';
import { type AddressRules, addressAllowed } from './address-policy.ts';
import { callbackErrors } from './errors.ts';
import { MAX_NOTIFY_URL_LENGTH } from './limits.ts';

/**
 * Where callbacks may go, chosen by the composition root. Production: https only, public
 * addresses only. Sandbox (the test environment, whose partners run receivers on their own
 * machines) also allows http and, unless RAMPART_CALLBACK_ALLOW_LOOPBACK turns it off (a sandbox
 * hosted for others), loopback receivers; never private, link-local (cloud metadata) or other
 * non-public ranges. The same rules apply when a URL is accepted, when a callback is sent and to
 * the address the socket connects to.
 */
export type CallbackUrlRules = AddressRules & { schemes: string[] };

export const PRODUCTION_CALLBACK_URLS: CallbackUrlRules = { allowLoopback: false, schemes: ['https:'] };

export function sandboxCallbackUrls(allowLoopback: boolean): CallbackUrlRules {
  return { allowLoopback, schemes: ['https:', 'http:'] };
}

/** What the functions that accept or call callback URLs are given besides the base context. */
export interface CallbackUrlDeps extends AppContext {
  callbackUrls: CallbackUrlRules;
}

/** The host of a parsed URL as an IP literal (brackets removed), or undefined for a DNS name. */
export function ipLiteral(url: URL): string | undefined {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return isIP(host) === 0 ? undefined : host;
}

/** Checks everything about the URL that needs no DNS: shape, scheme, credentials, length, IP literal. */
export function parseNotifyUrl(ctx: CallbackUrlDeps, raw: string, field: string): URL {
  if (raw.length === 0 || raw.length > MAX_NOTIFY_URL_LENGTH) throw callbackErrors.urlLength(field);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw callbackErrors.urlInvalid(field, 'is not an absolute URL');
  }
  const rules = ctx.callbackUrls;
  if (!rules.schemes.includes(url.protocol))
    throw callbackErrors.urlInvalid(
      field,
      `must use ${rules.schemes.map((s) => s.slice(0, -1)).join(' or ')}`,
    );
  if (url.username !== '' || url.password !== '')
    throw callbackErrors.urlInvalid(field, 'must not carry credentials');
  if (url.hash !== '') throw callbackErrors.urlInvalid(field, 'must not carry a fragment');
  const literal = ipLiteral(url);
  if (literal !== undefined && !addressAllowed(literal, rules)) throw callbackErrors.urlForbiddenHost(field);
  return url;
}

const DNS_TIMEOUT_MS = 5000;

/** Every address the name resolves to (IPv4 and IPv6), bounded in time. */
async function resolveAll(hostname: string): Promise<LookupAddress[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('DNS lookup timed out')), DNS_TIMEOUT_MS);
  });
  try {
    return await Promise.race([dnsLookup(hostname, { all: true, verbatim: true }), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** A name is allowed only if it resolves, and every address it answers is (one private one refuses it). */
function everyAddressAllowed(addresses: LookupAddress[], rules: AddressRules): boolean {
  return addresses.length > 0 && addresses.every((a) => addressAllowed(a.address, rules));
}

/**
 * Refuses a notifyUrl / notifyTarget the environment does not allow, with a ValidationException
 * naming `field`. A DNS name must resolve, and to allowed addresses only (every one of them: a
 * name answering one public and one private address is refused). The worker repeats the check on
 * the address it actually connects to, since DNS may answer differently later.
 */
export async function assertNotifyUrlAllowed(
  ctx: CallbackUrlDeps,
  raw: string,
  field: string,
): Promise<void> {
  const url = parseNotifyUrl(ctx, raw, field);
  if (ipLiteral(url) !== undefined) return;
  let addresses: LookupAddress[];
  try {
    addresses = await resolveAll(url.hostname);
  } catch {
    throw callbackErrors.urlUnresolvable(field);
  }
  if (!everyAddressAllowed(addresses, ctx.callbackUrls)) throw callbackErrors.urlForbiddenHost(field);
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for http.request that resolves the name once, refuses the connection unless every
 * address is allowed, and hands the socket exactly the addresses it checked (no second lookup).
 */
export function pinnedLookup(rules: AddressRules) {
  return (hostname: string, options: LookupOneOptions | LookupAllOptions, callback: LookupCallback) => {
    resolveAll(hostname).then(
      (addresses) => {
        if (!everyAddressAllowed(addresses, rules)) {
          const error: NodeJS.ErrnoException = new Error(`${hostname} resolves to a forbidden address`);
          error.code = 'EFORBIDDENADDRESS';
          callback(error, '');
          return;
        }
        if (options.all) callback(null, addresses);
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  };
}
