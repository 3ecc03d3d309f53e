import { expect } from 'vitest';
import { operatorHeaders, type TestApp } from '../helpers/app.ts';
import type { PartnerCredentials } from '../helpers/partner.ts';
import { ETH_ADDRESS, lockedBody, reserve } from '../orders/support.ts';
import { CARDS, orderBody, testCard } from '../wallet-orders/support.ts';

export { ETH_ADDRESS, lockedBody };

/** A rate-locked reservation with billing details, as a partner sending buyers to the page would make. */
export function checkoutBody(
  partner: PartnerCredentials,
  extra: Record<string, unknown> = {},
): ReturnType<typeof lockedBody> & Record<string, unknown> {
  return lockedBody(partner, {
    firstName: 'Ada',
    lastName: 'Lovelace',
    email: 'ada@example.com',
    phone: '+14155550100',
    street1: '1 Market St',
    city: 'San Francisco',
    state: 'CA',
    postalCode: '94105',
    redirectUrl: 'https://merchant.example/done?session=42',
    failureRedirectUrl: 'https://merchant.example/failed',
    ...extra,
  });
}

/** The reservation's checkout link, re-pointed at the test server (the link names the public URL). */
export async function checkoutLink(t: TestApp, partner: PartnerCredentials, body: unknown) {
  const { url, reservation } = await reserve(t, partner, body);
  const link = new URL(url);
  expect(link.pathname).toBe('/purchase');
  return {
    reservation,
    /** As the reserve call answered it, on RAMPART_CHECKOUT_URL. */
    link: url,
    path: `${link.pathname}${link.search}`,
    url: `${t.baseUrl}${link.pathname}${link.search}`,
  };
}

export async function advanceClock(t: TestApp, seconds: number) {
  const response = await fetch(`${t.baseUrl}/operator/v1/sandbox/clock`, {
    method: 'POST',
    headers: operatorHeaders(),
    body: JSON.stringify({ advanceSeconds: seconds }),
  });
  expect(response.status).toBe(200);
}

export function postJson(t: TestApp, path: string, body: unknown) {
  return fetch(`${t.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** Every table but the audit trails and the replay guard (a signed request always leaves those). */
export { snapshot } from '../orders/support.ts';

/** The total the page's quote answers for a reservation: what the buyer is charged. */
export async function pageQuoteTotal(t: TestApp, partner: PartnerCredentials, reservation: string) {
  const response = await postJson(t, '/purchase/quote', {
    accountId: partner.accountId,
    reservation,
    sourceCurrency: 'USD',
    destCurrency: 'ETH',
  });
  return ((await response.json()) as { sourceAmount: string }).sourceAmount;
}

/** What the page's script sends to POST /purchase/orders: the process/partner body without ipAddress. */
export function pageOrderBody(
  partner: PartnerCredentials,
  r: { reservation: string; total: string; street1: string },
  extra: Record<string, unknown> = {},
) {
  // The server fills ipAddress in from the connection.
  const { ipAddress: _ipAddress, ...body } = orderBody(partner, r.reservation, r.total, {
    // The billing address checkoutBody prefills.
    address: { street1: r.street1, city: 'San Francisco', state: 'CA', postalCode: '94105', country: 'US' },
    debitCard: { ...testCard(CARDS.approve), month: '12' },
  });
  return { ...body, ...extra };
}

/** Nothing of these card numbers is kept in clear: not in any table, whatever the column. */
export async function expectCardsNowhere(t: TestApp, numbers: string[]) {
  const { rows } = await t.database.db.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
  );
  for (const { table_name } of rows) {
    for (const number of numbers) {
      const found = await t.database.db.query(
        `SELECT 1 FROM "${table_name}" AS r WHERE r::text LIKE '%' || $1 || '%' LIMIT 1`,
        [number],
      );
      expect(found.rowCount, `${table_name} holds ${number}`).toBe(0);
    }
  }
}

/** A Luhn-valid card number: `prefix`, then `n` zero-padded to 15 digits, then the check digit. */
export function luhnCard(prefix: string, n: number): string {
  const body = `${prefix}${String(n).padStart(15 - prefix.length, '0')}`;
  let sum = 0;
  for (let index = 0; index < body.length; index++) {
    let digit = Number(body[body.length - 1 - index]);
    if (index % 2 === 0) digit *= 2;
    sum += digit > 9 ? digit - 9 : digit;
  }
  return `${body}${(10 - (sum % 10)) % 10}`;
}
