import { describe, expect, it } from 'vitest';
import { mayLosePrecision, parseJsonExact } from '../../src/platform/json-parse.ts';
import { parseAmount } from '../../src/platform/money.ts';
import { startTestApp } from '../helpers/app.ts';

describe('parseJsonExact', () => {
  it('keeps short numbers as numbers', () => {
    expect(parseJsonExact('{"a":0.1,"b":[1,2.5,-3],"c":123456789012345}')).toEqual({
      a: 0.1,
      b: [1, 2.5, -3],
      c: 123456789012345,
    });
  });

  it('keeps numbers a double cannot hold as their exact decimal text', () => {
    const parsed = parseJsonExact(
      '{"eth":1.123456789012345678,"big":12345678901234567890.5,"mid":12345678.123456789}',
    );
    expect(parsed).toEqual({
      eth: '1.123456789012345678',
      big: '12345678901234567890.5',
      mid: '12345678.123456789',
    });
    expect(parseAmount((parsed as { eth: unknown }).eth, 'eth').toFixed()).toBe('1.123456789012345678');
  });

  it('keeps long numbers that a double holds exactly as numbers', () => {
    expect(parseJsonExact('{"a":1.5000000000000000000,"b":1.5e2}')).toEqual({ a: 1.5, b: 150 });
  });

  it('keeps out-of-range numbers as text rather than Infinity', () => {
    expect(parseJsonExact('{"a":1e400}')).toEqual({ a: '1e400' });
  });

  it('refuses prototype keys on both paths', () => {
    expect(() => parseJsonExact('{"__proto__":{"x":1}}')).toThrow();
    expect(() => parseJsonExact('{"a":1.123456789012345678,"__proto__":{"x":1}}')).toThrow();
    expect(() =>
      parseJsonExact('{"a":{"constructor":{"prototype":{"x":1}}},"n":1.123456789012345678}'),
    ).toThrow();
  });

  it('sends only number literals, never digits inside strings, to the exact parser', () => {
    expect(mayLosePrecision('{"number":"4111111111111111","phone":"+14155550100"}')).toBe(false);
    expect(mayLosePrecision('{"a":"say \\"12345678901234567890\\" and \\\\","b":1.25}')).toBe(false);
    expect(mayLosePrecision('{"number":4111111111111111}')).toBe(true);
    expect(mayLosePrecision('{"a":"x","b":[0.000000000000000001]}')).toBe(false);
    expect(mayLosePrecision('{"a":"x","b":[1.0000000000000001]}')).toBe(true);
    expect(mayLosePrecision('{"a":"1e5","b":2E3}')).toBe(true);
    expect(mayLosePrecision('{"a":-123456789012345}')).toBe(false);
    expect(mayLosePrecision('{"a":"unterminated 12345678901234567890')).toBe(false);
    // A card order's body: digits in strings first, then a long amount, which still counts.
    const order = '{"debitCard":{"number":"4111111111111111"},"amount":1.123456789012345678}';
    expect(mayLosePrecision(order)).toBe(true);
    expect(parseJsonExact(order)).toEqual({
      debitCard: { number: '4111111111111111' },
      amount: '1.123456789012345678',
    });
  });

  it('reads digits inside strings as the strings they are', () => {
    expect(parseJsonExact('{"n":"12345678901234567890","m":"1e400","x":0.5}')).toEqual({
      n: '12345678901234567890',
      m: '1e400',
      x: 0.5,
    });
  });

  it('throws on malformed JSON on both paths', () => {
    expect(() => parseJsonExact('{bad')).toThrow();
    expect(() => parseJsonExact('{"a":1.123456789012345678,}')).toThrow();
  });
});

describe('request bodies', () => {
  it('reach handlers with long amounts intact', async () => {
    const t = await startTestApp({
      extend: (app) => {
        app.post('/probe/echo', async (request) => ({ received: request.body }));
      },
    });
    try {
      const response = await fetch(`${t.baseUrl}/probe/echo`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"amount":0.123456789012345678901}',
      });
      expect(await response.json()).toEqual({ received: { amount: '0.123456789012345678901' } });
    } finally {
      await t.close();
    }
  });
});
