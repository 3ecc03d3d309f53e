import { failedOperations, paymentsNeedingAttention } from '../cards/index.ts';
import { Money } from '../platform/money.ts';
import type { WalletOrdersDeps } from './deps.ts';

/**
 * The operator's view of what a remote processor left undecided: authorizations the status poll
 * gave up on, and captures, voids and refunds the processor refused (decisions 102, 104). The
 * operator API and the console's disputes page show the same lists.
 */
export async function cardPaymentsNeedingAttention(ctx: WalletOrdersDeps) {
  const [payments, operations] = await Promise.all([
    paymentsNeedingAttention(ctx.db),
    failedOperations(ctx.db),
  ]);
  return {
    payments: payments.map((p) => ({
      orderId: p.order_id,
      processor: p.processor,
      reference: p.reference,
      state: p.state,
      amount: new Money(p.amount),
      currency: p.currency,
      attention: p.attention,
    })),
    operations: operations.map((op) => ({
      orderId: op.order_id,
      kind: op.kind,
      n: op.n,
      amount: op.amount === null ? null : new Money(op.amount),
      detail: op.detail,
      at: op.updated_at,
    })),
  };
}
