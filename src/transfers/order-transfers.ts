import { transferCreatedArguments } from '../callbacks/index.ts';
import type { Tx } from '../platform/db/pool.ts';
import { newId } from '../platform/ids.ts';
import { Money } from '../platform/money.ts';
import { quoteLockMs } from './creation.ts';
import type { TransferRulesDeps } from './deps.ts';
import { historyEntry } from './status-history.ts';
import {
  insertSettledTransfers,
  insertTransferWith,
  type NewTransfer,
  type StatusChange,
  updateStatusesFrom,
} from './store.ts';

/**
 * The delivery transfer of a card (wallet) order (docs/contract.md, Card orders): once the order is PROCESSING its
 * `transferId` names a transfer partners can GET, which gets its `blockchainTx` when the crypto
 * arrives. It is a record only: the wallet-order module posts the money itself (card → house →
 * dest), so nothing here touches the ledger, and the transfers' confirm, expiry and chain-outcome
 * paths never see it (it is born PENDING and its chain send is referenced `order:WO_…`).
 *
 * Its source is `walletorderholding:WO_…`: the tracker (docs/contract.md, Transfers) shows a card order's transfer
 * as coming "from Walletorderholding WO_…", Wyre's holding of the order's funds.
 */

export const ORDER_HOLDING_PREFIX = 'walletorderholding:';

/** The order's priced figures, exactly as the order stored them (amounts as decimal text). */
export interface OrderDelivery {
  orderId: string;
  partnerId: string;
  /** The account the order was placed for; its masqueraded scope sees the transfer. */
  accountId: string;
  /** The order's `owner`: `user:US_…` when given at creation, else `account:AC_…`. */
  owner: string;
  dest: string;
  sourceCurrency: string;
  /** Charged, fees included. */
  sourceAmount: string;
  /** The purchase amount (the quote's sourceAmountWithoutFees). */
  sourceAmountWithoutFees: string;
  destCurrency: string;
  destAmount: string;
  exchangeRate: string;
  fees: Record<string, string>;
}

/** docs/contract.md (Authentication): a bare `AC_…` is an account; stored as its SRN so visibility filters match it. */
const destSrn = (dest: string) => (dest.startsWith('AC_') ? `account:${dest}` : dest);

function orderTransferRow(delivery: OrderDelivery, id: string, nowMs: number): NewTransfer {
  const charged = new Money(delivery.sourceAmount);
  const withoutFees = new Money(delivery.sourceAmountWithoutFees);
  // The network fee the customer paid in the charge (kept by house:fx, never paid by house:fees).
  const networkFee =
    delivery.destCurrency === delivery.sourceCurrency ? '0' : (delivery.fees[delivery.destCurrency] ?? '0');
  return {
    id,
    partner_id: delivery.partnerId,
    account_id: delivery.accountId,
    owner: delivery.owner,
    source: `${ORDER_HOLDING_PREFIX}${delivery.orderId}`,
    dest: destSrn(delivery.dest),
    source_currency: delivery.sourceCurrency,
    dest_currency: delivery.destCurrency,
    source_amount: delivery.sourceAmount,
    source_amount_without_fees: delivery.sourceAmountWithoutFees,
    dest_amount: delivery.destAmount,
    network_fee: networkFee,
    exchange_rate: delivery.exchangeRate,
    fees: { ...delivery.fees },
    // docs/contract.md, Transfers: totalFees in the source currency, miner fees included (as transfers compute it).
    total_fees: charged.minus(withoutFees).toFixed(),
    message: null,
    custom_id: null,
    status: 'PENDING',
    hold_id: null,
    status_history: [historyEntry('INITIATED', nowMs), historyEntry('PENDING', nowMs)],
    created_at: new Date(nowMs),
    completed_at: null,
    // No confirm step: the order's quote was already used; kept for the Transfer shape.
    expires_at: new Date(nowMs + quoteLockMs(delivery.sourceCurrency, delivery.destCurrency)),
  };
}

/**
 * In the transaction that makes the order PROCESSING: stores the PENDING delivery transfer and
 * queues the callbacks of subscriptions to its account, owner or dest (no notifyUrl: orders
 * have none). Answers the transfer id the order carries as `transferId`.
 */
export async function recordOrderTransfer(
  ctx: TransferRulesDeps,
  tx: Tx,
  delivery: OrderDelivery,
): Promise<string> {
  const row = orderTransferRow(delivery, newId('TF'), ctx.clock.nowMs());
  const callbacks = transferCreatedArguments(ctx, orderTransferParties(row));
  await insertTransferWith(tx, row, { hold: null, callbacks });
  return row.id;
}

/** recordOrderTransfer for orders made PROCESSING together: one statement; ids in order. */
export async function recordOrderTransfers(
  ctx: TransferRulesDeps,
  tx: Tx,
  deliveries: readonly OrderDelivery[],
): Promise<string[]> {
  const nowMs = ctx.clock.nowMs();
  const transfers = deliveries.map((delivery) => {
    const row = orderTransferRow(delivery, newId('TF'), nowMs);
    return { row, callbacks: transferCreatedArguments(ctx, orderTransferParties(row)) };
  });
  await insertSettledTransfers(tx, transfers);
  return transfers.map((transfer) => transfer.row.id);
}

function orderTransferParties(row: NewTransfer) {
  return {
    accountId: row.account_id,
    partnerId: row.partner_id,
    transferId: row.id,
    owner: row.owner,
    parties: [row.dest],
  };
}

/**
 * In the transaction that makes the order COMPLETE: COMPLETED, with the chain's BlockchainTx
 * for an address (a custody account has none). Safe to repeat.
 */
export function completeOrderTransfer(
  ctx: TransferRulesDeps,
  tx: Tx,
  transferId: string | null,
  blockchainTx: Record<string, unknown> | null,
): Promise<void> {
  return completeOrderTransfers(ctx, tx, [{ transferId, blockchainTx }]);
}

/**
 * completeOrderTransfer for orders completed together: one statement for all of them, changing
 * only those still PENDING (orders processed before these records existed carry an id with no
 * row: nothing to update). The order's row lock, held by the caller, serialises every change of
 * its transfer, so no lock is taken on the transfers first.
 */
export async function completeOrderTransfers(
  ctx: TransferRulesDeps,
  tx: Tx,
  deliveries: readonly { transferId: string | null; blockchainTx: Record<string, unknown> | null }[],
): Promise<void> {
  const at = ctx.clock.now();
  const changes = deliveries
    .filter((delivery) => delivery.transferId !== null)
    .map(({ transferId, blockchainTx }) => ({
      id: transferId!,
      change: {
        status: 'COMPLETED' as const,
        history: [historyEntry('COMPLETED', at.getTime())],
        at,
        completed: true,
        ...(blockchainTx ? { blockchainTx } : {}),
      },
    }));
  await changeWhilePending(tx, changes);
}

/**
 * In the transaction that makes the order FAILED after it was PROCESSING, under the order's row
 * lock as completeOrderTransfers: FAILED with the reason, only while still PENDING. Safe to repeat.
 */
export async function failOrderTransfer(
  ctx: TransferRulesDeps,
  tx: Tx,
  transferId: string | null,
  failureReason: string,
): Promise<void> {
  if (transferId === null) return;
  const at = ctx.clock.now();
  const change = {
    status: 'FAILED' as const,
    history: [historyEntry('FAILED', at.getTime())],
    at,
    failureReason,
  };
  await changeWhilePending(tx, [{ id: transferId, change }]);
}

/**
 * The outcome of order transfers, applied to those still PENDING only (a repeated outcome, or an
 * id with no row, changes nothing).
 */
async function changeWhilePending(tx: Tx, changes: { id: string; change: StatusChange }[]): Promise<void> {
  if (changes.length > 0) await updateStatusesFrom(tx, changes, 'PENDING', ORDER_HOLDING_PREFIX);
}
