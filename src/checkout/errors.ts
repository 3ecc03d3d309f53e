import { orderErrors } from '../orders/index.ts';
import { ApiError, invalidValue } from '../platform/errors.ts';

/**
 * The checkout's refusals. The page (GET /purchase) shows them as HTML for people; the page's
 * JSON endpoints answer them with the envelope.
 */
export const checkoutErrors = {
  /** Unknown, or not the link's account: the same answer, so ids of others cannot be probed. */
  unknownReservation: () =>
    new ApiError('NotFoundException', 'checkout.unknownReservation', 'This checkout link is not valid.', {
      problematicField: 'reservation',
    }),
  expired: () =>
    new ApiError(
      'ValidationException',
      'checkout.reservationExpired',
      'This checkout link has expired. Please return to the site you came from and start again.',
      { status: 410, problematicField: 'reservation' },
    ),
  used: () =>
    new ApiError(
      'ValidationException',
      'checkout.reservationUsed',
      'This checkout link has already been used. Please return to the site you came from.',
      { status: 410, problematicField: 'reservation' },
    ),
  alteredRedirect: (field: string) =>
    invalidValue(
      field,
      'This checkout link was altered: its return address does not match the one the merchant set.',
      'checkout.redirectMismatch',
    ),
  /** The page of a reservation spent by declined cards (attempts.ts). */
  spentByDeclines: () =>
    new ApiError(
      'ValidationException',
      'checkout.reservationSpent',
      'This checkout link can no longer be used: the card was declined too many times. Please return to the site you came from and start again.',
      { status: 410, problematicField: 'reservation' },
    ),
  /**
   * What the buyer learns of any decline: not the processor's code or reason, nor whether it was
   * the funds, the postal code or the card, which would tell a card tester what to try next.
   */
  cardDeclined: () =>
    new ApiError(
      'ValidationException',
      'validation.cardDeclined',
      'The card was declined. Check the card details and the billing address, or use another card.',
      { problematicField: 'debitCard' },
    ),
  /** The decline that spent the reservation. */
  lastCardDeclined: () =>
    new ApiError(
      'ValidationException',
      'validation.cardDeclined',
      'The card was declined, and this checkout link can no longer be used. Please return to the site you came from and start again.',
      // The reservation is what can no longer be used: the page tells this decline from others by it.
      { problematicField: 'reservation' },
    ),
  /** An hourly cap on declined attempts (per card or per client) is reached. */
  tooManyDeclines: (retryAfterMs: number) => {
    const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
    const minutes = Math.ceil(seconds / 60);
    return new ApiError(
      'RateLimitException',
      'checkout.tooManyFailedAttempts',
      `Too many payment attempts were declined. Please try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
      { transient: true, headers: { 'retry-after': String(seconds) } },
    );
  },
  /** A page JSON call about a reservation that can no longer be used: Wyre's code. */
  illegalReservation: orderErrors.illegalReservation,
  unknownOrder: () =>
    new ApiError('NotFoundException', 'checkout.unknownOrder', 'Order not found.', {
      problematicField: 'orderId',
    }),
  fieldLocked: (field: string) =>
    invalidValue(
      field,
      `Field ${field} is set by the merchant and cannot be changed.`,
      'validation.fieldLocked',
    ),
};

/** Refusals of a checkout branding change (branding.ts): each names its member. */
export const brandingErrors = {
  colorFormat: () =>
    invalidValue('accentColor', 'accentColor must be a colour written #rrggbb, e.g. #1a56db.'),
  lowContrast: (color: string, ratio: number, min: number) =>
    invalidValue(
      'accentColor',
      `accentColor ${color} has a contrast of ${ratio.toFixed(2)}:1 with white; at least ${min}:1 is needed so the text on buttons stays readable. Choose a darker colour.`,
      'validation.lowContrast',
    ),
  name: (max: number) =>
    invalidValue('name', `name must be non-empty text of at most ${max} characters, or null.`),
  logoEncoding: () => invalidValue('logo', 'logo must be the image file encoded as base64, or null.'),
  logoSize: (max: number) =>
    invalidValue('logo', `logo must be an image of at most ${max / 1024} KiB.`, 'validation.logoTooLarge'),
  logoType: () =>
    invalidValue(
      'logo',
      'logo must be a PNG, JPEG or WebP image (read from its bytes; SVG is not taken, as it can carry scripts).',
      'validation.logoType',
    ),
};
