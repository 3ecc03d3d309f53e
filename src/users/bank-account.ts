import { invalidValue } from '../platform/errors.ts';

/**
 * ABA routing numbers carry a check digit: 3·(d1+d4+d7) + 7·(d2+d5+d8) + (d3+d6+d9) ≡ 0 (mod 10).
 * The first two digits name a Federal Reserve district (00–12, 21–32) or 61–72 (thrifts) or 80.
 */
export function isAbaRoutingNumber(value: string): boolean {
  if (!/^\d{9}$/.test(value)) return false;
  const prefix = Number(value.slice(0, 2));
  const validPrefix =
    prefix <= 12 || (prefix >= 21 && prefix <= 32) || (prefix >= 61 && prefix <= 72) || prefix === 80;
  if (!validPrefix) return false;
  const d = [...value].map(Number);
  const sum = 3 * (d[0]! + d[3]! + d[6]!) + 7 * (d[1]! + d[4]! + d[7]!) + (d[2]! + d[5]! + d[8]!);
  return sum % 10 === 0;
}

export function routingNumber(value: string): string {
  if (!isAbaRoutingNumber(value)) {
    throw invalidValue(
      'routingNumber',
      'routingNumber must be a 9-digit ABA routing number with a valid check digit.',
    );
  }
  return value;
}

/** US account numbers run from 4 to 17 digits. */
export function accountNumber(value: string): string {
  if (!/^\d{4,17}$/.test(value)) throw invalidValue('accountNumber', 'accountNumber must be 4 to 17 digits.');
  return value;
}

/**
 * Sandbox verification outcome, as Stripe's test bank accounts do it: this documented account
 * number is refused (the bank reports the account closed); every other one is verified.
 */
export const SANDBOX_REJECTED_ACCOUNT_NUMBER = '000111111113';
