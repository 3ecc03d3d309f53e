import type { ReservationView } from '../orders/index.ts';
import { currencyScale, type Money } from '../platform/money.ts';

/** The reservation fields the page shows and a merchant may lock (the lockable list of docs/contract.md, Reservations and quotes). */
export const PAGE_FIELDS = [
  'amount',
  'sourceCurrency',
  'destCurrency',
  'dest',
  'firstName',
  'lastName',
  'email',
  'phone',
  'street1',
  'city',
  'state',
  'postalCode',
  'country',
] as const;
export type FieldName = (typeof PAGE_FIELDS)[number];

/** The fields the buyer cannot change, each with its value in the reservation. */
export function lockedFieldsOf(view: ReservationView): ReadonlySet<FieldName> {
  const locked = new Set<FieldName>();
  for (const field of PAGE_FIELDS) {
    // A locked field the partner left empty is for the buyer to fill in.
    if (!hasValue(view, field)) continue;
    if (view.lockFields.includes(field)) locked.add(field);
  }
  // A locked quote fixes what is bought and where it goes, whatever lockFields says.
  if (view.quote !== null)
    for (const field of ['sourceCurrency', 'destCurrency', 'dest'] as const) locked.add(field);
  return locked;
}

function hasValue(view: ReservationView, field: FieldName): boolean {
  const value = view[field];
  return value !== null && value !== '';
}

/** The reservation's value of a page field as text, '' when unset (prefills the form). */
export function reservationText(view: ReservationView, field: FieldName): string {
  const value = view[field];
  if (value === null) return '';
  return typeof value === 'string' ? value : value.toFixed();
}

/** Exact, with cents written out for currencies that have them: 3.2 USD reads "3.20 USD". */
export function displayAmount(amount: Money, currency: string): string {
  return amount.toFixed(Math.max(amount.decimalPlaces(), Math.min(currencyScale(currency), 2)));
}
