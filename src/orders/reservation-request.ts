import type { Scope } from '../identity/index.ts';
import { fieldRequired } from '../platform/errors.ts';
import { type Money, parsePositiveAmount } from '../platform/money.ts';
import { assertSellableBy, type FeeSchedule, type QuoteInput } from '../pricing/index.ts';
import type { OrderRulesDeps } from './deps.ts';
import { orderErrors } from './errors.ts';
import { checkCountry, checkCurrencyForCountry, checkDest, checkReferrer } from './order-checks.ts';
import type { ReserveBody } from './schemas.ts';
import { LOCKABLE_FIELDS, RATE_LOCK_FIELDS } from './supported.ts';

/** The request fields as stored and read back (docs/contract.md, Reservations and quotes); amounts as exact decimal text. */
export interface StoredRequest {
  amount: string | null;
  sourceAmount: string | null;
  destAmount: string | null;
  amountIncludeFees: boolean | null;
  paymentMethod: string | null;
  sourceCurrency: string | null;
  destCurrency: string | null;
  dest: string | null;
  referrerAccountId: string | null;
  country: string | null;
  street1: string | null;
  city: string | null;
  state: string | null;
  postalCode: string | null;
  firstName: string | null;
  lastName: string | null;
  phone: string | null;
  email: string | null;
  redirectUrl: string | null;
  failureRedirectUrl: string | null;
  autoRedirect: boolean | null;
  referenceId: string | null;
  hideTrackBtn: boolean | null;
  lockFields: string[];
}

export interface ReservationRequest {
  stored: StoredRequest;
  /** Set for a rate-locked reservation (docs/contract.md, Reservations and quotes): what to quote. */
  lock: QuoteInput | undefined;
}

const PHONE = /^\+[1-9]\d{6,14}$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * The rules across fields of docs/contract.md (Reservations and quotes), decision 4 there, and every field's own check; what is sold
 * is checked against `schedule`, the one the quote will use.
 */
export async function readReserveRequest(
  ctx: OrderRulesDeps,
  scope: Scope,
  body: ReserveBody,
  schedule: FeeSchedule,
): Promise<ReservationRequest> {
  const locked = checkAmountRules(body);
  const { sourceCurrency, destCurrency, paymentMethod, country } = body;
  assertSellableBy(schedule, { paymentMethod, sourceCurrency, destCurrency });
  const amounts = {
    sourceAmount: optionalAmount(body.sourceAmount, 'sourceAmount', sourceCurrency),
    destAmount: optionalAmount(body.destAmount, 'destAmount', destCurrency),
    amount: optionalAmount(body.amount, 'amount', sourceCurrency ?? 'USD'),
  };
  if (country !== undefined) checkCountry(country);
  if (sourceCurrency !== undefined && country !== undefined) checkCurrencyForCountry(sourceCurrency, country);
  if (body.dest !== undefined) await checkDest(ctx, scope, body.dest, destCurrency);
  if (body.referrerAccountId !== undefined) await checkReferrer(ctx, scope, body.referrerAccountId);
  checkRedirect(body.redirectUrl, 'redirectUrl');
  checkRedirect(body.failureRedirectUrl, 'failureRedirectUrl');
  if (body.phone !== undefined && body.phone !== '' && !PHONE.test(body.phone)) throw orderErrors.phone();
  if (body.email !== undefined && body.email !== '' && !EMAIL.test(body.email)) throw orderErrors.email();
  const lockFields = checkLockFields(body.lockFields ?? []);
  const stored = storedRequest(body, amounts, lockFields);
  return { stored, lock: locked ? quoteInput(body, amounts) : undefined };
}

/** Which amount was given; throws for both, none, or a rate lock missing one of its fields. */
function checkAmountRules(body: ReserveBody): boolean {
  const hasSource = body.sourceAmount !== undefined;
  const hasDest = body.destAmount !== undefined;
  if (hasSource && hasDest) throw orderErrors.bothAmounts();
  if (body.amount !== undefined && (hasSource || hasDest)) throw orderErrors.amountWithLockedAmount();
  // Without any amount the buyer picks it on the hosted page, as Wyre allowed; the reservation
  // must still say whose checkout it is (docs/contract.md, decision 63).
  const open = !hasSource && !hasDest && body.amount === undefined;
  if (open && body.referrerAccountId === undefined) throw orderErrors.amountRequired();
  const locked = hasSource || hasDest;
  if (locked) {
    for (const field of RATE_LOCK_FIELDS) if (body[field] === undefined) throw fieldRequired(field);
  }
  return locked;
}

function optionalAmount(value: unknown, field: string, currency: string | undefined): Money | undefined {
  if (value === undefined) return undefined;
  return parsePositiveAmount(value, field, currency ?? 'USD');
}

/** http(s) only, so a hosted page can never be made to run `javascript:` or open `data:`. */
function checkRedirect(value: string | undefined, field: string): void {
  if (value === undefined) return;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw orderErrors.redirectUrl(field);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password) {
    throw orderErrors.redirectUrl(field);
  }
}

function checkLockFields(names: string[]): string[] {
  const seen = new Set<string>();
  for (const name of names) {
    if (!LOCKABLE_FIELDS.has(name)) throw orderErrors.lockField(name);
    if (seen.has(name)) throw orderErrors.lockFieldTwice(name);
    seen.add(name);
  }
  return names;
}

type Amounts = Record<'sourceAmount' | 'destAmount' | 'amount', Money | undefined>;

function quoteInput(body: ReserveBody, amounts: Amounts): QuoteInput {
  const side = amounts.sourceAmount ? 'source' : 'dest';
  return {
    sourceCurrency: body.sourceCurrency!,
    destCurrency: body.destCurrency!,
    paymentMethod: body.paymentMethod!,
    amountIncludeFees: body.amountIncludeFees!,
    amount: { side, value: (amounts.sourceAmount ?? amounts.destAmount)!, field: `${side}Amount` },
  };
}

function storedRequest(body: ReserveBody, amounts: Amounts, lockFields: string[]): StoredRequest {
  const text = (value: Money | undefined) => value?.toFixed() ?? null;
  return {
    amount: text(amounts.amount),
    sourceAmount: text(amounts.sourceAmount),
    destAmount: text(amounts.destAmount),
    amountIncludeFees: body.amountIncludeFees ?? null,
    paymentMethod: body.paymentMethod ?? null,
    sourceCurrency: body.sourceCurrency ?? null,
    destCurrency: body.destCurrency ?? null,
    dest: body.dest ?? null,
    referrerAccountId: body.referrerAccountId ?? null,
    country: body.country ?? null,
    street1: body.street1 ?? null,
    city: body.city ?? null,
    state: body.state ?? null,
    postalCode: body.postalCode ?? null,
    firstName: body.firstName ?? null,
    lastName: body.lastName ?? null,
    phone: body.phone ?? null,
    email: body.email ?? null,
    redirectUrl: body.redirectUrl ?? null,
    failureRedirectUrl: body.failureRedirectUrl ?? null,
    autoRedirect: body.autoRedirect ?? null,
    referenceId: body.referenceId ?? null,
    hideTrackBtn: body.hideTrackBtn ?? null,
    lockFields,
  };
}
