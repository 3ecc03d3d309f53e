import { expect } from 'vitest';
import type { Scope } from '../../src/identity/types.ts';
import type { TestApp } from '../helpers/app.ts';
import { snapshotTables } from '../helpers/db.ts';
import { type PartnerCredentials, signedFetch } from '../helpers/partner.ts';

export const ETH_ADDRESS = '0xBB9bc244D798123fDe783fCc1C72d3Bb8C189413';
/** The same address with one letter's case flipped: the EIP-55 checksum no longer matches. */
export const ETH_BAD_CHECKSUM = '0xbB9bc244D798123fDe783fCc1C72d3Bb8C189413';
export const BTC_TESTNET = 'tb1q6yn0ajs733xsk25vefrhwjey4629qt9c67y6ma';
export const BTC_BAD_CHECKSUM = 'n4VQ5YdHf7hLQ2gWQYYrcxoE5B7nWuDFNG';

/** The query parameters of a reservation's checkout link, in API.md's order. */
export const CHECKOUT_LINK_PARAMS = [
  'accountId',
  'reservation',
  'redirectUrl',
  'failureRedirectUrl',
  'utm_campaign',
  'utm_medium',
  'utm_source',
];

/** A complete rate-lock request (spec §2.1 rule 1). */
export function lockedBody(partner: PartnerCredentials, extra: Record<string, unknown> = {}) {
  return {
    sourceAmount: '100',
    amountIncludeFees: false,
    paymentMethod: 'debit-card',
    sourceCurrency: 'USD',
    destCurrency: 'ETH',
    dest: `ethereum:${ETH_ADDRESS}`,
    referrerAccountId: partner.accountId,
    country: 'US',
    ...extra,
  };
}

export function postSigned(
  t: TestApp,
  partner: PartnerCredentials,
  path: string,
  body: unknown,
  headers?: Record<string, string>,
) {
  return signedFetch(t, partner, {
    method: 'POST',
    path,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...(headers ? { headers } : {}),
  });
}

export async function reserve(t: TestApp, partner: PartnerCredentials, body: unknown) {
  const response = await postSigned(t, partner, '/v3/orders/reserve', body);
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return JSON.parse(text) as { url: string; reservation: string };
}

export async function readReservation(t: TestApp, partner: PartnerCredentials, id: string) {
  return signedFetch(t, partner, { path: `/v3/orders/reservation/${id}` });
}

/**
 * Every table but the audit trails and the replay guard: a signed request consumes its signature
 * whatever happens next, which is not the request's effect.
 */
export function snapshot(t: TestApp) {
  return snapshotTables(t.database.db, ['operator_audit', 'signature_replays', 'access_audit']);
}

/** The scope a master partner acts in, for calling the orders service directly. */
export function masterScope(partner: PartnerCredentials): Scope {
  return {
    partnerId: partner.accountId,
    accountId: partner.accountId,
    masqueraded: false,
    caller: {
      apiKey: partner.apiKey,
      keyType: 'FULL',
      scheme: 'signature',
      account: {
        id: partner.accountId,
        partnerId: partner.accountId,
        kind: 'master',
        usersApiEnabled: false,
      },
      ipWhitelist: [],
    },
  };
}
