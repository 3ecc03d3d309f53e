import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  approvedUser,
  balances,
  credit,
  expectLedgerSound,
  startTransfersApp,
  type TransfersFixture,
  transfer,
} from './support.ts';

let f: TransfersFixture;
beforeAll(async () => {
  f = await startTransfersApp();
});
afterAll(async () => f.t.close());

describe('concurrent transfers on one balance', () => {
  it('200 at once out of a balance that covers 100: exactly 100 succeed', async () => {
    const { t, partner } = f;
    const payer = await approvedUser(t, partner);
    const payees = [await approvedUser(t, partner), await approvedUser(t, partner)];
    await credit(t, `user:${payer}`, 'USD', '100');
    const outcomes = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        transfer(t, partner, payer, {
          sourceCurrency: 'USD',
          sourceAmount: 1,
          dest: `user:${payees[i % 2]}`,
          // Distinct bodies: two identical signed requests in the same millisecond are a replay.
          message: `payment ${i}`,
          // Half settle at once, half hold funds: both draw on the same available balance.
          autoConfirm: i % 2 === 0,
        }),
      ),
    );
    const ok = outcomes.filter((o) => o.status === 200);
    const refused = outcomes.filter((o) => o.status !== 200);
    expect(ok).toHaveLength(100);
    expect(new Set(refused.map((o) => o.body.errorCode))).toEqual(new Set(['insufficientFunds']));
    expect((await balances(t, `user:${payer}`)).available).toEqual({ USD: '0' });
    const { rows } = await t.database.db.query(
      `SELECT count(*)::int AS n FROM transfers WHERE source = $1 AND status IN ('COMPLETED', 'UNCONFIRMED')`,
      [`user:${payer}`],
    );
    expect(rows[0].n).toBe(100);
    await expectLedgerSound(t);
  });
});
