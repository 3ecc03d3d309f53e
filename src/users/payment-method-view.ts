import type { PaymentMethodRow } from './payment-methods-store.ts';

function displayName(row: PaymentMethodRow): string {
  if (row.link_type === 'INTERNATIONAL_TRANSFER') return `Wire ${row.last4}`;
  return `${row.account_type === 'CHECKING' ? 'Checking' : 'Savings'} ${row.last4}`;
}

/**
 * The PaymentMethod object of docs/contract.md "Payment methods and bank transfers"; the account
 * number only ever appears as its last 4. `blockchains`: the deposit addresses attached, keyed by
 * currency.
 */
export function paymentMethodView(row: PaymentMethodRow, blockchains: Record<string, string> = {}) {
  // A wire beneficiary is paid to, never drawn on (docs/contract.md decision 52).
  const chargeable = row.link_type === 'LOCAL_TRANSFER';
  return {
    id: row.id,
    owner: row.owner,
    createdAt: row.created_at,
    name: displayName(row),
    defaultCurrency: row.currency,
    status: row.status,
    statusMessage: row.status_message,
    waitingPrompts: [],
    linkType: row.link_type,
    beneficiaryType: row.beneficiary_type,
    supportsDeposit: true,
    nameOnMethod: `${row.first_name_on_account} ${row.last_name_on_account}`.trim(),
    last4Digits: row.last4,
    brand: null,
    expirationDisplay: null,
    countryCode: row.country,
    nickname: null,
    rejectionMessage: row.status === 'REJECTED' ? row.status_message : null,
    disabled: row.status === 'DISABLED',
    supportsPayment: chargeable,
    chargeableCurrencies: chargeable ? [row.currency] : [],
    depositableCurrencies: [row.currency],
    chargeFeeSchedule: null,
    depositFeeSchedule: null,
    minCharge: null,
    maxCharge: null,
    minDeposit: null,
    maxDeposit: null,
    documents: [],
    srn: `paymentmethod:${row.id}`,
    blockchains,
  };
}
