import {
  type AuthorizationStep,
  type AuthorizeRequest,
  authorizedStep,
  type CardBrand,
  cardAuthorization,
  cardErrors,
  cardFingerprint,
  checkCard,
  lookupBin,
} from '../cards/index.ts';
import type { Scope } from '../identity/index.ts';
import {
  addressSpendKey,
  type BillingAddress,
  checkBillingAddress,
  type OrderSpend,
  recordSpends,
  tierOfUser,
} from '../limits/index.ts';
import {
  type ConsumedReservation,
  checkCurrencyForCountry,
  checkDest,
  checkReferrer,
  useReservation,
} from '../orders/index.ts';
import { batched, type TransactionSteps } from '../platform/db/grouped-transactions.ts';
import { ApiError } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import { Money, roundPayout } from '../platform/money.ts';
import { quote as priceQuote, type Quote } from '../pricing/index.ts';
import { authorizationStep } from './authorization.ts';
import type { WalletOrdersDeps } from './deps.ts';
import { walletOrderErrors } from './errors.ts';
import { jobsOfNewOrders } from './jobs.ts';
import { cardHoldArguments } from './ledger.ts';
import type { PreparedOrder, WalletOrderRequest } from './request.ts';
import { insertOrders, type NewOrder, type NewOrderWrite } from './store.ts';
import { walletOrderView } from './view.ts';

/**
 * The checks that need no reservation; the reservation itself is read by the order's transaction
 * as it uses it (storeWalletOrder), so a rate-locked order reads it once, not twice.
 */
export async function prepareWalletOrder(
  ctx: WalletOrdersDeps,
  scope: Scope,
  request: WalletOrderRequest,
): Promise<PreparedOrder> {
  const card = checkCard(request.debitCard, ctx.clock.nowMs());
  const address = checkBillingAddress(request.address);
  checkCurrencyForCountry(request.sourceCurrency, address.country);
  await checkReferrer(ctx, scope, request.referrerAccountId);
  const ownerUserId = request.owner?.slice('user:'.length);
  const tier = await tierOfUser(ctx.db, scope.partnerId, ownerUserId, 'owner');
  const fingerprint = cardFingerprint(ctx.config.masterKey, card.pan);
  const spendKeys = [addressSpendKey(address), `card:${fingerprint}`];
  if (ownerUserId) spendKeys.push(`user:${ownerUserId}`);
  const orderId = newId('WO');
  const prepared = { scope, request, card, address, tier, ownerUserId, fingerprint, spendKeys, orderId };
  return withProcessorToken(ctx, prepared);
}

/**
 * A remote processor's token for the card, asked for last, once every check of ours passed and
 * before the order's transaction opens (docs/contract.md decision 100): no money moves.
 */
export async function withProcessorToken(ctx: WalletOrdersDeps, prepared: PreparedOrder) {
  const prepare = ctx.cardProcessor.prepare;
  if (!prepare) return prepared;
  const { request, address, card } = prepared;
  const billing = {
    name: `${request.givenName} ${request.familyName}`,
    email: request.email,
    phone: request.phone,
    street1: address.street1,
    city: address.city,
    state: address.state,
    postalCode: address.postalCode,
    country: address.country,
  };
  return { ...prepared, processorToken: await prepare.call(ctx.cardProcessor, card, billing) };
}

/**
 * Thrown inside the order's transaction (which rolls back: the reservation stays unused) when
 * the reservation locked no rate and no quote was made yet: quoting reads prices and fees through
 * the pool, which a transaction holding a pooled connection must not wait for.
 */
class QuoteNeeded extends Error {
  constructor(readonly reservation: ConsumedReservation) {
    super('the reservation locked no rate: quote outside the transaction, then try again');
  }
}

/**
 * Runs the order's transaction (`attempt`, which calls storeWalletOrder); when that found the
 * reservation unlocked, quotes `amount` outside any transaction and runs it once more. The
 * second attempt uses the reservation again as if the first had never happened.
 */
export async function placeWalletOrder<T>(
  ctx: WalletOrdersDeps,
  prepared: PreparedOrder,
  attempt: (prepared: PreparedOrder) => Promise<T>,
): Promise<T> {
  try {
    return await attempt(prepared);
  } catch (error) {
    if (!(error instanceof QuoteNeeded) || prepared.unlockedQuote) throw error;
    const quote = await unlockedQuote(ctx, prepared.scope, error.reservation, prepared.request);
    return attempt({ ...prepared, unlockedQuote: quote });
  }
}

/**
 * The order's quote from the reservation it just used: the locked one, whose sourceAmount
 * `amount` must equal (docs/contract.md, decision 3), or for an unlocked reservation the fresh quote of
 * `amount` as the total charged. Fields the reservation fixed must not differ.
 */
function orderQuote(reservation: ConsumedReservation, prepared: PreparedOrder): Quote {
  const { request, address } = prepared;
  checkFixedFields(reservation, request, address);
  const locked = reservation.quote;
  if (locked === null) {
    if (!prepared.unlockedQuote) throw new QuoteNeeded(reservation);
    return prepared.unlockedQuote;
  }
  if (!request.amount.eq(locked.sourceAmount)) {
    throw walletOrderErrors.amountMismatch(locked.sourceAmount.toFixed(), locked.sourceCurrency);
  }
  return locked;
}

/** A rate-locked reservation fixes currencies and dest; lockFields fix whatever they name. */
function checkFixedFields(
  reservation: ConsumedReservation,
  request: WalletOrderRequest,
  address: BillingAddress,
): void {
  const stored = reservation.request;
  const fixed = new Set(stored.lockFields);
  if (reservation.quote !== null)
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
    const expected = stored[field as keyof typeof stored];
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
  ctx: WalletOrdersDeps,
  scope: Scope,
  reservation: ConsumedReservation,
  request: WalletOrderRequest,
): Promise<Quote> {
  await checkDest(ctx, scope, request.dest, request.destCurrency);
  const paymentMethod = request.walletType === 'APPLE_PAY' ? 'apple-pay' : 'debit-card';
  const base = { sourceCurrency: request.sourceCurrency, destCurrency: request.destCurrency, paymentMethod };
  const lockedAmount = reservation.request.amount;
  if (reservation.request.lockFields.includes('amount') && lockedAmount !== null) {
    const locked = await priceQuote(ctx, {
      ...base,
      amountIncludeFees: false,
      amount: { side: 'source', value: new Money(lockedAmount), field: 'amount' },
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

/** The charged amount in USD at the order's own rate (docs/contract.md, decision 13), cents rounded down. */
function amountUsd(quote: Quote): Money {
  if (quote.sourceCurrency === 'USD') return quote.sourceAmount;
  const usd = quote.equivalencies.USD;
  if (!usd) throw new Error(`quote without a USD equivalency for ${quote.sourceCurrency}`);
  return roundPayout(usd, 'USD');
}

/**
 * An order between its checks and its insert: the reservation it uses, the quote it takes, and
 * what the limits, the card processor and the insert need of it.
 */
interface OrderDraft {
  prepared: PreparedOrder;
  reservation: ConsumedReservation;
  quote: Quote;
  orderId: string;
  brand: CardBrand;
  amountUsd: Money;
  nowMs: number;
}

/**
 * The order's quote from the reservation it uses (orderQuote: a locked one must match), a card
 * brand we take and its USD amount. Throws what refuses the order.
 */
function draftOrder(
  ctx: WalletOrdersDeps,
  prepared: PreparedOrder,
  reservation: ConsumedReservation,
): OrderDraft {
  const quote = orderQuote(reservation, prepared);
  const bin = lookupBin(prepared.card.pan);
  if (!bin) throw cardErrors.unsupportedBrand();
  return {
    prepared,
    reservation,
    quote,
    orderId: prepared.orderId,
    brand: bin.brand,
    amountUsd: amountUsd(quote),
    nowMs: ctx.clock.nowMs(),
  };
}

function spendOf({ prepared, orderId, amountUsd }: OrderDraft): OrderSpend {
  const { scope, address, tier, spendKeys } = prepared;
  return {
    orderId,
    amountUsd,
    subject: { partnerId: scope.partnerId, country: address.country, tier },
    keys: spendKeys,
  };
}

function cardAuthorizationOf({ prepared, orderId, quote, nowMs }: OrderDraft): AuthorizeRequest {
  return {
    orderId,
    card: prepared.card,
    fingerprint: prepared.fingerprint,
    amount: quote.sourceAmount,
    currency: quote.sourceCurrency,
    billing: prepared.address,
    nowMs,
    ...(prepared.processorToken === undefined ? {} : { token: prepared.processorToken }),
    force3ds: prepared.request.trigger3ds === true,
  };
}

/**
 * The order's row, its card hold (ledger_place_holds' arguments) and the authorization step the
 * issuer asked for (or the partner, trigger3ds), if any; an order without one is cleared, and
 * insertOrders queues the processing job of the orders it clears together.
 */
function orderWrite(ctx: WalletOrdersDeps, draft: OrderDraft, step: AuthorizationStep): NewOrderWrite {
  const { prepared, reservation, quote, orderId, nowMs } = draft;
  const { scope, request, card, address } = prepared;
  // A remote processor is asked after COMMIT, with the partner's trigger3ds (decision 101).
  const needed = request.trigger3ds && step !== 'PROCESSOR' ? '3DS' : step;
  const authorization = needed === 'NONE' ? undefined : authorizationStep(ctx, orderId, needed);
  const accountId = reservation.request.referrerAccountId ?? reservation.accountId;
  const order: NewOrder = {
    id: orderId,
    partner_id: scope.partnerId,
    account_id: accountId,
    reservation_id: reservation.id,
    owner: request.owner ?? `account:${accountId}`,
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
    amount_usd: draft.amountUsd.toFixed(),
    dest: request.dest,
    email: request.email,
    given_name: request.givenName,
    family_name: request.familyName,
    phone: request.phone,
    reference_id: request.referenceId ?? null,
    ip_address: request.ipAddress,
    billing_address: { ...address },
    card_brand: draft.brand,
    card_bin: card.bin,
    card_last4: card.last4,
    card_fingerprint: prepared.fingerprint,
  };
  const hold = cardHoldArguments(ctx.cardProcessor, orderId, quote.sourceCurrency, quote.sourceAmount, nowMs);
  return authorization ? { order, hold, step: authorization } : { order, hold };
}

/** A new order's write and its creation time, as the insert step takes it. */
interface OrderInsert {
  write: NewOrderWrite;
  nowMs: number;
}

/**
 * insertOrders as the last step of a card order's write path: the orders inserted together
 * share their processing job (jobsOfNewOrders) and the first one's creation time.
 */
const insertOrder = batched('walletOrders.insert', (q, inserts: OrderInsert[]) => {
  const writes = inserts.map(({ write }) => write);
  return insertOrders(q, writes, jobsOfNewOrders(writes), inserts[0]!.nowMs);
});

/**
 * The card order's one write path, as if alone: in its transaction, use the reservation (once)
 * and take its quote (draftOrder), check and record the limits spend, authorise the card, then
 * insert the order with its ledger hold and either its processing job or the authorization step
 * the issuer asked for. Any refusal rolls all of it back: the reservation stays usable, no spend
 * counts, no hold is left. Run it through placeWalletOrder, which quotes an unlocked reservation.
 * Each step is a batched one, so orders placed together (order-groups.ts) run this same code, a
 * statement per step for the whole group.
 *
 * The ledger hold is placed last, inside the order's own insert (one statement that also writes
 * the step and the job and answers the row, no re-read): it moves a stripe of the
 * `external:card` balance (migration 014), whose lock is held from there to COMMIT.
 */
export async function storeWalletOrder(
  ctx: WalletOrdersDeps,
  steps: TransactionSteps,
  prepared: PreparedOrder,
) {
  const { scope, request } = prepared;
  const reservation = await steps.run(useReservation, { ctx, scope, id: request.reservationId });
  if (reservation instanceof ApiError) throw reservation;
  const draft = draftOrder(ctx, prepared, reservation);
  const overLimit = await steps.run(recordSpends, { ctx, spend: spendOf(draft) });
  if (overLimit !== undefined) throw overLimit;
  const answer = await steps.run(cardAuthorization, { ctx, request: cardAuthorizationOf(draft) });
  const write = orderWrite(ctx, draft, authorizedStep(answer, steps.grouped));
  return walletOrderView(await steps.run(insertOrder, { write, nowMs: draft.nowMs }));
}
