import { cardErrors } from './errors.ts';

/** The card as the customer typed it (docs/contract.md, Card orders `debitCard`). */
export interface CardInput {
  number: string;
  year: string;
  month: string;
  cvv: string;
}

/** A checked card. `pan` lives only in memory for the processor call: never logged or stored. */
export interface CheckedCard {
  pan: string;
  bin: string;
  last4: string;
  expYear: number;
  expMonth: number;
  cvv: string;
}

/** Luhn (ISO/IEC 7812-1) check digit: catches every single-digit typo and most transpositions. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/**
 * Format checks a processor would make before anything is charged: 13-19 digits with a valid
 * check digit, a four-digit year (Wyre refuses "23"), month 01-12, not expired by the service
 * clock (a card is valid through the last day of its expiry month, UTC), three-digit CVV.
 */
export function checkCard(input: CardInput, nowMs: number): CheckedCard {
  if (!/^\d{13,19}$/.test(input.number) || !luhnValid(input.number)) throw cardErrors.invalidNumber();
  if (!/^\d{4}$/.test(input.year)) throw cardErrors.expirationYear();
  if (!/^(0[1-9]|1[0-2])$/.test(input.month)) throw cardErrors.expirationMonth();
  const expYear = Number(input.year);
  const expMonth = Number(input.month);
  const now = new Date(nowMs);
  const nowIndex = now.getUTCFullYear() * 12 + now.getUTCMonth();
  if (expYear * 12 + (expMonth - 1) < nowIndex) throw cardErrors.expired();
  if (!/^\d{3}$/.test(input.cvv)) throw cardErrors.cvv();
  return {
    pan: input.number,
    bin: input.number.slice(0, 6),
    last4: input.number.slice(-4),
    expYear,
    expMonth,
    cvv: input.cvv,
  };
}
