import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumeReservation } from '../../src/orders/service.ts';
import { withTransaction } from '../../src/platform/db/pool.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { expectEnvelopeResponse } from '../helpers/http.ts';
import { createPartner, type PartnerCredentials } from '../helpers/partner.ts';
import { masterScope } from '../orders/support.ts';
import {
  advanceClock,
  checkoutBody,
  checkoutLink,
  pageOrderBody,
  pageQuoteTotal,
  postJson,
  snapshot,
} from './support.ts';

/**
 * The checkout page's order endpoints over HTTP: POST /purchase/orders takes exactly the body of
 * POST /v3/debitcard/process/partner and refuses what it refuses, with the envelope and without
 * changing anything; the page's capability rules (reservation + link account, order token).
 */
let t: TestApp;
let partner: PartnerCredentials;
let other: PartnerCredentials;
let street = 0;

beforeAll(async () => {
  t = await startTestApp();
  partner = await createPartner(t);
  other = await createPartner(t, { name: 'Other partner' });
});
afterAll(async () => t?.close());

async function lockedReservation(extra: Record<string, unknown> = {}) {
  street += 1;
  const body = checkoutBody(partner, { sourceAmount: '20', street1: `${street} Market St`, ...extra });
  const { reservation } = await checkoutLink(t, partner, body);
  return {
    reservation,
    total: await pageQuoteTotal(t, partner, reservation),
    street1: body.street1 as string,
  };
}

const card = (changes: Record<string, string>) => ({
  debitCard: { number: '4111111111111111', year: '2030', month: '12', cvv: '123', ...changes },
});

describe('POST /purchase/orders', () => {
  it('refuses bad input with the envelope and changes nothing', async () => {
    const r = await lockedReservation({ lockFields: ['email'] });
    const before = await snapshot(t);
    const cases: [Record<string, unknown>, number, string, string, string?][] = [
      [card({ number: '4111111111111112' }), 400, 'ValidationException', 'debitCard.number'],
      [card({ number: '411111111111' }), 400, 'ValidationException', 'debitCard.number'],
      [card({ number: '41111111111111111113' }), 400, 'ValidationException', 'debitCard.number'],
      [card({ year: '30' }), 400, 'ValidationException', 'debitCard.year'],
      [card({ year: '2020' }), 400, 'ValidationException', 'debitCard.year'],
      [card({ cvv: '12' }), 400, 'ValidationException', 'debitCard.cvv'],
      [card({ cvv: '12345' }), 400, 'ValidationException', 'debitCard.cvv'],
      [{ amount: '19.99' }, 400, 'ValidationException', 'amount', 'validation.amountMismatch'],
      [{ amount: true }, 400, 'ValidationException', 'amount'],
      [{ email: 'other@example.com' }, 400, 'ValidationException', 'email', 'validation.reservationMismatch'],
      [{ dest: 'ethereum:0x0000000000000000000000000000000000000001' }, 400, 'ValidationException', 'dest'],
      [
        { referrerAccountId: other.accountId },
        400,
        'ValidationException',
        'reservation',
        'illegalReservation',
      ],
      [{ reservationId: 'C'.repeat(20) }, 400, 'ValidationException', 'reservation', 'illegalReservation'],
      [{ debitCard: undefined }, 400, 'FieldRequiredException', 'debitCard'],
      [
        { cardNumber: '4111111111111111' },
        400,
        'ValidationException',
        'cardNumber',
        'validation.unknownField',
      ],
      [{ givenName: 'x'.repeat(101) }, 400, 'ValidationException', 'givenName'],
    ];
    for (const [changes, status, type, field, errorCode] of cases) {
      const response = await postJson(t, '/purchase/orders', pageOrderBody(partner, r, changes));
      const envelope = await expectEnvelopeResponse(response, status, type, {
        problematicField: field,
        ...(errorCode ? { errorCode } : {}),
      });
      // The card never comes back in an answer.
      expect(JSON.stringify(envelope)).not.toContain('4111111111111111');
    }
    await expectEnvelopeResponse(
      await postJson(t, '/purchase/orders', '{"__proto__":{"x":1}}'),
      400,
      'JsonFormatException',
    );
    await expectEnvelopeResponse(await postJson(t, '/purchase/orders', '[]'), 400, 'ValidationException');
    const huge = JSON.stringify(pageOrderBody(partner, r, { referenceId: 'x'.repeat(2_000_000) }));
    await expectEnvelopeResponse(
      await postJson(t, '/purchase/orders', huge),
      413,
      'PayloadTooLargeException',
    );
    expect(await snapshot(t)).toEqual(before);
  });

  it('refuses used and expired reservations with illegalReservation', async () => {
    const used = await lockedReservation();
    await withTransaction(t.ctx.db, (tx) =>
      consumeReservation(t.ctx, tx, masterScope(partner), used.reservation),
    );
    const expired = await lockedReservation();
    await advanceClock(t, 15 * 60 + 1);
    const before = await snapshot(t);
    for (const r of [used, expired]) {
      await expectEnvelopeResponse(
        await postJson(t, '/purchase/orders', pageOrderBody(partner, r)),
        400,
        'ValidationException',
        {
          errorCode: 'illegalReservation',
          problematicField: 'reservation',
        },
      );
    }
    expect(await snapshot(t)).toEqual(before);
  });

  it('places the order with the connection’s IP, whatever the browser claims, and follows it by token', async () => {
    const r = await lockedReservation();
    const response = await postJson(
      t,
      '/purchase/orders',
      pageOrderBody(partner, r, { ipAddress: '203.0.113.9' }),
    );
    expect(response.status).toBe(200);
    const placed = (await response.json()) as { orderId: string; status: string; orderToken: string };
    expect(placed).toMatchObject({ orderId: expect.stringMatching(/^WO_/), status: 'RUNNING_CHECKS' });
    const { rows } = await t.database.db.query('SELECT ip_address FROM wallet_orders WHERE id = $1', [
      placed.orderId,
    ]);
    expect(rows[0]?.ip_address).toBe('127.0.0.1');

    const query = (token: string, reservation = r.reservation) =>
      `/purchase/orders/${placed.orderId}?accountId=${partner.accountId}&reservation=${reservation}&orderToken=${encodeURIComponent(token)}`;
    const progress = await fetch(`${t.baseUrl}${query(placed.orderToken)}`);
    expect(progress.status).toBe(200);
    expect(await progress.json()).toMatchObject({
      orderId: placed.orderId,
      status: 'RUNNING_CHECKS',
      next: null,
      redirectTo: null,
    });
    // The token is bound to this order and this reservation.
    const another = await lockedReservation();
    await expectEnvelopeResponse(
      await fetch(`${t.baseUrl}${query(placed.orderToken, another.reservation)}`),
      404,
      'NotFoundException',
    );
    await expectEnvelopeResponse(
      await fetch(`${t.baseUrl}${query(`${placed.orderToken.slice(1)}A`)}`),
      404,
      'NotFoundException',
    );
    // The page link with the order (the 3-D Secure return) shows progress, not "already used".
    const page = await fetch(
      `${t.baseUrl}/purchase?accountId=${partner.accountId}&reservation=${r.reservation}&order=${placed.orderId}&orderToken=${encodeURIComponent(placed.orderToken)}`,
    );
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('data-mode="progress"');
  });
});
