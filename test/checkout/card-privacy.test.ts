import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createPartner, type PartnerCredentials } from '../helpers/partner.ts';
import {
  checkoutBody,
  checkoutLink,
  expectCardsNowhere,
  pageOrderBody,
  pageQuoteTotal,
  postJson,
} from './support.ts';

/**
 * Card numbers through the checkout page never reach a log line (at trace level, every request
 * logged) or a database row, whether the card is approved, declined or malformed.
 */
const CARDS = { approved: '4000056655665556', declined: '4000000000000002', malformed: '4111111111111112' };
const CVV = '987';

let t: TestApp;
let partner: PartnerCredentials;
const lines: string[] = [];

beforeAll(async () => {
  t = await startTestApp({
    env: { LOG_LEVEL: 'trace' },
    logStream: { write: (line: string) => void lines.push(line) },
  });
  partner = await createPartner(t);
});
afterAll(async () => t?.close());

describe('card data through the checkout page', () => {
  it('reaches no log line and no table', async () => {
    let street = 0;
    for (const number of Object.values(CARDS)) {
      street += 1;
      const street1 = `${street} Elm St`;
      const { reservation, path } = await checkoutLink(
        t,
        partner,
        checkoutBody(partner, { sourceAmount: '20', street1 }),
      );
      expect((await fetch(`${t.baseUrl}${path}`)).status).toBe(200);
      const total = await pageQuoteTotal(t, partner, reservation);
      const response = await postJson(
        t,
        '/purchase/orders',
        pageOrderBody(
          partner,
          { reservation, total, street1 },
          { debitCard: { number, year: '2030', month: '12', cvv: CVV } },
        ),
      );
      const text = await response.text();
      expect(response.status, text).toBe(number === CARDS.approved ? 200 : 400);
      expect(text).not.toContain(number);
    }
    const log = lines.join('');
    expect(log).toContain('/purchase/orders');
    for (const number of Object.values(CARDS)) expect(log).not.toContain(number);
    expect(log).not.toContain(`"cvv":"${CVV}"`);
    await expectCardsNowhere(t, Object.values(CARDS));
  });
});
