import { lookupBin } from '../cards/bins.ts';
import { type CheckedCard, checkCard } from '../cards/card-input.ts';
import { cardErrors } from '../cards/errors.ts';
import { cardFingerprint } from '../cards/fingerprint.ts';
import { authorizeCard } from '../cards/service.ts';
import type { Scope } from '../identity/types.ts';
import { addressSpendKey, type BillingAddress, checkBillingAddress } from '../limits/billing-address.ts';
import { recordSpend, tierOfUser } from '../limits/service.ts';
import type { LimitTier } from '../limits/tables.ts';
import { orderErrors } from '../orders/errors.ts';
import { checkCurrencyForCountry, checkDest, checkReferrer } from '../orders/order-checks.ts';
import { consumeReservation, getReservation } from '../orders/service.ts';
import type { AppContext } from '../platform/context.ts';
import type { Tx } from '../platform/db/pool.ts';
import { ApiError } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import { type Money, roundPayout } from '../platform/money.ts';
import type { Quote } from '../pricing/quote.ts';
import { quote as priceQuote } from '../pricing/service.ts';
import { startAuthorization } from './authorization.ts';
import { walletOrderErrors } from './errors.ts';
import { enqueueProcessing } from './jobs.ts';
import { ledgerHoldForCard } from './ledger.ts';
import type { WalletOrderRequest } from './request.ts';
import { insertOrder, lockOrder, setHold } from './store.ts';
import { walletOrderView } from './view.ts';

/** Everything checked before the order's transaction opens (no pooled connection held). */
export interface PreparedOrder {
  scope: Scope;
  request: WalletOrderRequest;
  card: CheckedCard;
  address: BillingAddress;
  quote: Quote;
  tier: LimitTier;
  ownerUserId: string | undefined;
}

type ReservationView = Awaited<ReturnType<typeof getReservation>>;

/**
 * Reads the reservation (without using it yet) and decides the order's quote: the locked one,
 * whose sourceAmount `amount` must equal (API.md decision 3), or for an unlocked reservation a
 * fresh quote of `amount` as the total charged. Fields the reservation fixed must not differ.
 */
export async function prepareWalletOrder(
  ctx: AppContext,
  scope: Scope,
  request: WalletOrderRequest,
): Promise<PreparedOrder> {
  const card = checkCard(request.debitCard, ctx.clock.nowMs());
  const address = checkBillingAddress(request.address);
  const reservation = await readReservation(ctx, scope, request.reservationId);
  checkFixedFields(reservation, request, address);
  checkCurrencyForCountry(request.sourceCurrency, address.country);
  await checkReferrer(ctx, scope, request.referrerAccountId);
  const quote = reservation.quote ?? (await unlockedQuote(ctx, scope, reservation, request));
  if (reservation.quote && !request.amount.eq(reservation.quote.sourceAmount)) {
    throw walletOrderErrors.amountMismatch(
      reservation.quote.sourceAmount.toFixed(),
      reservation.quote.sourceCurrency,
    );
  }
  const ownerUserId = request.owner?.slice('user:'.length);
  const tier = await tierOfUser(ctx.db, scope.partnerId, ownerUserId, 'owner');
  return { scope, request, card, address, quote, tier, ownerUserId };
}

async function readReservation(ctx: AppContext, scope: Scope, id: string): Promise<ReservationView> {
  try {
    return await getReservation(ctx, scope, id);
  } catch (error) {
    if (error instanceof ApiError && error.type === 'NotFoundException')
      throw orderErrors.illegalReservation();
    throw error;
  }
}

/** A rate-locked reservation fixes currencies and dest; lockFields fix whatever they name. */
function checkFixedFields(
  reservation: ReservationView,
  request: WalletOrderRequest,
  address: BillingAddress,
): void {
  const fixed = new Set(reservation.lockFields);
  if (reservation.quoteLockRequest)
    for (const field of ['sourceCurrency', 'destCurrency', 'dest']) fixed.add(field);
  const given: Record<string, string | undefined> = {
    sourceCurrency: request.sourceCurrency,
    destCurrency: request.destCurrency,
    dest: request.dest,
    street1: address.street1,
    city: address.city,
    state: address.state,
    postalCode: address.postalCode,
    country: address.country,
    firstName: request.givenName,
    lastName: request.familyName,
    phone: request.phone,
    email: request.email,
  };
  const requestField: Record<string, string> = { firstName: 'givenName', lastName: 'familyName' };
  for (const field of fixed) {
    if (!Object.hasOwn(given, field)) continue;
    const expected = reservation[field as keyof ReservationView];
    if (expected === null || expected === '' || expected === undefined) continue;
    if (String(expected).toUpperCase() !== String(given[field]).toUpperCase()) {
      const name = requestField[field] ?? (field in address ? `address.${field}` : field);
      throw walletOrderErrors.reservationMismatch(name);
    }
  }
}

/**
 * No locked rate: `amount` is the total charged and fees come out of it, at today's prices. A
 * reservation that locked its `amount` makes that (fees on top) the only acceptable total.
 */
async function unlockedQuote(
  ctx: AppContext,
  scope: Scope,
  reservation: ReservationView,
  request: WalletOrderRequest,
): Promise<Quote> {
  await checkDest(ctx, scope, request.dest, request.destCurrency);
  const paymentMethod = request.walletType === 'APPLE_PAY' ? 'apple-pay' : 'debit-card';
  const base = { sourceCurrency: request.sourceCurrency, destCurrency: request.destCurrency, paymentMethod };
  if (reservation.lockFields.includes('amount') && reservation.amount !== null) {
    const locked = await priceQuote(ctx, {
      ...base,
      amountIncludeFees: false,
      amount: { side: 'source', value: reservation.amount, field: 'amount' },
    });
    if (!request.amount.eq(locked.quote.sourceAmount)) {
      throw walletOrderErrors.amountMismatch(locked.quote.sourceAmount.toFixed(), request.sourceCurrency);
    }
    return locked.quote;
  }
  const priced = await priceQuote(ctx, {
    ...base,
    amountIncludeFees: true,
    amount: { side: 'source', value: request.amount, field: 'amount' },
  });
  return priced.quote;
}

/** The charged amount in USD at the order's own rate (API.md decision 13), cents rounded down. */
function amountUsd(quote: Quote): Money {
  if (quote.sourceCurrency === 'USD') return quote.sourceAmount;
  const usd = quote.equivalencies.USD;
  if (!usd) throw new Error(`quote without a USD equivalency for ${quote.sourceCurrency}`);
  return roundPayout(usd, 'USD');
}

/**
 * In the order's transaction: use the reservation (once), insert the order, check and record
 * the limits spend, authorise the card, hold the amount on the ledger, then either start the
 * authorization step the issuer asked for or queue processing. Any refusal rolls all of it back:
 * the reservation stays usable, no spend counts, no hold is left.
 */
export async function storeWalletOrder(ctx: AppContext, tx: Tx, prepared: PreparedOrder) {
  const { scope, request, card, address, quote } = prepared;
  const reservation = await consumeReservation(ctx, tx, scope, request.reservationId);
  const bin = lookupBin(card.pan);
  if (!bin) throw cardErrors.unsupportedBrand();
  const orderId = newId('WO');
  const nowMs = ctx.clock.nowMs();
  const fingerprint = cardFingerprint(ctx.config.masterKey, card.pan);
  const usd = amountUsd(quote);
  await insertOrder(
    tx,
    {
      id: orderId,
      partner_id: scope.partnerId,
      account_id: reservation.request.referrerAccountId ?? reservation.accountId,
      reservation_id: reservation.id,
      owner: request.owner ?? `account:${reservation.request.referrerAccountId ?? reservation.accountId}`,
      owner_user_id: prepared.ownerUserId ?? null,
      status: 'RUNNING_CHECKS',
      order_type: address.country === 'US' ? 'DOMESTIC' : 'INTERNATIONAL',
      wallet_type: request.walletType ?? 'DEBIT_CARD',
      source_currency: quote.sourceCurrency,
      source_amount: quote.sourceAmount.toFixed(),
      purchase_amount: quote.sourceAmountWithoutFees.toFixed(),
      dest_currency: quote.destCurrency,
      dest_amount: quote.destAmount.toFixed(),
      exchange_rate: quote.exchangeRate.toFixed(),
      fees: Object.fromEntries(Object.entries(quote.fees).map(([code, value]) => [code, value.toFixed()])),
      amount_usd: usd.toFixed(),
      dest: request.dest,
      email: request.email,
      given_name: request.givenName,
      family_name: request.familyName,
      phone: request.phone,
      reference_id: request.referenceId ?? null,
      ip_address: request.ipAddress,
      billing_address: { ...address },
      card_brand: bin.brand,
      card_bin: card.bin,
      card_last4: card.last4,
      card_fingerprint: fingerprint,
    },
    nowMs,
  );
  const keys = [addressSpendKey(address), `card:${fingerprint}`];
  if (prepared.ownerUserId) keys.push(`user:${prepared.ownerUserId}`);
  await recordSpend(ctx, tx, {
    orderId,
    amountUsd: usd,
    subject: { partnerId: scope.partnerId, country: address.country, tier: prepared.tier },
    keys,
  });
  const step = await authorizeCard(ctx, tx, {
    orderId,
    card,
    fingerprint,
    amount: quote.sourceAmount,
    currency: quote.sourceCurrency,
    billing: address,
    nowMs,
  });
  const holdId = await ledgerHoldForCard(tx, orderId, quote.sourceCurrency, quote.sourceAmount, nowMs);
  await setHold(tx, orderId, holdId);
  const needed = request.trigger3ds ? '3DS' : step;
  if (needed === 'NONE') await enqueueProcessing(tx, orderId);
  else await startAuthorization(ctx, tx, { orderId, partnerId: scope.partnerId, method: needed });
  const row = await lockOrder(tx, orderId);
  return walletOrderView(row!);
}
