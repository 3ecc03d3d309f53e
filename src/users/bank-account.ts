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

/** A wire's account number or IBAN: 1 to 34 letters and digits (spaces a client groups with are dropped). */
export function wireAccountNumber(value: string): string {
  const compact = value.replace(/ /g, '').toUpperCase();
  if (!/^[A-Z0-9]{1,34}$/.test(compact))
    throw invalidValue('accountNumber', 'accountNumber must be 1 to 34 letters and digits.');
  return compact;
}

/** A wire's bank code (ABA, SWIFT/BIC, sort code…): 4 to 34 letters and digits. */
export function wireBankCode(value: string): string {
  const compact = value.replace(/ /g, '').toUpperCase();
  if (!/^[A-Z0-9]{4,34}$/.test(compact))
    throw invalidValue('routingNumber', 'routingNumber must be the bank code: 4 to 34 letters and digits.');
  return compact;
}

/**
 * A Mexican CLABE: 18 digits whose last is a check digit over the first 17, weighted 3, 7, 1
 * in turn: (10 − (Σ (wᵢ·dᵢ mod 10)) mod 10) mod 10.
 */
export function isClabe(value: string): boolean {
  if (!/^\d{18}$/.test(value)) return false;
  const weights = [3, 7, 1];
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += (Number(value[i]) * weights[i % 3]!) % 10;
  return (10 - (sum % 10)) % 10 === Number(value[17]);
}

export function clabe(value: string): string {
  if (!isClabe(value))
    throw invalidValue('clabe', 'clabe must be an 18-digit CLABE with a valid check digit.');
  return value;
}
