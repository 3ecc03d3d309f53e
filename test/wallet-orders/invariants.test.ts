import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLedger } from '../../src/ledger/service.ts';
import { Money, roundFee, roundPayout } from '../../src/platform/money.ts';
import { DEFAULT_USD_PRICES } from '../../src/pricing/default-prices.ts';
import type { OrderRow } from '../../src/wallet-orders/store.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { bearerFetch, createPartner, type PartnerCredentials } from '../helpers/partner.ts';
import { lockedBody } from '../orders/support.ts';
import {
  CARD_TEST_ENV,
  CARDS,
  createOrder,
  createOrderBearer,
  lockedReservation,
  nonZeroBalances,
  orderBody,
  setLimits,
  testCard,
  US_ADDRESS,
  workerFor,
} from './support.ts';

let t: TestApp;
let partner: PartnerCredentials;

beforeAll(async () => {
  // Enough connections that 50 requests really do race inside the database.
  t = await startTestApp({ env: CARD_TEST_ENV });
  partner = await createPartner(t);
});
afterAll(async () => t.close());

describe('invariants', () => {
  it('50 concurrent card orders on one reservation make one order', async () => {
    const { reservation, amount } = await lockedReservation(t, partner);
    const answers = await Promise.all(
      Array.from({ length: 50 }, () =>
        createOrderBearer(t, partner, orderBody(partner, reservation, amount)),
      ),
    );
    const ok = answers.filter((answer) => answer.status === 200);
    expect(ok).toHaveLength(1);
    for (const answer of answers.filter((a) => a.status !== 200)) {
      expect(answer.body.errorCode).toBe('illegalReservation');
    }
    const { rows } = await t.database.db.query(
      'SELECT count(*)::int AS n FROM wallet_orders WHERE reservation_id = $1',
      [reservation],
    );
    expect(rows[0]).toEqual({ n: 1 });
  });

  it('40 concurrent $100 orders from one address with $1,000 of daily room: exactly 10 succeed', async () => {
    const racer = await createPartner(t, { name: 'Racer' });
    await setLimits(t, racer.accountId, { STANDARD: { daily: '1000', weekly: '5000', yearly: '20000' } });
    const address = { ...US_ADDRESS, street1: '9 Race Street' };
    // Each order its own reservation and card: only the address is shared.
    const reservations = await Promise.all(
      Array.from({ length: 40 }, async () => {
        const body = lockedBody(racer, { sourceAmount: '100', amountIncludeFees: true });
        const response = await bearerFetch(t, racer.secretKey, 'POST', '/v3/orders/reserve', body);
        expect(response.status).toBe(200);
        return (await response.json()) as { reservation: string };
      }),
    );
    const cards = ['4111111111111111', '4000056655665556', '5200828282828210'];
    const answers = await Promise.all(
      reservations.map(({ reservation }, index) =>
        createOrderBearer(
          t,
          racer,
          orderBody(racer, reservation, '100', {
            address,
            debitCard: { number: cards[index % 3], year: '2031', month: '02', cvv: '321' },
          }),
        ),
      ),
    );
    const ok = answers.filter((answer) => answer.status === 200);
    expect(ok).toHaveLength(10);
    for (const answer of answers.filter((a) => a.status !== 200)) {
      expect(answer.body.errorCode).toBe('limits.dailyLimitReached');
    }
    const { rows } = await t.database.db.query<{ spent: string }>(
      `SELECT sum(amount_usd)::text AS spent FROM card_spend WHERE spend_key LIKE 'address:%'
       AND order_id IN (SELECT id FROM wallet_orders WHERE partner_id = $1)`,
      [racer.accountId],
    );
    expect(rows[0]!.spent).toBe('1000');
  });

  it('an order failing after authorisation leaves no hold, no spend and no ledger residue', async () => {
    const loner = await createPartner(t, { name: 'Loner' });
    const { reservation, amount } = await lockedReservation(t, loner);
    const before = await nonZeroBalances(t);
    const entriesBefore = await t.database.db.query('SELECT count(*)::int AS n FROM ledger_entries');
    const created = await createOrder(
      t,
      loner,
      orderBody(loner, reservation, amount, {
        debitCard: testCard(CARDS.codes),
      }),
    );
    expect(created.status).toBe(200);
    const orderId = String(created.body.id);
    const { postSigned } = await import('./support.ts');
    for (let i = 0; i < 5; i++) {
      await postSigned(t, loner, '/v3/debitcard/authorize/partner', {
        type: 'SMS',
        walletOrderId: orderId,
        reservation,
        sms: '111111',
      });
    }
    const holds = await t.database.db.query('SELECT state FROM ledger_holds WHERE reference = $1', [
      `order:${orderId}`,
    ]);
    expect(holds.rows).toEqual([{ state: 'voided' }]);
    const spend = await t.database.db.query('SELECT * FROM card_spend WHERE order_id = $1', [orderId]);
    expect(spend.rows).toEqual([]);
    expect(await nonZeroBalances(t)).toEqual(before);
    const entriesAfter = await t.database.db.query('SELECT count(*)::int AS n FROM ledger_entries');
    expect(entriesAfter.rows).toEqual(entriesBefore.rows);
    expect(await auditLedger(t.database.db)).toEqual({ unbalancedCurrencies: [], driftedBalances: [] });
  });

  it('captured card money equals crypto delivered at the locked rates plus fees, to the smallest unit', async () => {
    const payer = await createPartner(t, { name: 'Payer' });
    await setLimits(t, payer.accountId, {
      STANDARD: { daily: '100000', weekly: '100000', yearly: '100000' },
    });
    const requests = [
      { sourceAmount: '10', amountIncludeFees: false },
      { sourceAmount: '33.33', amountIncludeFees: true },
      { destAmount: '0.0123', amountIncludeFees: false },
      { destAmount: '0.05', amountIncludeFees: true },
      {
        sourceAmount: '77.7',
        amountIncludeFees: false,
        destCurrency: 'BTC',
        dest: 'bitcoin:tb1q6yn0ajs733xsk25vefrhwjey4629qt9c67y6ma',
      },
    ];
    const ids: string[] = [];
    for (const [index, extra] of requests.entries()) {
      const { reservation, amount } = await lockedReservation(t, payer, extra);
      const dest = (extra as { dest?: string }).dest;
      const destCurrency = (extra as { destCurrency?: string }).destCurrency;
      const created = await createOrder(
        t,
        payer,
        orderBody(payer, reservation, amount, {
          ...(dest ? { dest, destCurrency } : {}),
          address: { ...US_ADDRESS, street1: `${index} Sum Road` },
        }),
      );
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      ids.push(String(created.body.id));
    }
    await workerFor(t).drain();
    const { rows: orders } = await t.database.db.query<OrderRow>(
      'SELECT * FROM wallet_orders WHERE id = ANY($1)',
      [ids],
    );
    let capturedExpected = new Money(0);
    for (const order of orders) {
      expect(order.status).toBe('COMPLETE');
      // The exact price P (USD per destination unit, the source being USD), never the shown rate.
      const price = new Money(DEFAULT_USD_PRICES[order.dest_currency]!);
      const withoutFees = new Money(order.purchase_amount);
      const networkFeeInSource = roundFee(
        new Money(order.fees[order.dest_currency]!).mul(price),
        order.source_currency,
      );
      const sourceFee = new Money(order.fees[order.source_currency]!);
      // Charged = what the crypto cost at the locked price + the card fee + the network fee.
      expect(new Money(order.source_amount).eq(withoutFees.plus(sourceFee).plus(networkFeeInSource))).toBe(
        true,
      );
      // Delivered = the purchase at the locked price, to the smallest source unit: never more than
      // W buys, and less than one cent's worth below it.
      const delivered = new Money(order.dest_amount);
      const bought = withoutFees.div(price);
      expect(delivered.lte(bought)).toBe(true);
      expect(delivered.gt(withoutFees.minus('0.01').div(price))).toBe(true);
      if (
        order.fees[order.dest_currency] !== undefined &&
        !delivered.eq(roundPayout(bought, order.dest_currency))
      ) {
        // Only the "destAmount, fees on top" case fixes delivered first and rounds W up from it.
        expect(roundFee(delivered.mul(price), order.source_currency).eq(withoutFees)).toBe(true);
      }
      capturedExpected = capturedExpected.plus(order.source_amount);
    }
    const { rows: captured } = await t.database.db.query<{ sum: string }>(
      `SELECT sum(-p.amount)::text AS sum FROM ledger_postings p JOIN ledger_entries e ON e.id = p.entry_id
       WHERE p.owner = 'external:card' AND e.reference = ANY($1)`,
      [ids.map((id) => `order:${id}`)],
    );
    expect(captured[0]!.sum).toBe(capturedExpected.toFixed());
    const { rows: delivered } = await t.database.db.query<{ currency: string; sum: string }>(
      `SELECT p.currency, sum(p.amount)::text AS sum FROM ledger_postings p JOIN ledger_entries e ON e.id = p.entry_id
       WHERE e.kind = 'order.delivery' AND p.amount > 0 AND e.reference = ANY($1) GROUP BY p.currency ORDER BY 1`,
      [ids.map((id) => `order:${id}`)],
    );
    const expectedDelivered = new Map<string, Money>();
    for (const order of orders) {
      expectedDelivered.set(
        order.dest_currency,
        (expectedDelivered.get(order.dest_currency) ?? new Money(0)).plus(order.dest_amount),
      );
    }
    expect(delivered.map((row) => [row.currency, new Money(row.sum).toFixed()])).toEqual(
      [...expectedDelivered.entries()].sort().map(([currency, sum]) => [currency, sum.toFixed()]),
    );
    // And the house kept exactly the fees: card fee in house:fees, the rest of the charge in house:fx.
    expect(await auditLedger(t.database.db)).toEqual({ unbalancedCurrencies: [], driftedBalances: [] });
  });
});
