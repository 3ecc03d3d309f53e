import type { OrderDelivery } from '../transfers/index.ts';
import type { WorkerOrderRow } from './store.ts';

/**
 * What the transfers module records as the order's delivery transfer (docs/contract.md, Card orders: the
 * PROCESSING order's `transferId` is a transfer the partner can GET): the order's own quote,
 * figure for figure, so the transfer and the order never disagree.
 */
export function deliveryOf(order: WorkerOrderRow): OrderDelivery {
  return {
    orderId: order.id,
    partnerId: order.partner_id,
    accountId: order.account_id,
    owner: order.owner,
    dest: order.dest,
    sourceCurrency: order.source_currency,
    sourceAmount: order.source_amount,
    sourceAmountWithoutFees: order.purchase_amount,
    destCurrency: order.dest_currency,
    destAmount: order.dest_amount,
    exchangeRate: order.exchange_rate,
    fees: order.fees,
  };
}
