import type { Money } from '../platform/money.ts';
import type { AccountView } from './account-view.ts';

/**
 * The legacy v2 account (GET /v2/account; docs/contract.md, decision 38), built from the v3
 * Account: the profile from the profile fields, one ledger per balance. Rampart keeps no data for
 * logins, sessions, push channels, referral links, gift cards, notification settings, business
 * profiles or limits buckets: those fields are null (or empty lists), never invented.
 */
export interface LegacyLedger {
  srn: string;
  currency: string;
  /** What can be spent now: the available balance. */
  balance: Money;
  /** Held by unconfirmed transfers: total minus available. */
  pendingBalance: Money;
  totalBalance: Money;
}

type Value = unknown;

function fieldValue(view: AccountView, fieldId: string): Value {
  return view.profileFields.find((field) => field.fieldId === fieldId)?.value ?? null;
}

/** First word and the rest of the legal name: the best split a single name field allows. */
function nameParts(legalName: Value): { firstName: string | null; lastName: string | null } {
  if (typeof legalName !== 'string') return { firstName: null, lastName: null };
  const [first, ...rest] = legalName.trim().split(/\s+/);
  return { firstName: first ?? null, lastName: rest.length > 0 ? rest.join(' ') : null };
}

function ledgersOf(view: AccountView, srn: string): LegacyLedger[] {
  const total = view.totalBalances as Record<string, Money>;
  const available = view.availableBalances as Record<string, Money>;
  return Object.keys(total).map((currency) => ({
    srn,
    currency,
    balance: available[currency]!,
    pendingBalance: total[currency]!.minus(available[currency]!),
    totalBalance: total[currency]!,
  }));
}

export function legacyAccountView(view: AccountView) {
  const srn = `account:${view.id}`;
  const legalName = fieldValue(view, 'individualLegalName');
  return {
    id: view.id,
    createdAt: view.createdAt,
    updatedAt: null,
    referralUrl: null,
    apnsToken: null,
    tangoCardCustomer: null,
    status: view.status,
    profile: {
      ...nameParts(legalName),
      language: 'en',
      address: fieldValue(view, 'individualResidenceAddress'),
      businessAccount: view.type === 'BUSINESS',
      taxId: null,
      doingBusinessAs: null,
      website: null,
      // Never echoed, as Wyre never echoed it.
      ssn: null,
      dateOfBirth: fieldValue(view, 'individualDateOfBirth'),
      notifyEmail: null,
      notifyCellphone: null,
      notifyApnsDevice: null,
      onboardingDashboardCompleted: null,
      displayCurrency: null,
      cpfNumber: null,
      type: view.type,
      vertical: null,
      ethereumVerificationAddress: null,
      country: view.country,
      name: typeof legalName === 'string' ? legalName : null,
    },
    paymentMethods: [],
    identities: [],
    depositAddresses: view.depositAddresses,
    ledgers: ledgersOf(view, srn),
    session: null,
    documents: [],
    srnLimits: [],
    pusherChannel: null,
    email: fieldValue(view, 'individualEmail'),
    cellphone: fieldValue(view, 'individualCellphoneNumber'),
    srn,
    verified: view.status === 'APPROVED',
    loginAt: null,
    lastLoginIp: null,
    lastLoginLocation: null,
    totalBalances: view.totalBalances,
    availableBalances: view.availableBalances,
    type: view.type,
  };
}

export type LegacyAccountView = ReturnType<typeof legacyAccountView>;
