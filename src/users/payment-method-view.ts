import type { PaymentMethodRow } from './payment-methods-store.ts';

/** The PaymentMethod object of facts §1.4; the account number only ever appears as its last 4. */
export function paymentMethodView(row: PaymentMethodRow) {
  const label = row.account_type === 'CHECKING' ? 'Checking' : 'Savings';
  return {
    id: row.id,
    owner: `user:${row.user_id}`,
    createdAt: row.created_at,
    name: `${label} ${row.last4}`,
    defaultCurrency: row.currency,
    status: row.status,
    statusMessage: row.status_message,
    waitingPrompts: [],
    linkType: row.link_type,
    beneficiaryType: row.beneficiary_type,
    supportsDeposit: true,
    nameOnMethod: `${row.first_name_on_account} ${row.last_name_on_account}`,
    last4Digits: row.last4,
    brand: null,
    expirationDisplay: null,
    countryCode: row.country,
    nickname: null,
    rejectionMessage: row.status === 'REJECTED' ? row.status_message : null,
    disabled: row.status === 'DISABLED',
    supportsPayment: true,
    chargeableCurrencies: [row.currency],
    depositableCurrencies: [row.currency],
    chargeFeeSchedule: null,
    depositFeeSchedule: null,
    minCharge: null,
    maxCharge: null,
    minDeposit: null,
    maxDeposit: null,
    documents: [],
    srn: `paymentmethod:${row.id}`,
    blockchains: {},
  };
}
