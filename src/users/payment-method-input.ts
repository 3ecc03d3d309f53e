import { isCountryCode } from '../platform/countries.ts';
import { fieldRequired, invalidValue } from '../platform/errors.ts';
import { isKnownCurrency } from '../platform/money.ts';
import { accountNumber, clabe, routingNumber, wireAccountNumber, wireBankCode } from './bank-account.ts';
import type { LinkedBankAccount, PlaidToken } from './bank-verifier.ts';
import type { PaymentMethodRow } from './payment-methods-store.ts';
import type { CreatePaymentMethodBody } from './schemas.ts';

/**
 * The three shapes of POST /v2/paymentMethods read into what a payment method keeps (docs/contract.md
 * "Payment methods and bank transfers"). The account number comes back in clear for the caller to
 * seal; nothing here is logged.
 */
export interface BankDetails {
  linkType: PaymentMethodRow['link_type'];
  paymentType: string | null;
  country: string;
  currency: string;
  accountType: PaymentMethodRow['account_type'];
  beneficiaryType: PaymentMethodRow['beneficiary_type'];
  firstName: string;
  lastName: string;
  routingNumber: string | null;
  accountNumber: string;
  beneficiary: Record<string, string>;
}

function required<T>(value: T, field: string): NonNullable<T> {
  if (value === undefined || value === null || value === '') throw fieldRequired(field);
  return value as NonNullable<T>;
}

function nameText(field: string, value: string): string {
  const trimmed = value.trim();
  if (trimmed === '' || /\p{Cc}/u.test(value)) throw invalidValue(field, `${field} must be non-empty text.`);
  return trimmed;
}

/** The Plaid token of the body, if it carries one: `publicToken` is "<token>|<accountId>". */
export function plaidTokenOf(body: CreatePaymentMethodBody): PlaidToken | undefined {
  if (body.plaidProcessorToken) return { kind: 'processor', processorToken: body.plaidProcessorToken };
  const publicToken = body.publicToken ?? body.plaidPublicToken;
  if (!publicToken) return undefined;
  const bar = publicToken.indexOf('|');
  return bar < 0
    ? { kind: 'public', publicToken, accountId: null }
    : {
        kind: 'public',
        publicToken: publicToken.slice(0, bar),
        accountId: publicToken.slice(bar + 1) || null,
      };
}

function usAch(body: CreatePaymentMethodBody) {
  if (body.country !== 'US') throw invalidValue('country', 'LOCAL_TRANSFER accounts must be in the US.');
  if ((body.currency ?? 'USD') !== 'USD') throw invalidValue('currency', 'US bank accounts hold USD.');
}

/** A Plaid-linked US account, as the verifier reported it. */
export function linkedDetails(body: CreatePaymentMethodBody, linked: LinkedBankAccount): BankDetails {
  usAch(body);
  const [first = linked.accountName, ...rest] = (linked.nameOnAccount ?? '').split(' ').filter(Boolean);
  return {
    linkType: 'LOCAL_TRANSFER',
    paymentType: null,
    country: 'US',
    currency: 'USD',
    accountType: linked.accountType,
    beneficiaryType: body.beneficiaryType ?? 'INDIVIDUAL',
    firstName: first,
    lastName: rest.join(' '),
    routingNumber: routingNumber(linked.routingNumber),
    accountNumber: accountNumber(linked.accountNumber),
    beneficiary: {},
  };
}

/** LOCAL_TRANSFER with account and routing numbers (ABA check digit). */
export function localTransferDetails(body: CreatePaymentMethodBody): BankDetails {
  usAch(body);
  const routing = routingNumber(required(body.routingNumber, 'routingNumber'));
  const account = accountNumber(required(body.accountNumber, 'accountNumber'));
  const accountType = required(body.accountType, 'accountType');
  return {
    linkType: 'LOCAL_TRANSFER',
    paymentType: null,
    country: 'US',
    currency: 'USD',
    accountType,
    beneficiaryType: body.beneficiaryType ?? 'INDIVIDUAL',
    firstName: nameText('firstNameOnAccount', required(body.firstNameOnAccount, 'firstNameOnAccount')),
    lastName: nameText('lastNameOnAccount', required(body.lastNameOnAccount, 'lastNameOnAccount')),
    routingNumber: routing,
    accountNumber: account,
    beneficiary: {},
  };
}

/** The beneficiary fields a wire instruction carries; the others are checked as text and not kept. */
const KEPT_BENEFICIARY_FIELDS = [
  'beneficiaryAddress',
  'beneficiaryAddress2',
  'beneficiaryCity',
  'beneficiaryState',
  'beneficiaryPostal',
  'beneficiaryCompanyName',
] as const;

/**
 * INTERNATIONAL_TRANSFER (paymentType LOCAL_BANK_WIRE): the beneficiary's bank account and
 * address. Mexico identifies the account by its CLABE; elsewhere accountNumber (or an IBAN) and
 * routingNumber (the bank code).
 */
export function wireDetails(body: CreatePaymentMethodBody): BankDetails {
  const paymentType = body.paymentType ?? 'LOCAL_BANK_WIRE';
  if (paymentType !== 'LOCAL_BANK_WIRE')
    throw invalidValue('paymentType', 'INTERNATIONAL_TRANSFER supports paymentType LOCAL_BANK_WIRE.');
  if (!isCountryCode(body.country))
    throw invalidValue('country', 'country must be an ISO 3166-1 alpha-2 code.');
  const currency = required(body.currency, 'currency');
  if (!isKnownCurrency(currency)) throw invalidValue('currency', `Unsupported currency: "${currency}"`);
  const beneficiaryType = body.beneficiaryType ?? 'INDIVIDUAL';
  const corporate = beneficiaryType === 'CORPORATE';
  const mexico = body.country === 'MX';
  const account = mexico
    ? clabe(required(body.clabe ?? body.accountNumber, 'clabe'))
    : wireAccountNumber(required(body.accountNumber, 'accountNumber'));
  const beneficiary: Record<string, string> = {};
  for (const field of KEPT_BENEFICIARY_FIELDS) {
    const value = body[field];
    if (value !== undefined && value !== '') beneficiary[field] = nameText(field, value);
  }
  // A company account may be named by its company name alone; a person's needs both names.
  const company = corporate ? beneficiary.beneficiaryCompanyName : undefined;
  const first = body.firstNameOnAccount ?? company ?? required(body.firstNameOnAccount, 'firstNameOnAccount');
  const last =
    body.lastNameOnAccount ?? (company ? '' : required(body.lastNameOnAccount, 'lastNameOnAccount'));
  return {
    linkType: 'INTERNATIONAL_TRANSFER',
    paymentType,
    country: body.country,
    currency,
    accountType: body.accountType ?? 'CHECKING',
    beneficiaryType,
    firstName: nameText('firstNameOnAccount', first),
    lastName: last === '' ? '' : nameText('lastNameOnAccount', last),
    routingNumber: mexico ? null : wireBankCode(required(body.routingNumber, 'routingNumber')),
    accountNumber: account,
    beneficiary,
  };
}
