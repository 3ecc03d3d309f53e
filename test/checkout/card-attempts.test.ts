import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientKey } from '../../src/checkout/attempts.ts';
import { purgeOldAttempts } from '../../src/checkout/attempts-store.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { expectEnvelopeResponse } from '../helpers/http.ts';
import { createPartner, type PartnerCredentials, signedFetch } from '../helpers/partner.ts';
import {
  CARDS,
  createOrder,
  orderBody,
  lockedReservation as partnerReservation,
} from '../wallet-orders/support.ts';
import {
  advanceClock,
  checkoutBody,
  checkoutLink,
  luhnCard,
  pageOrderBody,
  pageQuoteTotal,
} from './support.ts';

/**
 * Card testing through the hosted checkout: POST /purchase/orders needs no credentials, so the
 * attempts the card processor refuses are capped per reservation (3, then it is spent), per card
 * (5 an hour) and per client IP (20 an hour, the IP as RAMPART_TRUST_PROXY resolves it), and the
 * buyer is told only that the card was declined, never why.
 */
let t: TestApp;
let partner: PartnerCredentials;
let street = 0;
let clients = 0;

beforeAll(async () => {
  // Requests come from loopback: trusting it lets each test speak for clients of its own.
  t = await startTestApp({ env: { RAMPART_TRUST_PROXY: '127.0.0.1' } });
  partner = await createPartner(t);
});
afterAll(async () => t?.close());

/** For the tests of dozens of requests: the machine running them may be busy. */
const HEAVY_MS = 60_000;

/** A client IP no other test uses. */
const newClient = () => `198.51.100.${++clients}`;

async function reservationFor(app: TestApp) {
  street += 1;
  const body = checkoutBody(partner, { sourceAmount: '20', street1: `${street} Attempt St` });
  const { reservation } = await checkoutLink(app, partner, body);
  return {
    reservation,
    total: await pageQuoteTotal(app, partner, reservation),
    street1: body.street1 as string,
  };
}

type Reservation = Awaited<ReturnType<typeof reservationFor>>;

function pay(r: Reservation, number: string, client: string, app: TestApp = t) {
  return fetch(`${app.baseUrl}/purchase/orders`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': client },
    body: JSON.stringify(
      pageOrderBody(partner, r, { debitCard: { number, year: '2030', month: '12', cvv: '123' } }),
    ),
  });
}

/** Distinct cards the processor refuses (credit cards, by their BIN), as a card tester holds. */
let creditCards = 0;
const creditCard = () => luhnCard('424242', ++creditCards);

async function attemptsOf(column: string, value: string) {
  const { rows } = await t.database.db.query<{ error_code: string | null; error_message: string | null }>(
    `SELECT error_code, error_message FROM checkout_card_attempts WHERE ${column} = $1 ORDER BY id`,
    [value],
  );
  return rows;
}

async function ordersOf(reservation: string) {
  const { rows } = await t.database.db.query('SELECT id FROM wallet_orders WHERE reservation_id = $1', [
    reservation,
  ]);
  return rows.length;
}

describe('what the buyer is told of a decline', () => {
  it(
    'is one generic answer for a dead card, missing funds and a wrong postal code; the record keeps the reason',
    async () => {
      const client = newClient();
      const answers: Record<string, unknown>[] = [];
      const reservations: string[] = [];
      for (const card of [CARDS.decline, CARDS.insufficient, CARDS.avs]) {
        const r = await reservationFor(t);
        reservations.push(r.reservation);
        const response = await pay(r, card, client);
        const text = await response.clone().text();
        for (const secret of ['05', 'honor', '51', 'nsufficient', 'avs', 'postal code', 'zip']) {
          expect(text.toLowerCase(), `${card} answered ${text}`).not.toContain(secret.toLowerCase());
        }
        const envelope = await expectEnvelopeResponse(response, 400, 'ValidationException', {
          errorCode: 'validation.cardDeclined',
          problematicField: 'debitCard',
        });
        answers.push({ ...envelope, exceptionId: undefined });
      }
      expect(answers[1]).toEqual(answers[0]);
      expect(answers[2]).toEqual(answers[0]);
      expect(answers[0]!.message).toBe(
        'The card was declined. Check the card details and the billing address, or use another card.',
      );
      // The partner reads why each card was declined; another partner cannot.
      const read = await Promise.all(
        reservations.map(async (id) => {
          const response = await signedFetch(t, partner, {
            path: `/v3/orders/reservation/${id}/cardAttempts`,
          });
          expect(response.status).toBe(200);
          const { data } = (await response.json()) as { data: Record<string, unknown>[] };
          return data.map(({ createdAt, ...rest }) => {
            expect(typeof createdAt).toBe('number');
            return rest;
          });
        }),
      );
      expect(read).toEqual([
        [{ errorCode: 'validation.cardDeclined', message: 'The card was declined: 05 / Do not honor.' }],
        [
          {
            errorCode: 'validation.insufficientFunds',
            message: 'The card was declined: 51 / Insufficient funds.',
          },
        ],
        [
          {
            errorCode: 'validation.avs.zipcode',
            message: 'The postal code does not match the card’s billing address.',
          },
        ],
      ]);
      const stranger = await createPartner(t, { name: 'Another partner' });
      const foreign = await signedFetch(t, stranger, {
        path: `/v3/orders/reservation/${reservations[0]}/cardAttempts`,
      });
      await expectEnvelopeResponse(foreign, 404, 'NotFoundException');
      // The stored record keeps what the partner API would have answered.
      const recorded = await Promise.all(reservations.map((id) => attemptsOf('reservation_id', id)));
      expect(recorded).toEqual([
        [
          {
            error_code: 'validation.cardDeclined',
            error_message: 'The card was declined: 05 / Do not honor.',
          },
        ],
        [
          {
            error_code: 'validation.insufficientFunds',
            error_message: 'The card was declined: 51 / Insufficient funds.',
          },
        ],
        [
          {
            error_code: 'validation.avs.zipcode',
            error_message: 'The postal code does not match the card’s billing address.',
          },
        ],
      ]);
    },
    HEAVY_MS,
  );

  it('tells a credit card to use a debit card: its BIN says so to anyone', async () => {
    const response = await pay(await reservationFor(t), creditCard(), newClient());
    await expectEnvelopeResponse(response, 400, 'ValidationException', {
      errorCode: 'validation.unsupportedCardType.credit',
    });
  });

  it('leaves the partner API’s answer as it was, uncapped: the partner answers for its own page', async () => {
    const counted = async () =>
      (await t.database.db.query('SELECT count(*)::int AS n FROM checkout_card_attempts')).rows[0]
        .n as number;
    const before = await counted();
    for (let i = 0; i < 6; i++) {
      const { reservation, amount } = await partnerReservation(t, partner);
      const answer = await createOrder(
        t,
        partner,
        orderBody(partner, reservation, amount, {
          debitCard: { number: CARDS.decline, year: '2030', month: '01', cvv: '123' },
        }),
      );
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({
        errorCode: 'validation.cardDeclined',
        message: 'The card was declined: 05 / Do not honor.',
      });
    }
    expect(await counted()).toBe(before);
  });
});

describe('per reservation', () => {
  it('spends the reservation at its third refused card: the fourth attempt is refused, even with a good card', async () => {
    const r = await reservationFor(t);
    const client = newClient();
    for (const card of [CARDS.decline, creditCard()]) {
      await expectEnvelopeResponse(await pay(r, card, client), 400, 'ValidationException');
    }
    const third = await expectEnvelopeResponse(await pay(r, CARDS.avs, client), 400, 'ValidationException', {
      errorCode: 'validation.cardDeclined',
    });
    expect(third.message).toMatch(/can no longer be used.*start again/);
    await expectEnvelopeResponse(await pay(r, CARDS.approve, newClient()), 400, 'ValidationException', {
      errorCode: 'illegalReservation',
    });
    expect(await ordersOf(r.reservation)).toBe(0);
    // The link's page says why, and to start again.
    const page = await fetch(
      `${t.baseUrl}/purchase?accountId=${partner.accountId}&reservation=${r.reservation}`,
    );
    expect(page.status).toBe(410);
    expect(await page.text()).toContain('declined too many times');
    // The partner API cannot use it either: it is spent.
    const partnerOrder = await createOrder(t, partner, orderBody(partner, r.reservation, r.total));
    expect(partnerOrder.body.errorCode).toBe('illegalReservation');
  });

  it('lets a buyer whose first card was declined pay with another', async () => {
    const r = await reservationFor(t);
    const client = newClient();
    await expectEnvelopeResponse(await pay(r, CARDS.decline, client), 400, 'ValidationException');
    expect((await pay(r, CARDS.approve, client)).status).toBe(200);
    // A placed order leaves no attempt counted.
    expect(await attemptsOf('reservation_id', r.reservation)).toHaveLength(1);
  });

  it('does not count refusals that are not the processor’s: typos and mismatches', async () => {
    const r = await reservationFor(t);
    const client = newClient();
    for (let i = 0; i < 4; i++) {
      const response = await fetch(`${t.baseUrl}/purchase/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': client },
        body: JSON.stringify(pageOrderBody(partner, r, { amount: '19.99' })),
      });
      await expectEnvelopeResponse(response, 400, 'ValidationException', {
        errorCode: 'validation.amountMismatch',
      });
      await expectEnvelopeResponse(await pay(r, '4111111111111112', client), 400, 'ValidationException', {
        problematicField: 'debitCard.number',
      });
    }
    expect(await attemptsOf('reservation_id', r.reservation)).toHaveLength(0);
    expect((await pay(r, CARDS.approve, client)).status).toBe(200);
  });

  it(
    'holds under a concurrent burst on one reservation: three refusals at most',
    async () => {
      const r = await reservationFor(t);
      const cards = Array.from({ length: 8 }, () => creditCard());
      const responses = await Promise.all(cards.map((card) => pay(r, card, newClient())));
      const bodies = await Promise.all(
        responses.map(async (response) => ({
          status: response.status,
          ...((await response.json()) as { errorCode: string }),
        })),
      );
      const declined = bodies.filter(
        (body) => body.status === 400 && body.errorCode.startsWith('validation.'),
      );
      expect(declined).toHaveLength(3);
      for (const body of bodies.filter((b) => !declined.includes(b))) {
        expect(['checkout.reservationSpent', 'illegalReservation']).toContain(body.errorCode);
      }
      expect(await attemptsOf('reservation_id', r.reservation)).toHaveLength(3);
    },
    HEAVY_MS,
  );
});

describe('per card', () => {
  it(
    'refuses the sixth declined attempt of one card in an hour, across reservations and clients, with 429 and Retry-After',
    async () => {
      const card = luhnCard('555555', 1); // a credit card: refused by the processor
      for (let i = 0; i < 5; i++) {
        const response = await pay(await reservationFor(t), card, newClient());
        expect(response.status).toBe(400);
      }
      const sixth = await pay(await reservationFor(t), card, newClient());
      const envelope = await expectEnvelopeResponse(sixth, 429, 'RateLimitException', {
        errorCode: 'checkout.tooManyFailedAttempts',
        transient: true,
      });
      expect(envelope.message).toMatch(/try again in 60 minutes/);
      const retryAfter = Number(sixth.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(3500);
      expect(retryAfter).toBeLessThanOrEqual(3600);
      // Another card is not held up.
      expect((await pay(await reservationFor(t), CARDS.approve, newClient())).status).toBe(200);
      // An hour later the card may be tried again (and is declined again).
      await advanceClock(t, 3601);
      const later = await pay(await reservationFor(t), card, newClient());
      expect(later.status).toBe(400);
    },
    HEAVY_MS,
  );

  it(
    'holds under a concurrent burst of one card: five refusals at most',
    async () => {
      const card = luhnCard('555555', 2);
      const reservations = await Promise.all(Array.from({ length: 12 }, () => reservationFor(t)));
      const responses = await Promise.all(reservations.map((r) => pay(r, card, newClient())));
      const statuses = responses.map((response) => response.status).sort();
      expect(statuses).toEqual([...Array(5).fill(400), ...Array(7).fill(429)]);
    },
    HEAVY_MS,
  );
});

describe('per client IP', () => {
  it(
    'refuses the twenty-first declined attempt from one client in an hour, whatever the card',
    async () => {
      const client = newClient();
      let r = await reservationFor(t);
      for (let i = 1; i <= 20; i++) {
        if (i % 3 === 1 && i > 1) r = await reservationFor(t);
        const response = await pay(r, creditCard(), client);
        expect(response.status, `attempt ${i}`).toBe(400);
      }
      const good = await reservationFor(t);
      await expectEnvelopeResponse(await pay(good, CARDS.approve, client), 429, 'RateLimitException', {
        errorCode: 'checkout.tooManyFailedAttempts',
        transient: true,
      });
      expect(await ordersOf(good.reservation)).toBe(0);
      // Another client pays with the same link.
      expect((await pay(good, CARDS.approve, newClient())).status).toBe(200);
    },
    HEAVY_MS,
  );

  it(
    'counts the connection’s address when no proxy is trusted, whatever X-Forwarded-For claims',
    async () => {
      const untrusting = await startTestApp({
        database: t.database,
        env: { RAMPART_CHECKOUT_MAX_FAILED_ATTEMPTS_PER_IP_HOUR: '2' },
      });
      try {
        await t.database.db.query('DELETE FROM checkout_card_attempts WHERE client = $1', ['127.0.0.1']);
        for (let i = 0; i < 2; i++) {
          const response = await pay(await reservationFor(untrusting), creditCard(), newClient(), untrusting);
          expect(response.status).toBe(400);
        }
        const third = await pay(await reservationFor(untrusting), creditCard(), newClient(), untrusting);
        expect(third.status).toBe(429);
        expect(await attemptsOf('client', '127.0.0.1')).toHaveLength(2);
      } finally {
        await untrusting.close();
      }
    },
    HEAVY_MS,
  );

  it('holds an IPv6 client to its /64, and an IPv4 client written as IPv6 to its address', () => {
    expect(clientKey('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:db8:1:2::ffff')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:0db8:0001:0002:0000:0000:0000:0001')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientKey('::ffff:198.51.100.7')).toBe('198.51.100.7');
    expect(clientKey('198.51.100.7')).toBe('198.51.100.7');
  });
});

describe('housekeeping', () => {
  it('deletes unanswered attempts a day old and refusals a month old, keeping the recent ones', async () => {
    const db = t.database.db;
    await db.query(
      `INSERT INTO checkout_card_attempts (reservation_id, partner_id, card_fingerprint, client, at, error_code, error_message)
       VALUES ('old-unanswered', $1, repeat('a', 64), '192.0.2.1', now() - interval '25 hours', NULL, NULL),
              ('new-unanswered', $1, repeat('a', 64), '192.0.2.1', now() - interval '23 hours', NULL, NULL),
              ('old-refusal', $1, repeat('a', 64), '192.0.2.1', now() - interval '31 days', 'validation.cardDeclined', 'x'),
              ('new-refusal', $1, repeat('a', 64), '192.0.2.1', now() - interval '29 days', 'validation.cardDeclined', 'x')`,
      [partner.accountId],
    );
    await purgeOldAttempts(db);
    const { rows } = await db.query<{ reservation_id: string }>(
      `SELECT reservation_id FROM checkout_card_attempts WHERE client = '192.0.2.1' ORDER BY id`,
    );
    expect(rows.map((row) => row.reservation_id)).toEqual(['new-unanswered', 'new-refusal']);
  });
});
