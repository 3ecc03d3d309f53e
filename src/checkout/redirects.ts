import { Money } from '../platform/money.ts';

/** Where the page may send the buyer when the order ends; null: stay and show the outcome. */
export interface RedirectTargets {
  success: string | null;
  failure: string | null;
}

export type RedirectCheck = { ok: true; targets: RedirectTargets } | { ok: false; field: string };

const MAX_URL_LENGTH = 2048;

/** http(s), no credentials, bounded: never `javascript:`, `data:` or any other scheme. */
function isSafeRedirect(value: string): boolean {
  if (value.length > MAX_URL_LENGTH) return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && !url.username && !url.password;
}

/**
 * Redirect targets come from the reservation only: the partner stored them through its signed
 * POST /v3/orders/reserve. The link repeats them; a link whose value differs from the stored one
 * (or names one where none was stored) was altered by someone other than the partner, so the page
 * refuses it rather than become an open redirect.
 */
export function resolveRedirects(
  stored: { redirectUrl: string | null; failureRedirectUrl: string | null },
  given: { redirectUrl?: string | undefined; failureRedirectUrl?: string | undefined },
): RedirectCheck {
  const success = pick(stored.redirectUrl, given.redirectUrl);
  if (success === false) return { ok: false, field: 'redirectUrl' };
  const failure = pick(stored.failureRedirectUrl, given.failureRedirectUrl);
  if (failure === false) return { ok: false, field: 'failureRedirectUrl' };
  return { ok: true, targets: { success, failure } };
}

function pick(stored: string | null, given: string | undefined): string | null | false {
  if (given !== undefined && given !== stored) return false;
  // Checked again on the way out, although reservations only store http(s) URLs.
  if (stored !== null && !isSafeRedirect(stored)) return false;
  return stored;
}

export interface CompletedOrder {
  orderId: string;
  transferId: string | null;
  accountId: string;
  dest: string;
  destAmount: Money;
  fees: Money;
}

/** docs/contract.md, Hosted pages: the success URL with the order's values appended, as Wyre did. */
export function successRedirect(base: string, order: CompletedOrder): string {
  const url = new URL(base);
  url.searchParams.set('orderId', order.orderId);
  url.searchParams.set('transferId', order.transferId ?? '');
  url.searchParams.set('accountId', order.accountId);
  url.searchParams.set('dest', order.dest);
  url.searchParams.set('destAmount', order.destAmount.toFixed());
  url.searchParams.set('fees', order.fees.toFixed());
  return url.toString();
}

/** The failure URL with the order id when there is one, so the partner can look the order up. */
export function failureRedirect(base: string, orderId: string | null): string {
  const url = new URL(base);
  if (orderId !== null) url.searchParams.set('orderId', orderId);
  return url.toString();
}

export const toMoney = (value: unknown): Money => new Money(String(value));
