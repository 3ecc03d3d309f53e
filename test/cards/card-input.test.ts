import { describe, expect, it } from 'vitest';
import { lookupBin } from '../../src/cards/bins.ts';
import { checkCard, luhnValid } from '../../src/cards/card-input.ts';
import { cardFingerprint } from '../../src/cards/fingerprint.ts';
import { TEST_CARDS } from '../../src/cards/test-cards.ts';
import { ApiError } from '../../src/platform/errors.ts';

const NOW = Date.parse('2026-05-15T12:00:00Z');
const good = { number: '4111111111111111', year: '2030', month: '01', cvv: '123' };

function errorOf(input: Partial<typeof good>, nowMs = NOW) {
  try {
    checkCard({ ...good, ...input }, nowMs);
  } catch (error) {
    if (error instanceof ApiError) return { errorCode: error.errorCode, field: error.problematicField };
    throw error;
  }
  return undefined;
}

describe('card format checks', () => {
  it('Luhn: every documented test card passes, a changed digit fails', () => {
    for (const number of Object.keys(TEST_CARDS)) expect(luhnValid(number), number).toBe(true);
    expect(luhnValid('4111111111111112')).toBe(false);
    expect(luhnValid('79927398713')).toBe(true);
  });

  it('accepts a valid card and keeps only what may be kept', () => {
    expect(checkCard(good, NOW)).toMatchObject({ bin: '411111', last4: '1111', expYear: 2030, expMonth: 1 });
  });

  it.each([
    ['failing Luhn', { number: '4111111111111112' }, 'validation.invalidDebitCardNumber'],
    ['12 digits', { number: '411111111116' }, 'validation.invalidDebitCardNumber'],
    ['20 digits', { number: '41111111111111111113' }, 'validation.invalidDebitCardNumber'],
    ['spaces', { number: '4111 1111 1111 1111' }, 'validation.invalidDebitCardNumber'],
    ['2-digit year', { year: '30' }, 'validation.cardExpirationYear'],
    ['year in the past', { year: '2025' }, 'validation.cardExpirationYear'],
    ['month 13', { month: '13' }, 'validation.cardExpirationMonth'],
    ['month without zero', { month: '1' }, 'validation.cardExpirationMonth'],
    ['CVV of 2 digits', { cvv: '12' }, 'validation.cvv'],
    ['CVV of 5 digits', { cvv: '12345' }, 'validation.cvv'],
    ['CVV with letters', { cvv: '12a' }, 'validation.cvv'],
  ])('refuses %s', (_name, input, errorCode) => {
    expect(errorOf(input)?.errorCode).toBe(errorCode);
  });

  it('expiry is the end of the month, by the given clock', () => {
    expect(errorOf({ year: '2026', month: '05' })).toBeUndefined();
    expect(errorOf({ year: '2026', month: '04' })?.errorCode).toBe('validation.cardExpirationYear');
    expect(errorOf({ year: '2026', month: '05' }, Date.parse('2026-06-01T00:00:00Z'))?.errorCode).toBe(
      'validation.cardExpirationYear',
    );
  });
});

describe('BIN table', () => {
  it('tells debit from credit and prepaid, and refuses other brands', () => {
    expect(lookupBin('4111111111111111')).toEqual({ brand: 'VISA', type: 'DEBIT' });
    expect(lookupBin('5200828282828210')).toEqual({ brand: 'MASTERCARD', type: 'DEBIT' });
    expect(lookupBin('4242424242424242')).toEqual({ brand: 'VISA', type: 'CREDIT' });
    expect(lookupBin('5555555555554444')).toEqual({ brand: 'MASTERCARD', type: 'CREDIT' });
    expect(lookupBin('4600000000000006')).toEqual({ brand: 'VISA', type: 'PREPAID' });
    expect(lookupBin('2223003122003222')).toEqual({ brand: 'MASTERCARD', type: 'DEBIT' });
    expect(lookupBin('378282246310005')).toBeUndefined();
    expect(lookupBin('6011111111111117')).toBeUndefined();
  });
});

describe('card fingerprint', () => {
  it('is stable per key and card, differs across keys and cards, and does not contain the number', () => {
    const key = Buffer.alloc(32, 1);
    const a = cardFingerprint(key, '4111111111111111');
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(cardFingerprint(key, '4111111111111111')).toBe(a);
    expect(cardFingerprint(Buffer.alloc(32, 2), '4111111111111111')).not.toBe(a);
    expect(cardFingerprint(key, '4000056655665556')).not.toBe(a);
  });
});
