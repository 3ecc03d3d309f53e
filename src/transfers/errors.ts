import { chainErrors } from '../chains/index.ts';
import { ApiError, forbidden, invalidValue, notFound } from '../platform/errors.ts';

/** The transfers module's refusals; insufficient funds come from the ledger itself. */
export const transferErrors = {
  notFound: () => notFound('Transfer'),
  amountRequired: () =>
    new ApiError(
      'FieldRequiredException',
      'validation.fieldRequired',
      'Field sourceAmount is required: send sourceAmount or destAmount.',
      {
        problematicField: 'sourceAmount',
      },
    ),
  bothAmounts: () => invalidValue('destAmount', 'Send sourceAmount or destAmount, never both.'),
  party: (field: string) =>
    invalidValue(
      field,
      `Field ${field} must be account:AC_…, user:US_…, wallet:WA_…, paymentmethod:PA_… or <chain>:<address>.`,
    ),
  chainSource: () =>
    invalidValue(
      'source',
      'A transfer cannot draw on a chain address; deposits arrive at deposit addresses.',
    ),
  sameParty: () => invalidValue('dest', 'dest must differ from source.'),
  /** A confirm body naming another transfer than its path: which one was meant is unknown. */
  confirmIdMismatch: () =>
    invalidValue('transferId', 'Field transferId must be the transfer of the path, or left out.'),
  /** Acting for someone else's balance: masquerade as that account or user instead. */
  notYourSource: () =>
    forbidden(
      'You can only send from the account or user you act as (masqueradeAs).',
      'accessDenied.forbidden',
    ),
  /** Confirming draws on the source: only the payer, or its master account, may. */
  notThePayer: () =>
    forbidden(
      'Only the payer confirms a transfer: act as its source (masqueradeAs), or as the master account.',
      'accessDenied.forbidden',
    ),
  achScopeNotApproved: () =>
    forbidden('The ACH scope of this user is not APPROVED.', 'accessDenied.scopeNotApproved'),
  scopeNotApproved: () =>
    forbidden('The TRANSFER scope of this user is not APPROVED.', 'accessDenied.scopeNotApproved'),
  userClosed: () => forbidden('This user is closed; contact support.', 'accessDenied.userClosed'),
  unknownDest: () =>
    invalidValue('dest', 'dest names an account or user that is not one of yours.', 'validation.unknownDest'),
  destClosed: () => invalidValue('dest', 'dest names a closed user.', 'validation.destClosed'),
  destWrongChain: (chain: string, currency: string) =>
    invalidValue('dest', `A ${chain} address cannot receive ${currency}.`, 'validation.invalidAddress'),
  chainUnavailable: () =>
    invalidValue(
      'dest',
      'Withdrawals to chain addresses are not available until a custody backend is configured.',
      'validation.chainUnavailable',
    ),
  /** The chain backend will not pay this address (decision 77: native coin to a contract). */
  destRefused: (reason: string) => invalidValue('dest', reason, 'validation.contractAddress'),
  /** The chain's node does not answer: try again later (nothing was written). */
  chainDown: (chain: string) => chainErrors.unavailable(chain),
  unsupportedCurrency: (field: string, currency: string) =>
    invalidValue(field, `Unsupported currency: "${currency}"`, 'validation.unsupportedCurrency'),
  customIdTaken: () =>
    invalidValue(
      'customId',
      'customId is already used by another of your transfers.',
      'validation.duplicateCustomId',
    ),
  notUnconfirmed: (status: string) =>
    new ApiError(
      'TransferException',
      'transfer.notUnconfirmed',
      `This transfer is ${status}; only an UNCONFIRMED transfer can be confirmed.`,
    ),
  expired: () =>
    new ApiError(
      'TransferException',
      'transfer.expired',
      'This transfer expired before it was confirmed; create a new one.',
    ),
  depositAddressUnknown: () => notFound('Deposit address'),
  depositCurrency: (chain: string, currency: string) =>
    invalidValue(
      'currency',
      `A ${chain} deposit address cannot receive ${currency}.`,
      'validation.unsupportedCurrency',
    ),
  bankParty: (field: string) =>
    invalidValue(
      field,
      field === 'source'
        ? 'Field source must be paymentmethod:PA_… or paymentmethod:PA_…:ach to pull from a bank account.'
        : 'Field dest must be paymentmethod:PA_… (no :ach) to pay out to a bank account.',
    ),
  pullDest: () =>
    invalidValue(
      'dest',
      'An ACH pull lands in an account or user balance: dest must be account:AC_… or user:US_….',
    ),
  bankUnavailable: () =>
    new ApiError(
      'ServiceUnavailableException',
      'transfer.bankUnavailable',
      'Bank transfers are not available: no bank rail (the bankTransfers port) is configured in this deployment.',
      { transient: false },
    ),
  paymentMethodUnknown: (field: string) =>
    invalidValue(
      field,
      `${field} names a payment method that is not one of yours.`,
      'validation.unknownPaymentMethod',
    ),
  paymentMethodNotActive: (field: string, status: string) =>
    invalidValue(
      field,
      `This payment method is ${status}; only an ACTIVE payment method moves money.`,
      'validation.paymentMethodNotActive',
    ),
  paymentMethodCurrency: (field: string, currency: string) =>
    invalidValue(
      field === 'source' ? 'sourceCurrency' : 'destCurrency',
      `This payment method holds ${currency}: use ${currency} on its side of the transfer.`,
      'validation.unsupportedCurrency',
    ),
  notPullable: () =>
    invalidValue(
      'source',
      'Only a LOCAL_TRANSFER (ACH) payment method can be pulled from.',
      'validation.notPullable',
    ),
  sandboxOnly: () => forbidden('Simulated deposits exist only in sandbox.', 'accessDenied.sandboxOnly'),
};
