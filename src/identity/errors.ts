import { ApiError, forbidden, unauthenticated } from '../platform/errors.ts';

/** Identity's failures, one place: authentication (401) and authorisation (403). */
export const authErrors = {
  missingCredentials: () =>
    unauthenticated(
      'accessDenied.missingCredentials',
      'Send X-Api-Key and X-Api-Signature, or Authorization: Bearer.',
    ),
  invalidSignature: () => unauthenticated('accessDenied.invalidSignature', 'Invalid API key or signature.'),
  timestampRequired: () =>
    unauthenticated(
      'accessDenied.timestampRequired',
      'Signed requests need a timestamp query parameter (epoch ms).',
    ),
  invalidTimestamp: () =>
    unauthenticated('accessDenied.invalidTimestamp', 'The timestamp query parameter must be epoch ms.'),
  timestampOutOfWindow: (windowMs: number) =>
    unauthenticated(
      'accessDenied.timestampOutOfWindow',
      `The request timestamp is more than ${Math.round(windowMs / 1000)} s away from the server's time.`,
    ),
  replayed: () =>
    unauthenticated(
      'accessDenied.replayedSignature',
      'This signature was already used; sign the request again. Only an identical GET may repeat it, from the same address.',
    ),
  signedBeforeRestart: () =>
    unauthenticated(
      'accessDenied.signedBeforeRestart',
      'This request was signed before the service restarted; sign it again.',
    ),
  invalidSession: () => unauthenticated('accessDenied.invalidSession', 'Invalid Session'),
  noAccount: () =>
    unauthenticated(
      'accessDenied.noAccount',
      'This session has no account yet: create one with POST /v3/accounts.',
    ),
  userToken: () =>
    unauthenticated(
      'accessDenied.userToken',
      "This token acts only as its user: it may not call this route, which acts on the partner's account or another user.",
    ),
  readOnlyKey: () => forbidden('This API key is READONLY and may only read.'),
  ipNotAllowed: () => forbidden('Requests from this IP address are not allowed for this key.'),
  masqueradeDenied: () => forbidden('You may not act as that account or user.'),
  notMaster: () => forbidden('Only a master account may do this.'),
  usersApiDisabled: () => forbidden('The Users API is not enabled for this account; ask the operator.'),
  /** A permission, not a malformed value: the same whitelist is fine from a less restricted key. */
  whitelistBeyondCreator: (field: string, entry: string | undefined) =>
    new ApiError(
      'AccessDeniedException',
      'accessDenied.forbidden',
      entry === undefined
        ? 'This key has an IP whitelist, so the keys it creates need one within it.'
        : `"${entry}" is outside this key's own IP whitelist; a new key's whitelist must lie within it.`,
      { status: 403, problematicField: field },
    ),
};

export const identityErrors = {
  accountAlreadyExists: () =>
    new ApiError(
      'ValidationException',
      'validation.accountAlreadyExists',
      'This token is already tied to an account.',
    ),
  tokenAlreadyTied: () =>
    new ApiError(
      'ValidationException',
      'validation.tokenAlreadyTied',
      'This token is already tied to an account or a user; a token is tied once.',
    ),
  unknownPartner: () =>
    new ApiError(
      'ValidationException',
      'validation.invalidPartnerId',
      'partnerId must name a partner (PT_…) whose Users API is enabled.',
      { problematicField: 'partnerId' },
    ),
  secretInUse: () =>
    new ApiError(
      'ValidationException',
      'validation.secretKeyInUse',
      'This secret key is already registered; generate a new one.',
      {
        problematicField: 'secretKey',
      },
    ),
};
