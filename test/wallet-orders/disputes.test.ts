import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProcessorEvent } from '../../src/cards/connector.ts';
import { auditLedger } from '../../src/ledger/service.ts';
import { withTransaction } from '../../src/platform/db/pool.ts';
import { Money } from '../../src/platform/money.ts';
import { onDisputeEvent } from '../../src/wallet-orders/disputes.ts';
import { onRefundEvent } from '../../src/wallet-orders/refunds.ts';
import type { TestApp } from '../helpers/app.ts';
import type { PartnerCredentials } from '../helpers/partner.ts';
import {
  dispute,
  moneyState,
  operatorRefund,
  orderMovement,
  orderStatus,
  placeOrder,
  webhookStatuses,
} from './refund-support.ts';
import { readOrder, startCardOrderAppWithWebhook, workerFor } from './support.ts';

let t: TestApp;
let partner: PartnerCredentials;

beforeAll(async () => {
  ({ t, partner } = await startCardOrderAppWithWebhook());
});
afterAll(async () => t.close());

async function deliveredOrder() {
  const placed = await placeOrder(t, partner);
  await workerFor(t).drain();
  expect((await orderStatus(t, placed.orderId)).status).toBe('COMPLETE');
  return placed;
}

type DisputeKind = 'dispute.opened' | 'dispute.won' | 'dispute.lost';

function disputeEvent(orderId: string, kind: DisputeKind, amount: string, reference = `dp_${orderId}`) {
  return {
    eventId: `evt_${reference}_${kind}`,
    kind,
    orderId,
    dispute: {
      reference,
      paymentReference: `pi_${orderId}`,
      amount: new Money(amount),
      currency: 'USD',
      reason: 'fraudulent',
    },
  } satisfies ProcessorEvent;
}

const deliver = (event: Extract<ProcessorEvent, { kind: DisputeKind }>) =>
  withTransaction(t.ctx.db, (tx) => onDisputeEvent(t.ctx, tx, event));

describe('a chargeback', () => {
  it('opened moves a delivered order to CHARGEBACK, books the withdrawal; won gives it back', async () => {
    const { orderId, amount } = await deliveredOrder();
    const opened = await dispute(t, orderId, 'OPEN');
    expect(opened.status, JSON.stringify(opened.body)).toBe(200);
    expect(opened.body).toMatchObject({
      orderStatus: 'CHARGEBACK',
      event: 'dispute.opened',
      amount: Number(amount),
    });
    expect(await orderStatus(t, orderId)).toEqual({ status: 'CHARGEBACK', error_code: null });
    expect(await orderMovement(t, orderId, 'house:chargebacks')).toBe(`-${amount}`);
    expect((await readOrder(t, partner, orderId)).status).toBe('CHARGEBACK');

    const before = await moneyState(t);
    const repeated = await dispute(t, orderId, 'OPEN');
    expect(repeated.status).toBe(200);
    expect(await moneyState(t)).toEqual(before);

    const won = await dispute(t, orderId, 'WIN');
    expect(won.body).toMatchObject({ orderStatus: 'COMPLETE', event: 'dispute.won' });
    expect(await orderMovement(t, orderId, 'house:chargebacks')).toBe('0');
    expect(await webhookStatuses(t, orderId)).toEqual(['PROCESSING', 'COMPLETE', 'CHARGEBACK', 'COMPLETE']);
    const again = await dispute(t, orderId, 'LOSE');
    expect(again.status).toBe(400);
    expect(again.body.errorCode).toBe('dispute.notPossible');
    expect(await auditLedger(t.database.db)).toEqual({ unbalancedCurrencies: [], driftedBalances: [] });
  });

  it('lost keeps the order in CHARGEBACK and the money with the card network', async () => {
    const { orderId, amount } = await deliveredOrder();
    await dispute(t, orderId, 'OPEN');
    const lost = await dispute(t, orderId, 'LOSE');
    expect(lost.body).toMatchObject({ orderStatus: 'CHARGEBACK', event: 'dispute.lost' });
    expect(await orderMovement(t, orderId, 'house:chargebacks')).toBe(`-${amount}`);
    expect(await webhookStatuses(t, orderId)).toEqual(['PROCESSING', 'COMPLETE', 'CHARGEBACK']);
  });

  it('on a charge refunded in part books only what the processor withdrew, and nothing on one refunded whole', async () => {
    const part = await deliveredOrder();
    await operatorRefund(t, part.orderId, { amount: '40' });
    await dispute(t, part.orderId, 'OPEN');
    const left = new Money(part.amount).minus(40).toFixed();
    expect(await orderMovement(t, part.orderId, 'house:chargebacks')).toBe(`-${left}`);
    const { rows } = await t.database.db.query(
      'SELECT amount::text, withdrawn::text FROM sandbox_card_disputes WHERE order_id = $1',
      [part.orderId],
    );
    expect(rows).toEqual([{ amount: part.amount, withdrawn: left }]);

    const whole = await deliveredOrder();
    await operatorRefund(t, whole.orderId);
    const opened = await dispute(t, whole.orderId, 'OPEN');
    expect(opened.status).toBe(200);
    expect(await orderMovement(t, whole.orderId, 'house:chargebacks')).toBe('0');
    const refused = await operatorRefund(t, part.orderId);
    expect(refused.body.errorCode).toBe('refund.exceedsCaptured');
  });

  it('is refused on an order never captured, and only in sandbox', async () => {
    const { orderId } = await placeOrder(t, partner);
    const before = await moneyState(t);
    const refused = await dispute(t, orderId, 'OPEN');
    expect(refused.status).toBe(400);
    expect(refused.body.errorCode).toBe('dispute.notPossible');
    expect((await dispute(t, 'WO_AAAAAAAAAAA', 'OPEN')).status).toBe(404);
    expect(await moneyState(t)).toEqual(before);
  });

  it('heard of out of order (won, then opened) books nothing; lost first books once', async () => {
    const { orderId, amount } = await deliveredOrder();
    await deliver(disputeEvent(orderId, 'dispute.won', amount));
    await deliver(disputeEvent(orderId, 'dispute.opened', amount));
    expect(await orderMovement(t, orderId, 'house:chargebacks')).toBe('0');
    expect((await orderStatus(t, orderId)).status).toBe('COMPLETE');

    const other = await deliveredOrder();
    await deliver(disputeEvent(other.orderId, 'dispute.lost', other.amount));
    await deliver(disputeEvent(other.orderId, 'dispute.opened', other.amount));
    await deliver(disputeEvent(other.orderId, 'dispute.lost', other.amount));
    await deliver(disputeEvent(other.orderId, 'dispute.won', other.amount));
    expect(await orderMovement(t, other.orderId, 'house:chargebacks')).toBe(`-${other.amount}`);
    expect(await orderStatus(t, other.orderId)).toEqual({ status: 'CHARGEBACK', error_code: null });
    expect(await webhookStatuses(t, other.orderId)).toEqual(['PROCESSING', 'COMPLETE', 'CHARGEBACK']);
  });

  it('for an order Rampart does not know changes nothing', async () => {
    const before = await moneyState(t);
    await deliver(disputeEvent('WO_AAAAAAAAAAA', 'dispute.opened', '10'));
    await deliver({ ...disputeEvent('WO_AAAAAAAAAAA', 'dispute.opened', '10'), orderId: null });
    expect(await moneyState(t)).toEqual(before);
  });
});

function refundEvent(
  orderId: string | null,
  reference: string,
  status: 'PENDING' | 'SUCCEEDED' | 'FAILED',
  amount: string,
) {
  return {
    eventId: `evt_${reference}_${status}`,
    kind: 'refund.updated' as const,
    orderId,
    refund: {
      reference,
      paymentReference: `pi_${orderId}`,
      status,
      amount: new Money(amount),
      currency: 'USD',
    },
  };
}

const deliverRefund = (event: ReturnType<typeof refundEvent>) =>
  withTransaction(t.ctx.db, (tx) => onRefundEvent(t.ctx, tx, event));

describe('the processor’s word on a refund', () => {
  it('records a refund made in its dashboard and books it once it succeeded, once', async () => {
    const { orderId } = await deliveredOrder();
    await deliverRefund(refundEvent(orderId, 're_dash_1', 'PENDING', '12.5'));
    expect(await orderMovement(t, orderId, 'house:card-refund-losses')).toBe('0');
    await deliverRefund(refundEvent(orderId, 're_dash_1', 'SUCCEEDED', '12.5'));
    await deliverRefund(refundEvent(orderId, 're_dash_1', 'SUCCEEDED', '12.5'));
    expect(await orderMovement(t, orderId, 'house:card-refund-losses')).toBe('-12.5');
    const { rows } = await t.database.db.query(
      'SELECT id, kind, requester, status, booking FROM card_refunds WHERE order_id = $1',
      [orderId],
    );
    expect(rows).toEqual([
      {
        id: 'processor:re_dash_1',
        kind: 'PROCESSOR',
        requester: 'processor',
        status: 'COMPLETE',
        booking: 'LOSS',
      },
    ]);
    // What the dashboard gave back counts against what is left to refund.
    const over = await operatorRefund(t, orderId, { amount: '1000' });
    expect(String(over.body.message)).toMatch(/left of the charge to refund/);
  });

  it('matches a refund Rampart asked for, and a failure reverses its booking; late news changes nothing', async () => {
    const { orderId } = await deliveredOrder();
    const refund = await operatorRefund(t, orderId, { amount: '20' });
    expect(refund.status).toBe(200);
    await deliverRefund(refundEvent(orderId, 're_asked_1', 'FAILED', '20'));
    expect(await orderMovement(t, orderId, 'house:card-refund-losses')).toBe('0');
    const { rows } = await t.database.db.query(
      'SELECT status, processor_reference, failed_reason FROM card_refunds WHERE order_id = $1',
      [orderId],
    );
    expect(rows).toEqual([
      {
        status: 'FAILED',
        processor_reference: 're_asked_1',
        failed_reason: 'The card processor could not refund the card.',
      },
    ]);
    const before = await moneyState(t);
    await deliverRefund(refundEvent(orderId, 're_asked_1', 'SUCCEEDED', '20'));
    await deliverRefund(refundEvent(orderId, 're_asked_1', 'FAILED', '20'));
    expect(await moneyState(t)).toEqual(before);
    expect(await auditLedger(t.database.db)).toEqual({ unbalancedCurrencies: [], driftedBalances: [] });
  });
});
