import { cardErrors } from '../cards/index.ts';
import type { Scope } from '../identity/index.ts';
import { isOwnAccount, reserve, storeReservation } from '../orders/index.ts';
import { fieldRequired, invalidValue } from '../platform/errors.ts';
import type { ApplePayBody } from './apple-pay-schemas.ts';
import { prepareWalletOrder } from './create.ts';
import type { WalletOrdersDeps } from './deps.ts';
import type { PreparedOrder } from './request.ts';
import { parseProcessBody } from './schemas.ts';

const CONTACT = 'payload.paymentObject.billingContact';
const SHIPPING = 'payload.paymentObject.shippingContact';

const E164 = /^\+[1-9]\d{6,14}$/;

/**
 * Apple Pay's phone as Wyre wanted it, E.164: spaces, dots, dashes and brackets dropped; ten US
 * digits (with or without the leading 1) get +1. Anything else must already be E.164.
 */
function e164(phone: string, country: string): string {
  const compact = phone.replace(/[\s.\-()]/g, '');
  const full =
    country === 'US' && /^1?\d{10}$/.test(compact) ? `+1${compact.slice(compact.length - 10)}` : compact;
  if (!E164.test(full)) {
    throw invalidValue(
      `${SHIPPING}.phoneNumber`,
      'The phone number must carry its country code, as +14155550100.',
      'validation.phoneNumRequiresCountryCode',
    );
  }
  return full;
}

/** Stands in for the reservation made once the order's own checks have passed. */
const NO_RESERVATION_YET = 'made-for-this-order';

function required<T>(value: T | undefined, field: string): T {
  if (value === undefined || value === '') throw fieldRequired(field);
  return value;
}

/** The reservation the order uses: the one named, else a new unlocked one for `amount`. */
async function reservationFor(ctx: WalletOrdersDeps, scope: Scope, body: ApplePayBody, country: string) {
  const order = body.payload.orderRequest;
  if (order.reservationId !== undefined) return order.reservationId;
  const made = await reserve(
    ctx,
    scope,
    {
      amount: order.amount,
      sourceCurrency: order.sourceCurrency,
      destCurrency: order.destCurrency,
      dest: order.dest,
      referrerAccountId: order.referrerAccountId,
      paymentMethod: 'apple-pay',
      country,
    },
    (prepared) => storeReservation(ctx, undefined, scope, prepared),
  );
  return made.reservation;
}

/**
 * POST /v3/apple-pay/process/partner (docs/contract.md decision 45) as the card order it is: the
 * processor says which card the token stands for (a processor without Apple Pay: 503
 * `card.applePayNotConfigured`), Apple's contacts give the buyer and billing address, the buyer's
 * address is the caller's (Apple Pay calls come from the buyer's device), and the order uses the
 * reservation named or one made for it, once every check that needs none has passed. Every
 * check of a card order then applies unchanged; place the answer as a card order is placed.
 */
export async function prepareApplePayOrder(
  ctx: WalletOrdersDeps,
  scope: Scope,
  body: ApplePayBody,
  clientIp: string,
): Promise<PreparedOrder> {
  const processor = ctx.cardProcessor;
  if (!processor.applePayCard) throw cardErrors.applePayNotConfigured();
  if (!(await isOwnAccount(ctx, scope, body.partnerId))) {
    throw invalidValue('partnerId', 'partnerId must be your own account id.', 'validation.invalidReferrerId');
  }
  const { orderRequest: order, paymentObject } = body.payload;
  const billing = paymentObject.billingContact;
  const shipping = paymentObject.shippingContact ?? {};
  const country = required(billing.countryCode, `${CONTACT}.countryCode`).toUpperCase();
  const lines = required(billing.addressLines, `${CONTACT}.addressLines`);
  const nowMs = ctx.clock.nowMs();
  const card = processor.applePayCard(paymentObject.token, nowMs);
  const request = parseProcessBody(
    {
      debitCard: card,
      reservationId: order.reservationId ?? NO_RESERVATION_YET,
      amount: order.amount,
      sourceCurrency: order.sourceCurrency,
      destCurrency: order.destCurrency,
      dest: order.dest,
      referrerAccountId: order.referrerAccountId,
      givenName: required(billing.givenName, `${CONTACT}.givenName`),
      familyName: required(billing.familyName, `${CONTACT}.familyName`),
      email: required(shipping.emailAddress ?? billing.emailAddress, `${SHIPPING}.emailAddress`),
      phone: e164(required(shipping.phoneNumber ?? billing.phoneNumber, `${SHIPPING}.phoneNumber`), country),
      ...(order.referenceId ? { referenceId: order.referenceId } : {}),
      address: {
        street1: required(lines[0], `${CONTACT}.addressLines`),
        ...(lines[1] ? { street2: lines[1] } : {}),
        city: required(billing.locality, `${CONTACT}.locality`),
        state: required(billing.administrativeArea, `${CONTACT}.administrativeArea`),
        postalCode: required(billing.postalCode, `${CONTACT}.postalCode`),
        country,
      },
      ipAddress: clientIp,
      walletType: 'APPLE_PAY',
    },
    nowMs,
  );
  const prepared = await prepareWalletOrder(ctx, scope, request);
  const reservationId = await reservationFor(ctx, scope, body, country);
  return { ...prepared, request: { ...prepared.request, reservationId } };
}
