import { describe, expect, it } from 'vitest';
import { parseJsonExact } from '../../src/platform/json-parse.ts';
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
