import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTransaction } from '../../src/platform/db/pool.ts';
import {
  completeOrderTransfers,
  failOrderTransfer,
  type OrderDelivery,
  recordOrderTransfers,
} from '../../src/transfers/order-transfers.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createPartner } from '../helpers/partner.ts';

let t: TestApp;
let partner: Awaited<ReturnType<typeof createPartner>>;
beforeAll(async () => {
  t = await startTestApp();
  partner = await createPartner(t);
});
afterAll(async () => t.close());

let orders = 0;
function delivery(): OrderDelivery {
  orders += 1;
  return {
    orderId: `WO_TEST${String(orders).padStart(6, '0')}`,
    partnerId: partner.accountId,
    accountId: partner.accountId,
    owner: `account:${partner.accountId}`,
    dest: 'ethereum:0x52908400098527886E0F7030069857D2E4169EE7',
    sourceCurrency: 'USD',
    sourceAmount: '103.5',
    sourceAmountWithoutFees: '100',
    destCurrency: 'ETH',
    destAmount: '0.05',
    exchangeRate: '0.0005',
    fees: { USD: '3.5', ETH: '0.0001' },
  };
}

const record = (count: number) =>
  withTransaction(t.database.db, (tx) =>
    recordOrderTransfers(
      t.ctx,
      tx,
      Array.from({ length: count }, () => delivery()),
    ),
  );

const complete = (ids: (string | null)[], blockchainTx: Record<string, unknown> | null) =>
  withTransaction(t.database.db, (tx) =>
    completeOrderTransfers(
      t.ctx,
      tx,
      ids.map((transferId) => ({ transferId, blockchainTx })),
    ),
  );

async function stored(id: string) {
  const { rows } = await t.database.db.query<{
    status: string;
    states: string[];
    blockchain_tx: Record<string, unknown> | null;
  }>(
    `SELECT status, blockchain_tx, ARRAY(SELECT e->>1 FROM jsonb_array_elements(status_history) e) AS states
     FROM transfers WHERE id = $1`,
    [id],
  );
  return rows[0]!;
}

describe("a card order's delivery transfer", () => {
  it('completes or fails once: a repeated change, or one of a transfer no longer PENDING, changes nothing', async () => {
    const [first, second, failed] = await record(3);
    const fail = (id: string | null) =>
      withTransaction(t.database.db, (tx) => failOrderTransfer(t.ctx, tx, id, 'chain failure'));
    await fail(failed!);
    await fail(failed!); // repeated: one FAILED entry
    await fail(null); // an order processed before delivery transfers existed
    await complete([first!, second!, failed!, null], { networkTxId: '0xfirst' });
    await complete([first!], { networkTxId: '0xagain' });

    for (const id of [first!, second!]) {
      expect(await stored(id)).toEqual({
        status: 'COMPLETED',
        states: ['INITIATED', 'PENDING', 'COMPLETED'],
        blockchain_tx: { networkTxId: '0xfirst' },
      });
    }
    expect(await stored(failed!)).toEqual({
      status: 'FAILED',
      states: ['INITIATED', 'PENDING', 'FAILED'],
      blockchain_tx: null,
    });
  });

  it('never touches a transfer that is not an order delivery, whatever id it is given', async () => {
    const { rows } = await t.database.db.query<{ id: string }>(
      `UPDATE transfers SET source = 'account:' || partner_id WHERE id = $1 RETURNING id`,
      [(await record(1))[0]],
    );
    const other = rows[0]!.id;
    await complete([other], { networkTxId: '0xnot-mine' });
    await withTransaction(t.database.db, (tx) => failOrderTransfer(t.ctx, tx, other, 'not mine'));
    expect(await stored(other)).toMatchObject({ status: 'PENDING', blockchain_tx: null });
  });
});
