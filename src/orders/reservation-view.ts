import { Money } from '../platform/money.ts';
import type { Quote } from '../pricing/index.ts';
import type { ReservationRow, UsableReservationRow } from './store.ts';

const decimal = (text: string | null) => (text === null ? null : new Money(text));
const decimals = (map: Record<string, string> | null) =>
  Object.fromEntries(Object.entries(map ?? {}).map(([code, text]) => [code, new Money(text)]));

/**
 * Reads a stored decimal map's entries as Money when first used, caching each in the proxy's
 * target. The proxy reports the stored map's keys, so enumerating, `in`, Object.hasOwn and the
 * JSON writer see every entry.
 */
class LazyDecimals implements ProxyHandler<Record<string, Money>> {
  constructor(private readonly texts: Record<string, string>) {}

  private stored(code: string | symbol): code is string {
    return typeof code === 'string' && Object.hasOwn(this.texts, code);
  }

  get(parsed: Record<string, Money>, code: string | symbol): Money | undefined {
    if (!this.stored(code)) return undefined;
    parsed[code] ??= new Money(this.texts[code]!);
    return parsed[code];
  }

  has(_parsed: Record<string, Money>, code: string | symbol): boolean {
    return this.stored(code);
  }

  ownKeys(): string[] {
    return Object.keys(this.texts);
  }

  getOwnPropertyDescriptor(
    parsed: Record<string, Money>,
    code: string | symbol,
  ): PropertyDescriptor | undefined {
    if (!this.stored(code)) return undefined;
    return { value: this.get(parsed, code), enumerable: true, configurable: true, writable: true };
  }
}

/**
 * The same map, each entry read as Money when first used. A locked quote carries two dozen
 * equivalencies and the card order that uses it reads one (USD): parsing them all, or defining a
 * getter per entry (a closure and a descriptor each, the object turned into a dictionary), costs
 * far more than the order needs; a proxy costs three objects.
 */
function lazyDecimals(map: Record<string, string> | null): Record<string, Money> {
  return new Proxy<Record<string, Money>>({}, new LazyDecimals(map ?? {}));
}

/** The locked quote exactly as stored: it is never recomputed (docs/contract.md, Reservations and quotes). */
export function storedQuote(row: UsableReservationRow): Quote | null {
  if (!row.quote_locked) return null;
  return {
    sourceCurrency: row.source_currency!,
    sourceAmount: new Money(row.source_amount!),
    sourceAmountWithoutFees: new Money(row.source_amount_without_fees!),
    destCurrency: row.dest_currency!,
    destAmount: new Money(row.dest_amount!),
    exchangeRate: new Money(row.exchange_rate!),
    equivalencies: lazyDecimals(row.equivalencies),
    fees: decimals(row.fees),
  };
}

/**
 * GET /v3/orders/reservation/{id} (docs/contract.md, Reservations and quotes): every request field; unset contact fields read
 * as "" and every other unset field as null (docs/contract.md, decision 9); lockFields as [] when none.
 */
export function reservationView(row: ReservationRow) {
  const r = row.request;
  return {
    reservation: row.id,
    amount: decimal(r.amount),
    sourceAmount: decimal(r.sourceAmount),
    destAmount: decimal(r.destAmount),
    amountIncludeFees: r.amountIncludeFees,
    sourceCurrency: r.sourceCurrency,
    destCurrency: r.destCurrency,
    dest: r.dest,
    referrerAccountId: r.referrerAccountId,
    paymentMethod: r.paymentMethod,
    country: r.country,
    street1: r.street1,
    city: r.city,
    state: r.state,
    postalCode: r.postalCode,
    firstName: r.firstName ?? '',
    lastName: r.lastName ?? '',
    phone: r.phone ?? '',
    email: r.email ?? '',
    redirectUrl: r.redirectUrl,
    failureRedirectUrl: r.failureRedirectUrl,
    autoRedirect: r.autoRedirect,
    referenceId: r.referenceId,
    hideTrackBtn: r.hideTrackBtn,
    lockFields: r.lockFields,
    quoteLockRequest: row.quote_locked,
    quote: storedQuote(row),
    createdAt: row.created_at.getTime(),
    expiresAt: row.expires_at.getTime(),
  };
}

export type ReservationView = ReturnType<typeof reservationView>;
