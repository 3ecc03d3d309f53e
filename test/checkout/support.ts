import { expect } from 'vitest';
import { operatorHeaders, type TestApp } from '../helpers/app.ts';
import type { PartnerCredentials } from '../helpers/partner.ts';
import { ETH_ADDRESS, lockedBody, reserve } from '../orders/support.ts';

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
