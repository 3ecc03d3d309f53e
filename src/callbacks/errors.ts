import { ApiError, forbidden, invalidValue, notFound } from '../platform/errors.ts';
import { MAX_NOTIFY_URL_LENGTH, MAX_SUBSCRIPTIONS_PER_PARTNER } from './limits.ts';

/** The callbacks module's refusals; each names the field it is about. */
export const callbackErrors = {
  urlLength: (field: string) =>
    invalidValue(field, `Field ${field} must be a URL of 1 to ${MAX_NOTIFY_URL_LENGTH} characters.`),
  urlInvalid: (field: string, reason: string) => invalidValue(field, `Field ${field} ${reason}.`),
  urlForbiddenHost: (field: string) =>
    invalidValue(
      field,
      `Field ${field} must point to a public address (not private, loopback, link-local or reserved).`,
      'validation.forbiddenCallbackHost',
    ),
  urlUnresolvable: (field: string) =>
    invalidValue(field, `The host of ${field} does not resolve.`, 'validation.unresolvableCallbackHost'),
  unsupportedSrn: () =>
    invalidValue(
      'subscribeTo',
      'Field subscribeTo must be an SRN: account:AC_…, user:US_… or transfer:TF_….',
      'validation.invalidSrn',
    ),
  unknownSrn: () =>
    invalidValue('subscribeTo', 'Field subscribeTo names nothing you own.', 'validation.unknownSrn'),
  tooManySubscriptions: () =>
    invalidValue(
      'subscribeTo',
      `At most ${MAX_SUBSCRIPTIONS_PER_PARTNER} subscriptions per partner; delete one first.`,
      'validation.tooManySubscriptions',
    ),
  subscriptionNotFound: () => notFound('Subscription'),
  deliveryNotFound: () => notFound('Callback delivery'),
  deliveryPending: () =>
    new ApiError(
      'ValidationException',
      'callbacks.deliveryPending',
      'This delivery is still queued; it will be attempted without a resend.',
    ),
  masterOnly: () =>
    forbidden(
      "Only the partner's master account may read the callback signing secret.",
      'accessDenied.forbidden',
    ),
};
