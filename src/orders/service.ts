import type { Scope } from '../identity/index.ts';
import type { AppContext } from '../platform/context.ts';
import { batched } from '../platform/db/grouped-transactions.ts';
import { GroupedCalls } from '../platform/db/grouped-writer.ts';
import type { Db, Queryable, Tx } from '../platform/db/pool.ts';
import { ApiError, notFound } from '../platform/errors.ts';
import { newReservationId } from '../platform/ids.ts';
import { type Money, parsePositiveAmount } from '../platform/money.ts';
import {
  assertSellable,
  computeQuote,
  forgetPricingSettings,
  type PricedQuote,
  pricesWith,
  pricingErrors,
  pricingSettings,
  type Quote,
  quote,
} from '../pricing/index.ts';
import type { OrderRulesDeps } from './deps.ts';
import { orderErrors } from './errors.ts';
import { checkCountry, checkCurrencyForCountry, checkDest, checkReferrer } from './order-checks.ts';
import { readReserveRequest, type StoredRequest } from './reservation-request.ts';
import { type ReservationView, reservationView, storedQuote } from './reservation-view.ts';
import type { PartnerQuoteBody, ReserveBody } from './schemas.ts';
import {
  findReservation,
  findReservationById,
  insertReservations,
  type NewReservation,
  type UsableReservationRow,
  useReservations,
  useReservationUp,
} from './store.ts';
import { RESERVATION_LIFETIME_MS } from './supported.ts';

export interface PreparedReservation {
  request: StoredRequest;
  priced: PricedQuote | undefined;
  /** The pricing generation the request was checked and quoted at. */
  pricingGeneration: number;
}

/** Thrown by storeReservation when the prices or fees changed after they were read: quote again. */
class PricingChanged extends Error {}

/** Stores and answers a prepared reservation: with or without a transaction, as the route decides. */
export type ReservationStorer<T> = (prepared: PreparedReservation) => Promise<T>;

const RESERVE_ATTEMPTS = 3;

/**
 * POST /v3/orders/reserve (docs/contract.md, Reservations and quotes): checks and quotes, then `store` (storeReservation in the
 * caller's transaction, or alone as one autocommit statement). If the prices or fees changed in
 * another process since this one read them, nothing was stored: read them again and redo it all.
 */
export async function reserve<T>(
  ctx: OrdersDeps,
  scope: Scope,
  body: ReserveBody,
  store: ReservationStorer<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    const prepared = await prepareReservation(ctx, scope, body);
    try {
      return await store(prepared);
    } catch (error) {
      if (!(error instanceof PricingChanged)) throw error;
      if (attempt === RESERVE_ATTEMPTS) throw pricingErrors.changing();
      forgetPricingSettings(ctx);
    }
  }
}

/**
 * Every check, and for a rate-locked request the quote, on one read of the pricing settings. Runs
 * before any transaction opens, so a request holding a pooled connection never waits for a second
 * one (account lookups and the settings' reload use the pool).
 */
async function prepareReservation(
  ctx: OrdersDeps,
  scope: Scope,
  body: ReserveBody,
): Promise<PreparedReservation> {
  const settings = await pricingSettings(ctx);
  const request = await readReserveRequest(ctx, scope, body, settings.schedule);
  const priced = request.lock
    ? computeQuote(request.lock, await pricesWith(ctx, settings), settings.schedule)
    : undefined;
  return { request: request.stored, priced, pricingGeneration: settings.generation };
}

/** Concurrent requests' reservations, stored by one statement per group (groupedReservationInserts). */
export type ReservationInserts = GroupedCalls<
  NewReservation,
  Awaited<ReturnType<typeof insertReservations>>[number]
>;

/** What the reservation functions are given: the rules' deps and the grouping of reservations. */
export interface OrdersDeps extends OrderRulesDeps {
  reservationInserts: ReservationInserts;
}

/**
 * Reservations of concurrent requests stored by one autocommit statement per group: one commit
 * (one WAL flush) for the group instead of one per reservation. Each request learns whether its
 * own row was stored. One per app, made by the composition root.
 */
export function groupedReservationInserts(db: Db): ReservationInserts {
  return new GroupedCalls((reservations: NewReservation[]) => insertReservations(db, reservations));
}

/**
 * Stores a prepared reservation for 15 minutes by the service clock (docs/contract.md, Reservations and quotes): in the caller's
 * transaction when given one, else grouped with concurrent requests' (autocommit).
 */
export async function storeReservation(
  ctx: OrdersDeps,
  tx: Tx | undefined,
  scope: Scope,
  prepared: PreparedReservation,
) {
  const id = newReservationId();
  const createdAtMs = ctx.clock.nowMs();
  const reservation: NewReservation = {
    id,
    partnerId: scope.partnerId,
    accountId: scope.accountId,
    request: prepared.request,
    quote: prepared.priced?.quote,
    derivation: prepared.priced?.derivation,
    pricingGeneration: prepared.pricingGeneration,
    createdAtMs,
    expiresAtMs: createdAtMs + RESERVATION_LIFETIME_MS,
  };
  const stored = tx
    ? (await insertReservations(tx, [reservation]))[0]
    : await ctx.reservationInserts.call(reservation);
  if (!stored) throw new PricingChanged();
  return { url: checkoutUrl(ctx, scope, id, prepared.request), reservation: id };
}

/** The hosted checkout link: the query parameters of docs/contract.md (Hosted pages), in Wyre's order. */
function checkoutUrl(ctx: OrdersDeps, scope: Scope, id: string, request: StoredRequest): string {
  const accountId = request.referrerAccountId ?? scope.accountId;
  const query = new URLSearchParams({ accountId, reservation: id });
  if (request.redirectUrl !== null) query.set('redirectUrl', request.redirectUrl);
  if (request.failureRedirectUrl !== null) query.set('failureRedirectUrl', request.failureRedirectUrl);
  query.set('utm_campaign', accountId);
  query.set('utm_medium', 'widget');
  query.set('utm_source', 'checkout');
  return `${ctx.config.checkoutUrl}/purchase?${query}`;
}

/** GET /v3/orders/reservation/{id}: readable after use or expiry; other partners' ids are 404. */
export async function getReservation(ctx: OrdersDeps, scope: Scope, id: string) {
  const row = await findReservation(ctx.db, scope.partnerId, scope.accountId, id);
  if (!row) throw notFound('Reservation');
  return reservationView(row);
}

export interface ConsumedReservation {
  id: string;
  accountId: string;
  request: StoredRequest;
  /** The locked quote exactly as stored; null when the reservation locked no rate. */
  quote: Quote | null;
}

/**
 * Uses a reservation once, inside the caller's transaction (the card order that uses it commits
 * or rolls back with it). Used, expired (service clock), unknown and other partners'
 * reservations all throw illegalReservation.
 */
export async function consumeReservation(
  ctx: OrdersDeps,
  tx: Tx,
  scope: Scope,
  id: string,
): Promise<ConsumedReservation> {
  const [result] = await consumeReservations(ctx, tx, [{ scope, id }]);
  if (result instanceof ApiError) throw result;
  return result!;
}

function consumed(row: UsableReservationRow): ConsumedReservation {
  return { id: row.id, accountId: row.account_id, request: row.request, quote: storedQuote(row) };
}

/**
 * consumeReservation for many orders at once (one statement): each order's reservation, used,
 * or the illegalReservation error it would have got.
 */
async function consumeReservations(
  ctx: AppContext,
  q: Queryable,
  uses: readonly { scope: Scope; id: string }[],
): Promise<(ConsumedReservation | ApiError)[]> {
  const rows = await useReservations(
    q,
    uses.map(({ scope, id }) => ({ id, partnerId: scope.partnerId, accountId: scope.accountId })),
    ctx.clock.nowMs(),
  );
  return rows.map((row) => (row ? consumed(row) : orderErrors.illegalReservation()));
}

/** A card order's use of its reservation, as a step of the order's write path. */
export interface CardOrderReservation {
  ctx: AppContext;
  scope: Scope;
  id: string;
}

/** consumeReservations as a step of a card order's write path (one context per group). */
export const useReservation = batched('orders.useReservations', (q, uses: CardOrderReservation[]) =>
  consumeReservations(uses[0]!.ctx, q, uses),
);

/** Spends a reservation without an order: no order can use it afterwards. */
export function retireReservation(ctx: OrdersDeps, id: string): Promise<void> {
  return useReservationUp(ctx.db, id, ctx.clock.nowMs());
}

const WALLET_TYPES: Record<string, string> = {
  DEBIT_CARD: 'debit-card',
  APPLE_PAY: 'apple-pay',
  WALLET_PAY: 'apple-pay',
};

/** POST /v3/orders/quote/partner: the same quote a reservation would lock, not stored. */
export async function partnerQuote(ctx: OrdersDeps, scope: Scope, body: PartnerQuoteBody): Promise<Quote> {
  const given = [body.sourceAmount, body.destAmount].filter((value) => value !== undefined).length;
  if (given === 2) throw orderErrors.bothAmounts();
  if (given === 1 && body.amount !== undefined) throw orderErrors.amountWithLockedAmount();
  if (given === 0 && body.amount === undefined) throw orderErrors.amountRequired();
  const side = body.destAmount !== undefined ? 'dest' : 'source';
  const field =
    body.destAmount !== undefined
      ? 'destAmount'
      : body.sourceAmount !== undefined
        ? 'sourceAmount'
        : 'amount';
  const raw = body.destAmount ?? body.sourceAmount ?? body.amount;
  const paymentMethod = body.paymentMethod ?? WALLET_TYPES[body.walletType ?? 'DEBIT_CARD']!;
  const { sourceCurrency, destCurrency } = body;
  await assertSellable(ctx, { paymentMethod, sourceCurrency, destCurrency });
  if (body.country !== undefined) {
    checkCountry(body.country);
    checkCurrencyForCountry(body.sourceCurrency, body.country);
  }
  if (body.dest !== undefined) await checkDest(ctx, scope, body.dest, body.destCurrency);
  if (body.accountId !== undefined) await checkReferrer(ctx, scope, body.accountId, 'accountId');
  const currency = side === 'dest' ? body.destCurrency : body.sourceCurrency;
  const value: Money = parsePositiveAmount(raw, field, currency);
  const priced = await quote(ctx, {
    sourceCurrency: body.sourceCurrency,
    destCurrency: body.destCurrency,
    paymentMethod,
    amountIncludeFees: body.amountIncludeFees ?? false,
    amount: { side, value, field },
  });
  return priced.quote;
}

/** A reservation as the hosted checkout page sees it (no caller: the id is the capability). */
export interface CheckoutReservation {
  view: ReservationView;
  partnerId: string;
  /** The account that made it: the scope its card order consumes it in. */
  ownerAccountId: string;
  /** The checkout link's `accountId`: referrerAccountId, else the account that made it. */
  linkAccountId: string;
  used: boolean;
  expired: boolean;
}

export async function reservationForCheckout(
  ctx: OrdersDeps,
  id: string,
): Promise<CheckoutReservation | undefined> {
  const row = await findReservationById(ctx.db, id);
  if (!row) return undefined;
  return {
    view: reservationView(row),
    partnerId: row.partner_id,
    ownerAccountId: row.account_id,
    linkAccountId: row.request.referrerAccountId ?? row.account_id,
    used: row.used,
    expired: row.expires_at.getTime() <= ctx.clock.nowMs(),
  };
}
