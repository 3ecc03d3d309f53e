import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CardProcessor, ProcessorBooks } from '../../src/cards/processor.ts';
import { SANDBOX_FAILING_ADDRESSES } from '../../src/chains/sandbox-chain.ts';
import { Money } from '../../src/platform/money.ts';
import { TEST_OPERATOR_TOKEN, type TestApp } from '../helpers/app.ts';
import type { PartnerCredentials } from '../helpers/partner.ts';
import { spawnRampart } from '../helpers/process.ts';
import {
  capturedUndelivered,
  dispute,
  operatorCall,
  operatorRefund,
  orderMovement,
  partnerRefund,
  placeOrder,
} from './refund-support.ts';
import { startCardOrderApp, workerFor } from './support.ts';

let t: TestApp;
let partner: PartnerCredentials;
let fromMs: number;
const orders: Record<string, { orderId: string; amount: string }> = {};

/** Every kind of card money movement, once: the period the tests reconcile. */
beforeAll(async () => {
  ({ t, partner } = await startCardOrderApp());
  fromMs = Date.now() - 1000;
  orders.delivered = await placeOrder(t, partner);
  orders.refundedInPart = await placeOrder(t, partner);
  orders.disputedWon = await placeOrder(t, partner);
  orders.disputedLost = await placeOrder(t, partner);
  orders.deliveryFailed = await placeOrder(t, partner, {
    dest: `ethereum:${SANDBOX_FAILING_ADDRESSES.ethereum}`,
  });
  await workerFor(t).drain();
  orders.voided = await placeOrder(t, partner);
  orders.refundedBeforeDelivery = await placeOrder(t, partner);
  await capturedUndelivered(t, orders.refundedBeforeDelivery.orderId);
  for (const name of ['voided', 'refundedBeforeDelivery']) {
    expect((await partnerRefund(t, partner, orders[name]!.orderId)).status).toBe(200);
  }
  expect((await operatorRefund(t, orders.refundedInPart!.orderId, { amount: '12.34' })).status).toBe(200);
  for (const [name, close] of [
    ['disputedWon', 'WIN'],
    ['disputedLost', 'LOSE'],
  ] as const) {
    expect((await dispute(t, orders[name]!.orderId, 'OPEN')).status).toBe(200);
    expect((await dispute(t, orders[name]!.orderId, close)).status).toBe(200);
  }
});
afterAll(async () => t.close());

const period = () => `from=${fromMs}&to=${Date.now() + 60_000}`;
const reconcile = (query = period()) => operatorCall(t, 'GET', `/operator/v1/cards/reconciliation?${query}`);

describe('the card reconciliation', () => {
  it('balances to the cent, booking each dispute fee once', async () => {
    const first = await reconcile();
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toMatchObject({ balanced: true, mismatches: [], payouts: [], feesBooked: 2 });
    const total = (names: string[]) =>
      names.reduce((sum, name) => sum.plus(orders[name]!.amount), new Money(0));
    // A failed delivery voids the authorization (never captured): nothing of it on either side.
    const captured = total([
      'delivered',
      'refundedInPart',
      'disputedWon',
      'disputedLost',
      'refundedBeforeDelivery',
    ]);
    const refunded = total(['refundedBeforeDelivery']).plus('12.34');
    const lost = total(['disputedLost']);
    expect(first.body.currencies).toEqual([
      {
        currency: 'USD',
        captured: captured.toNumber(),
        refunded: refunded.toNumber(),
        chargebacks: lost.toNumber(),
        processingFees: 0,
        disputeFees: 30,
        other: 0,
        ledgerNet: captured.minus(refunded).minus(lost).minus(30).toNumber(),
        processorNet: captured.minus(refunded).minus(lost).minus(30).toNumber(),
        difference: 0,
        balanced: true,
      },
    ]);
    expect(await orderMovement(t, orders.disputedWon!.orderId, 'house:chargebacks')).toBe('0');
    const fees = await t.database.db.query<{ total: string }>(
      `SELECT sum(total)::text AS total FROM ledger_balances WHERE owner = 'house:processor-fees'`,
    );
    expect(Number(fees.rows[0]!.total)).toBe(-30);

    const again = await reconcile();
    expect(again.body).toMatchObject({ balanced: true, feesBooked: 0 });
    expect(
      Number(
        (
          await t.database.db.query<{ total: string }>(
            `SELECT sum(total)::text AS total FROM ledger_balances WHERE owner = 'house:processor-fees'`,
          )
        ).rows[0]!.total,
      ),
    ).toBe(-30);
  });

  it('lists a deliberate mismatch with its order and amounts, and the CLI exits 1 on it', async () => {
    const orderId = orders.refundedInPart!.orderId;
    await t.database.db.query('UPDATE sandbox_card_refunds SET amount = amount + 0.01 WHERE order_id = $1', [
      orderId,
    ]);
    try {
      const off = await reconcile();
      expect(off.body.balanced).toBe(false);
      expect(off.body.mismatches).toEqual([
        {
          orderId,
          currency: 'USD',
          category: 'refunded',
          ledger: -12.34,
          processor: -12.35,
          difference: -0.01,
        },
      ]);
      const cli = spawnRampart(['reconcile', 'cards', '--from', String(fromMs)], {
        RAMPART_URL: t.baseUrl,
        RAMPART_OPERATOR_TOKEN: TEST_OPERATOR_TOKEN,
      });
      expect((await cli.exited).code).toBe(1);
      expect(cli.stdout()).toContain('NOT BALANCED');
      expect(cli.stdout()).toContain(`mismatch ${orderId} USD refunded: ledger -12.34, processor -12.35`);
    } finally {
      await t.database.db.query(
        'UPDATE sandbox_card_refunds SET amount = amount - 0.01 WHERE order_id = $1',
        [orderId],
      );
    }
    const cli = spawnRampart(['reconcile', 'cards', '--from', String(fromMs)], {
      RAMPART_URL: t.baseUrl,
      RAMPART_OPERATOR_TOKEN: TEST_OPERATOR_TOKEN,
    });
    expect((await cli.exited).code).toBe(0);
    expect(cli.stdout()).toMatch(/^cards .*: balanced\n/);
  });

  it('matches payouts against the balance transactions paid out in them', async () => {
    const sandbox = t.ctx.cardProcessor;
    const withPayouts = (shift: Money): CardProcessor => ({
      ...sandbox,
      async books(q, range): Promise<ProcessorBooks> {
        const books = await sandbox.books!(q, range);
        const transactions = books.balanceTransactions.map((bt) => ({ ...bt, payoutReference: 'po_test_1' }));
        const net = transactions.reduce((sum, bt) => sum.plus(bt.amount).minus(bt.fee), new Money(0));
        const payout = {
          reference: 'po_test_1',
          amount: net.plus(shift),
          currency: 'USD',
          status: 'PAID' as const,
          arrivalAtMs: 0,
        };
        const paidOut = {
          ...transactions[0]!,
          reference: 'txn_po_test_1',
          type: 'payout' as const,
          orderId: null,
          amount: net.negated(),
          fee: new Money(0),
        };
        return { balanceTransactions: [...transactions, paidOut], payouts: [payout] };
      },
    });
    try {
      t.ctx.cardProcessor = withPayouts(new Money(0));
      const matched = await reconcile();
      expect(matched.body).toMatchObject({
        balanced: true,
        payouts: [{ reference: 'po_test_1', matched: true }],
      });
      t.ctx.cardProcessor = withPayouts(new Money('0.01'));
      const unmatched = await reconcile();
      expect(unmatched.body.balanced).toBe(false);
      expect(unmatched.body.payouts).toMatchObject([{ reference: 'po_test_1', matched: false }]);
    } finally {
      t.ctx.cardProcessor = sandbox;
    }
  });

  it('refuses a period that is not one', async () => {
    for (const query of ['from=2026-01-02&to=2026-01-01', 'from=yesterday', 'from=0&to=99999999999999']) {
      const refused = await reconcile(query);
      expect(refused.status, query).toBe(400);
      expect(refused.body.type).toBe('ValidationException');
    }
  });
});
