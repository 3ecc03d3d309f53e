import { type CheckoutReservation, reservationForCheckout } from '../orders/index.ts';
import { ApiError, fieldRequired } from '../platform/errors.ts';
import { type Money, parsePositiveAmount } from '../platform/money.ts';
import { feeScheduleView, type Quote, quote } from '../pricing/index.ts';
import { trackTransfer } from '../transfers/index.ts';
import {
  authorizationState,
  placePreparedOrder,
  prepareHostedOrder,
  readWalletOrder,
  submitAuthorizationCodes,
  type WalletOrderRequest,
  type WalletOrdersDeps,
  type WalletOrderView,
} from '../wallet-orders/index.ts';
import { fill, messages } from '../web/index.ts';
import { chargeCountingAttempts, spentByDeclines } from './attempts.ts';
import { type Branding, brandingOf } from './branding.ts';
import { checkoutErrors } from './errors.ts';
import { type FieldName, lockedFieldsOf } from './fields.ts';
import { displayAmount, feeBreakdown, feeLineText, moneyText } from './format.ts';
import { orderToken, orderTokenValid } from './order-token.ts';
import {
  failureRedirect,
  type RedirectTargets,
  resolveRedirects,
  successRedirect,
  toMoney,
} from './redirects.ts';

/** What GET /purchase was called with (docs/contract.md, Hosted pages), plus the 3-D Secure return. */
export interface CheckoutLink {
  accountId: string;
  reservation: string;
  redirectUrl?: string | undefined;
  failureRedirectUrl?: string | undefined;
  /** Set when the buyer comes back from the 3-D Secure issuer page to follow the order. */
  order?: string | undefined;
  orderToken?: string | undefined;
}

export interface FormModel {
  kind: 'form';
  reservation: CheckoutReservation;
  accountId: string;
  expiresInMs: number;
  /** The rate-locked quote, or null: the buyer picks an amount. */
  quote: Quote | null;
  locked: ReadonlySet<FieldName>;
  redirects: RedirectTargets;
  sourceCurrencies: string[];
  destCurrencies: string[];
  branding: Branding;
}

/** A link that can no longer be used, with the partner's page to go back to. */
export interface EndedModel {
  kind: 'ended';
  reason: 'expired' | 'used' | 'spent';
  branding: Branding;
  returnUrl: string | null;
}

export interface ProgressModel {
  kind: 'progress';
  reservation: string;
  accountId: string;
  orderId: string;
  orderToken: string;
  branding: Branding;
}

/** The reservation behind a link, refused for people: unknown, someone else's, used or expired. */
async function linkedReservation(ctx: WalletOrdersDeps, accountId: string, id: string) {
  const found = await reservationForCheckout(ctx, id);
  if (!found || found.linkAccountId !== accountId) throw checkoutErrors.unknownReservation();
  return found;
}

function redirectsOf(found: CheckoutReservation, link?: Partial<CheckoutLink>): RedirectTargets {
  const check = resolveRedirects(found.view, link ?? {});
  if (!check.ok) throw checkoutErrors.alteredRedirect(check.field);
  return check.targets;
}

/** GET /purchase: the form for a usable reservation, or progress for an order made from it. */
export async function openCheckout(
  ctx: WalletOrdersDeps,
  link: CheckoutLink,
): Promise<FormModel | ProgressModel | EndedModel> {
  const found = await linkedReservation(ctx, link.accountId, link.reservation);
  const redirects = redirectsOf(found, link);
  const branding = await brandingOf(ctx.db, found.partnerId);
  if (link.order !== undefined || link.orderToken !== undefined) {
    const valid =
      link.order !== undefined &&
      link.orderToken !== undefined &&
      orderTokenValid(ctx.config.masterKey, link.order, found.view.reservation, link.orderToken);
    if (!valid) throw checkoutErrors.unknownOrder();
    return {
      kind: 'progress',
      reservation: found.view.reservation,
      accountId: link.accountId,
      orderId: link.order!,
      orderToken: link.orderToken!,
      branding,
    };
  }
  // A dead end still shows the way back: the partner's failure page, else its success page.
  const returnUrl = redirects.failure ?? redirects.success;
  if (found.used) {
    const spent = await spentByDeclines(ctx, found.view.reservation);
    return { kind: 'ended', reason: spent ? 'spent' : 'used', branding, returnUrl };
  }
  if (found.expired) return { kind: 'ended', reason: 'expired', branding, returnUrl };
  const schedule = await feeScheduleView(ctx);
  const method = found.view.paymentMethod ?? 'debit-card';
  return {
    kind: 'form',
    reservation: found,
    accountId: link.accountId,
    expiresInMs: found.view.expiresAt - ctx.clock.nowMs(),
    quote: found.view.quote,
    locked: lockedFieldsOf(found.view),
    redirects,
    sourceCurrencies: Object.keys(schedule.methods[method] ?? {}),
    destCurrencies: Object.keys(schedule.networkFees),
    branding,
  };
}

/** For the page's JSON calls: Wyre's illegalReservation for anything that cannot be used now. */
async function usableReservation(ctx: WalletOrdersDeps, accountId: string, id: string) {
  const found = await reservationForCheckout(ctx, id);
  if (!found || found.linkAccountId !== accountId || found.used || found.expired) {
    throw checkoutErrors.illegalReservation();
  }
  return found;
}

export interface QuoteCall {
  accountId: string;
  reservation: string;
  amount?: unknown;
  sourceCurrency: string;
  destCurrency: string;
}

/**
 * POST /purchase/quote: the price of what the buyer picked on an unlocked reservation, from the
 * one quote function; a rate-locked reservation answers its stored quote (never recomputed).
 * Fields the reservation locks keep the reservation's values.
 */
export async function checkoutQuote(ctx: WalletOrdersDeps, call: QuoteCall): Promise<Quote> {
  const found = await usableReservation(ctx, call.accountId, call.reservation);
  if (found.view.quote) return found.view.quote;
  const locked = lockedFieldsOf(found.view);
  const view = found.view;
  const amount = locked.has('amount')
    ? view.amount!
    : parsePositiveAmount(call.amount, 'amount', call.sourceCurrency);
  for (const field of ['sourceCurrency', 'destCurrency'] as const) {
    if (locked.has(field) && call[field] !== view[field]) throw checkoutErrors.fieldLocked(field);
  }
  const priced = await quote(ctx, {
    sourceCurrency: call.sourceCurrency,
    destCurrency: call.destCurrency,
    paymentMethod: view.paymentMethod ?? 'debit-card',
    amountIncludeFees: view.amountIncludeFees ?? false,
    amount: { side: 'source', value: amount, field: 'amount' },
  });
  return priced.quote;
}

/**
 * POST /purchase/orders: the same order flow as POST /v3/debitcard/process/partner, on behalf of
 * the partner whose reservation this is. The reservation id is the capability; the link's
 * account (the body's referrerAccountId) must be the reservation's. The order service checks the
 * rest exactly as for the partner API: locked fields, the locked quote's amount, card, limits.
 * The card attempt is counted against the caps on card testing, and a decline is answered
 * without its reason (attempts.ts).
 */
export async function placeOrder(ctx: WalletOrdersDeps, request: WalletOrderRequest) {
  const found = await usableReservation(ctx, request.referrerAccountId, request.reservationId);
  const prepared = await prepareHostedOrder(ctx, found.ownerAccountId, request);
  const attempt = {
    reservationId: found.view.reservation,
    partnerId: found.partnerId,
    fingerprint: prepared.fingerprint,
    ip: request.ipAddress,
  };
  const order = await chargeCountingAttempts(ctx, attempt, () => placePreparedOrder(ctx, prepared));
  return {
    orderId: order.id,
    status: order.status,
    orderToken: orderToken(ctx.config.masterKey, order.id, found.view.reservation),
  };
}

export interface OrderCall {
  accountId: string;
  reservation: string;
  orderId: string;
  orderToken: string;
}

/** The order behind a page call; a wrong token reads exactly like an unknown order. */
async function pageOrder(ctx: WalletOrdersDeps, call: OrderCall) {
  const found = await linkedReservation(ctx, call.accountId, call.reservation).catch((error: unknown) => {
    throw error instanceof ApiError ? checkoutErrors.unknownOrder() : error;
  });
  if (!orderTokenValid(ctx.config.masterKey, call.orderId, call.reservation, call.orderToken)) {
    throw checkoutErrors.unknownOrder();
  }
  return found;
}

export interface NextStep {
  smsNeeded: boolean;
  card2faNeeded: boolean;
  /** Same-origin path of the issuer's 3-D Secure page, with our return address. */
  threeDsPath: string | null;
}

/** GET /purchase/orders/{id}: progress for the page, with the receipt and the way back once it ends. */
export async function orderProgress(ctx: WalletOrdersDeps, call: OrderCall) {
  const found = await pageOrder(ctx, call);
  const order = await readWalletOrder(ctx, call.orderId);
  const targets = redirectsOf(found);
  const next = order.status === 'RUNNING_CHECKS' ? await nextStep(ctx, call) : null;
  const redirectTo = redirectFor(order, targets, call.accountId);
  return {
    orderId: order.id,
    status: order.status,
    errorMessage: (order.errorMessage as string | null | undefined) ?? null,
    destAmount:
      order.destAmount === null || order.destAmount === undefined
        ? null
        : toMoney(order.destAmount).toFixed(),
    destCurrency: (order.destCurrency as string | null | undefined) ?? null,
    next,
    redirectTo,
    returnUrl: order.status === 'COMPLETE' || order.status === 'FAILED' ? redirectTo : null,
    receipt: order.status === 'COMPLETE' ? await receiptOf(ctx, order) : null,
  };
}

/**
 * What the buyer keeps of a completed order: its id, what was paid and received at display
 * precision, the wallet, and the chain transaction with its explorer page when both are known.
 */
async function receiptOf(ctx: WalletOrdersDeps, order: WalletOrderView) {
  const sourceCurrency = String(order.sourceCurrency);
  const destCurrency = String(order.destCurrency);
  const transferId = (order.transferId as string | null | undefined) ?? null;
  const hash = transferId
    ? await trackTransfer(ctx.db, transferId).then(
        (tracked) => tracked.blockchainNetworkTx,
        () => null,
      )
    : null;
  const dest = String(order.dest);
  const network = dest.includes(':') ? dest.slice(0, dest.indexOf(':')).toLowerCase() : '';
  const template = Object.hasOwn(ctx.config.explorerTxUrls, network)
    ? ctx.config.explorerTxUrls[network]
    : undefined;
  return {
    orderId: order.id,
    paid: moneyText(toMoney(order.sourceAmount), sourceCurrency),
    fees: moneyText(feesOf(order), sourceCurrency),
    received: moneyText(toMoney(order.destAmount), destCurrency),
    dest: dest.includes(':') ? dest.slice(dest.indexOf(':') + 1) : dest,
    transactionHash: hash,
    explorerUrl: hash && template ? template.replace('{hash}', encodeURIComponent(hash)) : null,
  };
}

async function nextStep(ctx: WalletOrdersDeps, call: OrderCall): Promise<NextStep | null> {
  // Only meaningful while codes are pending; the order service refuses it otherwise.
  const state = await authorizationState(ctx, call.orderId).catch((error: unknown) => {
    if (error instanceof ApiError && error.status < 500) return null;
    throw error;
  });
  if (!state || (!state.smsNeeded && !state.card2faNeeded && !state.authorization3dsUrl)) return null;
  return {
    smsNeeded: state.smsNeeded,
    card2faNeeded: state.card2faNeeded,
    threeDsPath: state.authorization3dsUrl ? threeDsPath(state.authorization3dsUrl, call) : null,
  };
}

/**
 * The issuer page is ours (simulated), so only its path and query are kept: the buyer never
 * leaves our origin through it, whatever host the URL names. It sends the buyer back to this
 * page, which follows the order again.
 */
function threeDsPath(issuerUrl: string, call: OrderCall): string {
  const issuer = new URL(issuerUrl, 'http://localhost');
  const back = new URLSearchParams({
    accountId: call.accountId,
    reservation: call.reservation,
    order: call.orderId,
    orderToken: call.orderToken,
  });
  issuer.searchParams.set('returnUrl', `/purchase?${back}`);
  return `${issuer.pathname}${issuer.search}`;
}

function redirectFor(order: WalletOrderView, targets: RedirectTargets, accountId: string): string | null {
  if (order.status === 'COMPLETE' && targets.success !== null) {
    return successRedirect(targets.success, {
      orderId: order.id,
      transferId: (order.transferId as string | null | undefined) ?? null,
      accountId,
      dest: String(order.dest),
      destAmount: toMoney(order.destAmount),
      fees: feesOf(order),
    });
  }
  if (order.status === 'FAILED' && targets.failure !== null)
    return failureRedirect(targets.failure, order.id);
  return null;
}

/** Everything charged beyond the purchase itself, in the source currency. */
function feesOf(order: WalletOrderView): Money {
  return toMoney(order.sourceAmount).minus(toMoney(order.purchaseAmount));
}

export interface CodesCall extends OrderCall {
  type: 'SMS' | 'CARD2FA' | 'ALL';
  sms?: string | undefined;
  card2fa?: string | undefined;
}

/** POST /purchase/orders/{id}/codes: the buyer's SMS / CARD2FA codes, as the partner API takes them. */
export async function submitCodes(ctx: WalletOrdersDeps, call: CodesCall) {
  if (call.type !== 'CARD2FA' && call.sms === undefined) throw fieldRequired('sms');
  if (call.type !== 'SMS' && call.card2fa === undefined) throw fieldRequired('card2fa');
  await pageOrder(ctx, call);
  return submitAuthorizationCodes(ctx, {
    type: call.type,
    walletOrderId: call.orderId,
    reservation: call.reservation,
    ...(call.sms !== undefined ? { sms: call.sms } : {}),
    ...(call.card2fa !== undefined ? { card2fa: call.card2fa } : {}),
  });
}

/**
 * A quote for the page's script: every amount as exact decimal text (what the order must repeat),
 * and what the page shows: amounts at display precision and the fee breakdown that adds up to
 * the charge (format.ts).
 */
export function quoteText(quote: Quote) {
  const exact = (map: Record<string, Money>) =>
    Object.fromEntries(Object.entries(map).map(([code, amount]) => [code, amount.toFixed()]));
  const breakdown = feeBreakdown(quote);
  return {
    sourceCurrency: quote.sourceCurrency,
    sourceAmount: quote.sourceAmount.toFixed(),
    sourceAmountWithoutFees: quote.sourceAmountWithoutFees.toFixed(),
    destCurrency: quote.destCurrency,
    destAmount: quote.destAmount.toFixed(),
    exchangeRate: quote.exchangeRate.toFixed(),
    fees: exact(quote.fees),
    display: {
      destAmount: moneyText(quote.destAmount, quote.destCurrency),
      rate: fill(messages.checkout.rateText, {
        source: quote.sourceCurrency,
        rate: displayAmount(quote.exchangeRate, quote.destCurrency),
        dest: quote.destCurrency,
      }),
      lines: breakdown.lines.map((line) => ({
        key: line.key,
        text: feeLineText(line.amount, breakdown.currency),
      })),
      networkFeeNative: breakdown.networkFeeNative
        ? fill(messages.checkout.networkFeeNative, {
            amount: moneyText(breakdown.networkFeeNative.amount, breakdown.networkFeeNative.currency),
          })
        : null,
      total: feeLineText(breakdown.total, breakdown.currency),
    },
  };
}
