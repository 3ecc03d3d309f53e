import { ApiError, forbidden, notFound } from '../platform/errors.ts';

/** The dashboard's refusals; pages show their messages, so each says what to do. */
export const dashboardErrors = {
  /** One answer for every wrong part, so the page never tells which was wrong. */
  signInRefused: () =>
    new ApiError(
      'AccessDeniedException',
      'accessDenied.dashboardSignIn',
      'That API key and secret do not sign in.',
    ),
  throttled: (retryAfterSeconds: number) =>
    new ApiError(
      'RateLimitException',
      'rateLimit.dashboardSignIn',
      'Too many refused sign-ins from here or for this key. Wait a few minutes and try again.',
      { headers: { 'retry-after': String(retryAfterSeconds) } },
    ),
  crossSite: () => forbidden('This form was not sent from this site.', 'accessDenied.csrf'),
  notSignedIn: () =>
    forbidden('Sign in first: this form belongs to no open session.', 'accessDenied.notSignedIn'),
  notFound: (what: string) => notFound(what),
  masterOnly: () =>
    forbidden(
      'Only a key of the master account reaches this page, as in the API.',
      'accessDenied.masterOnly',
    ),
  readOnlyKey: () =>
    forbidden('This key is READONLY: it cannot change anything.', 'accessDenied.readOnlyKey'),
  confirmOwnKey: () =>
    new ApiError(
      'ValidationException',
      'validation.confirmOwnKey',
      'This is the key you signed in with: tick the confirmation to revoke it and sign out.',
      { problematicField: 'confirm' },
    ),
};
