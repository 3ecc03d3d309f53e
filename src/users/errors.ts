import { ApiError, forbidden, invalidValue } from '../platform/errors.ts';

/** The Users API's own refusals; generic ones (notFound, fieldRequired) come from platform/errors. */
export const userErrors = {
  masqueradeRequired: () =>
    forbidden('Act as this user with masqueradeAs=user:<userId> of the same user.', 'accessDenied.forbidden'),
  userClosed: () => forbidden('This user is closed; contact support.', 'accessDenied.userClosed'),
  unknownField: (path: string, fieldId: string) =>
    invalidValue(path, `Unknown fieldId "${fieldId.slice(0, 64)}".`, 'validation.unknownField'),
  notUploadable: (fieldId: string) =>
    invalidValue(
      'fieldId',
      `Field "${fieldId.slice(0, 64)}" does not accept uploads; use governmentIdFront or governmentIdBack.`,
    ),
  documentField: (path: string, fieldId: string) =>
    invalidValue(path, `Field ${fieldId} is a document: upload it with POST /v3/users/{userId}/${fieldId}.`),
  fieldLocked: (path: string, fieldId: string) =>
    invalidValue(
      path,
      `Field ${fieldId} is under review or approved and cannot change.`,
      'validation.fieldLocked',
    ),
  unknownScope: (path: string, scope: string) =>
    invalidValue(path, `Unknown scope "${scope.slice(0, 32)}"; use TRANSFER, ACH or DEBIT_CARD_L2.`),
  partnerMismatch: () => invalidValue('partnerId', 'partnerId is not the partner of these credentials.'),
  docTypeNotAllowed: (fieldId: string, docType: string, allowed: readonly string[]) =>
    invalidValue('docType', `docType ${docType} is not accepted for ${fieldId}; use ${allowed.join(', ')}.`),
  scopeNotPending: (scope: string, status: string) =>
    new ApiError(
      'ValidationException',
      'validation.scopeNotPending',
      `Scope ${scope} is ${status}, not PENDING.`,
    ),
  transferNotApproved: () =>
    new ApiError(
      'ValidationException',
      'validation.transferScopeNotApproved',
      'Approve the TRANSFER scope first: this scope builds on it.',
    ),
  /** Production without a bank-account verifier: nothing can read a Plaid token. */
  plaidUnavailable: () =>
    new ApiError(
      'ServiceUnavailableException',
      'paymentMethod.plaidUnavailable',
      'Plaid tokens cannot be read here: this deployment has no bank-account verifier (the bankAccounts port is not configured). Send accountNumber and routingNumber instead.',
      { transient: false },
    ),
  plaidRefused: (reason: string) => invalidValue('publicToken', reason, 'paymentMethod.tokenRefused'),
  paymentMethodOwner: (owner: string) =>
    invalidValue('owner', `A payment method created with these credentials belongs to ${owner}.`),
};
