import { brandName, type CardBrand } from '../cards/index.ts';
import { Money } from '../platform/money.ts';
import type { OrderRow } from './store.ts';

/**
 * The WalletOrder of docs/contract.md, Card orders, plus the `/full` fields Wyre clients read (errorCode,
 * failureReason) and the quote's fees and rate. The card appears only as "Visa ending 1111".
 */
export function walletOrderView(row: OrderRow) {
  return {
    id: row.id,
    createdAt: row.created_at.getTime(),
    owner: row.owner,
    status: row.status,
    orderType: row.order_type,
    sourceAmount: new Money(row.source_amount),
    purchaseAmount: new Money(row.purchase_amount),
    sourceCurrency: row.source_currency,
    destCurrency: row.dest_currency,
    destAmount: new Money(row.dest_amount),
    exchangeRate: new Money(row.exchange_rate),
    fees: Object.fromEntries(Object.entries(row.fees).map(([code, value]) => [code, new Money(value)])),
    transferId: row.transfer_id,
    dest: row.dest,
    email: row.email,
    authCodesRequested: row.auth_method !== null,
    paymentMethodName: `${brandName(row.card_brand as CardBrand)} ending ${row.card_last4}`,
    accountId: row.account_id,
    walletType: row.wallet_type,
    errorMessage: row.error_message,
    errorCode: row.error_code,
    failureReason: row.error_message,
    referenceId: row.reference_id,
    reservationId: row.reservation_id,
    updatedAt: row.updated_at.getTime(),
    completedAt: row.completed_at ? row.completed_at.getTime() : null,
    smsSentAt: null,
    smsDeliveredAt: null,
    smsRepliedAt: null,
    smsReplyBody: null,
    smsTriggerAt: null,
  };
}

export type WalletOrderBody = ReturnType<typeof walletOrderView>;

/**
 * GET /v3/orders/{orderId}/full: the order plus the failure details Wyre's full view carried
 * (docs/contract.md decision 40). A card decline refuses the order before it exists, so no
 * stored order carries a network code, and Rampart has no code beyond `errorCode`: both stay null.
 */
export function fullOrderView(row: OrderRow) {
  return {
    ...walletOrderView(row),
    errorCategory: row.status === 'FAILED' ? 'GENERAL' : null,
    paymentNetworkErrorCode: null,
    internalErrorCode: null,
  };
}

/**
 * GET /v3/orders/{orderId} without credentials (docs/contract.md, Card orders): what a buyer's
 * status page needs, nothing about the buyer (no e-mail, phone, name, address or card).
 */
export function publicOrderView(row: OrderRow) {
  return {
    id: row.id,
    status: row.status,
    createdAt: row.created_at.getTime(),
    sourceCurrency: row.source_currency,
    sourceAmount: new Money(row.source_amount),
    purchaseAmount: new Money(row.purchase_amount),
    destCurrency: row.dest_currency,
    destAmount: new Money(row.dest_amount),
    dest: row.dest,
    transferId: row.transfer_id,
    errorMessage: row.error_message,
  };
}
