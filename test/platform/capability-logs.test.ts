import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkoutBody, checkoutLink, pageOrderBody, pageQuoteTotal, postJson } from '../checkout/support.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createPartner, type PartnerCredentials } from '../helpers/partner.ts';
import { asUser, createUser } from '../users/support.ts';
import { CARDS, testCard } from '../wallet-orders/support.ts';

/**
 * Capability tokens (a KYC onboarding link, the 3-D Secure page's token, a checkout order's
 * token) never reach a log line. A real app logs at trace level while the flows that carry them
 * run over HTTP; every line is then searched for each token raw, percent-encoded once and twice.
 */

let t: TestApp;
let partner: PartnerCredentials;
const lines: string[] = [];
const tokens = new Map<string, string>();

beforeAll(async () => {
  t = await startTestApp({
    env: { LOG_LEVEL: 'trace' },
    logStream: { write: (line: string) => void lines.push(line) },
  });
  partner = await createPartner(t, { usersApi: true });
});
afterAll(async () => t?.close());

const get = (path: string, init: RequestInit = {}) =>
  fetch(`${t.baseUrl}${path}`, { redirect: 'manual', ...init });

async function onboardingFlow() {
  const user = await createUser(t, partner, { fields: { firstName: 'Ada' }, scopes: ['DEBIT_CARD_L2'] });
  const answer = await asUser(t, partner, user.id, 'GET', `/v3/users/${user.id}/onboarding`);
  const { verificationLinkUrl } = (await answer.json()) as { verificationLinkUrl: string };
  const path = new URL(verificationLinkUrl).pathname;
  tokens.set('onboarding token', decodeURIComponent(path.split('/').at(-1)!));
  expect((await get(path)).status).toBe(200);
  // Refused (an unknown query parameter), but logged all the same.
  await get(`${path}?utm_source=mail`);
  const submitted = await get(path, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: '',
  });
  expect(submitted.status).toBe(200);
  // A link someone mangled still reaches the log as a request line.
  await get(`${path}x`);
}

async function checkoutFlow() {
  const body = checkoutBody(partner, { sourceAmount: '20', street1: '7 Market St' });
  const { reservation, path: pagePath } = await checkoutLink(t, partner, body);
  expect((await get(pagePath)).status).toBe(200);
  const total = await pageQuoteTotal(t, partner, reservation);
  const order = pageOrderBody(
    partner,
    { reservation, total, street1: '7 Market St' },
    {
      debitCard: { ...testCard(CARDS.threeDs), month: '12' },
    },
  );
  const placed = await postJson(t, '/purchase/orders', order);
  expect(placed.status, await placed.clone().text()).toBe(200);
  const { orderId, orderToken } = (await placed.json()) as { orderId: string; orderToken: string };
  tokens.set('order token', orderToken);
  const progressPath = `/purchase/orders/${orderId}?accountId=${partner.accountId}&reservation=${reservation}&orderToken=${encodeURIComponent(orderToken)}`;
  let threeDsPath: string | null = null;
  for (let attempt = 0; attempt < 200 && threeDsPath === null; attempt++) {
    const progress = (await (await get(progressPath)).json()) as {
      next: { threeDsPath: string | null } | null;
    };
    threeDsPath = progress.next?.threeDsPath ?? null;
    if (threeDsPath === null) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(threeDsPath).not.toBeNull();
  const issuer = new URL(threeDsPath!, t.baseUrl);
  tokens.set('3-D Secure token', decodeURIComponent(issuer.pathname.split('/').at(-1)!));
  const returnUrl = issuer.searchParams.get('returnUrl')!;
  // The page as the checkout script opens it (returnUrl encoded once) and encoded once more.
  expect((await get(threeDsPath!)).status).toBe(200);
  const twice = `${issuer.pathname}?returnUrl=${encodeURIComponent(encodeURIComponent(returnUrl))}`;
  await get(twice);
  const decided = await get(issuer.pathname, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ decision: 'approve', returnUrl }).toString(),
  });
  expect(decided.status).toBe(303);
  const back = decided.headers.get('location')!;
  expect(back).toContain('orderToken=');
  expect((await get(back)).status).toBe(200);
  await get(progressPath);
}

describe('capability tokens in the log', () => {
  it('none appears in any line, raw or percent-encoded, after the onboarding, checkout and 3-D Secure flows', async () => {
    await onboardingFlow();
    await checkoutFlow();
    const text = lines.join('');
    // The flows were logged (redaction, not silence, keeps the tokens out).
    expect(text).toContain('/onboarding/[REDACTED]');
    expect(text).toContain('/sandbox/3ds/');
    expect(text).toContain('orderToken=[REDACTED]');
    expect(text).toContain('orderToken%3D%5BREDACTED%5D');
    expect(tokens.size).toBe(3);
    for (const [name, token] of tokens) {
      expect(token.length).toBeGreaterThan(10);
      const once = encodeURIComponent(token);
      for (const form of [token, once, encodeURIComponent(once)]) {
        const leaked = lines.find((line) => line.includes(form));
        expect(leaked, `${name} in the log: ${leaked}`).toBeUndefined();
      }
    }
  });
});
