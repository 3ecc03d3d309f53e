import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { serializeJson, serializeJsonNumberStrings, serializerFor } from '../../src/platform/json.ts';
import { Money } from '../../src/platform/money.ts';

describe('serializeJson', () => {
  it('writes decimals exactly as JSON numbers', () => {
    const total = new Money('0.1').plus(new Money('0.2'));
    expect(serializeJson({ total })).toBe('{"total":0.3}');
    expect(0.1 + 0.2).not.toBe(0.3); // what a float would have written
    expect(serializeJson(new Money('1.000000000000000001'))).toBe('1.000000000000000001');
    expect(serializeJson(new Money('123456789012345678901234.123456789012345678'))).toBe(
      '123456789012345678901234.123456789012345678',
    );
    expect(serializeJson(new Money('1e-18'))).toBe('0.000000000000000001');
    expect(serializeJson(new Money('1e30'))).toBe('1000000000000000000000000000000');
    expect(serializeJson(new Money('-12.50'))).toBe('-12.5');
  });

  it('writes nested structures, skipping undefined members like JSON.stringify', () => {
    const value = {
      a: [new Money('2.50'), { b: new Money('0.000000000000000001'), skip: undefined }],
      text: 'quote " and \\ and \u2028',
      flag: false,
      none: null,
      fn: () => 1,
      list: [undefined, 1],
      n: 42,
      big: 2n ** 64n,
    };
    expect(serializeJson(value)).toBe(
      '{"a":[2.5,{"b":0.000000000000000001}],"text":"quote \\" and \\\\ and \u2028","flag":false,"none":null,"list":[null,1],"n":42,"big":18446744073709551616}',
    );
    const plain = { a: [1, { b: 'x', c: null }], d: true };
    expect(serializeJson(plain)).toBe(JSON.stringify(plain));
  });

  it('writes Dates as epoch milliseconds and non-finite numbers as null', () => {
    expect(serializeJson({ at: new Date(1_536_518_677_854) })).toBe('{"at":1536518677854}');
    expect(serializeJson([Number.NaN, Number.POSITIVE_INFINITY])).toBe('[null,null]');
    expect(serializeJson(undefined)).toBe('null');
  });

  it('produces JSON a parser reads back to the same numbers', () => {
    const parsed = JSON.parse(serializeJson({ amount: new Money('12.34'), at: new Date(5) })) as Record<
      string,
      number
    >;
    expect(parsed).toEqual({ amount: 12.34, at: 5 });
  });

  it('writes any JSON value (strings with any code unit, keys included) exactly as JSON.stringify does', () => {
    const anyText = fc.string({ unit: 'binary' });
    const json = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.constant(null),
        fc.boolean(),
        fc.double(),
        anyText,
        fc.array(tie('value')),
        fc.dictionary(anyText, tie('value')),
      ),
    })).value;
    fc.assert(
      fc.property(json, (value) => serializeJson(value) === JSON.stringify(value)),
      { numRuns: 2000 },
    );
    expect(serializeJson('lone \ud800 half')).toBe(JSON.stringify('lone \ud800 half'));
  });

  it('writes keys alike however often they come back, past the bound of keys it keeps quoted', () => {
    const awkward = { 'quote"key': 1, 'line\nkey': 2, __proto__key: 3, constructor: 4 };
    expect(serializeJson(awkward)).toBe(JSON.stringify(awkward));
    expect(serializeJson([awkward, awkward])).toBe(JSON.stringify([awkward, awkward]));
    const many = Object.fromEntries(Array.from({ length: 5000 }, (_, index) => [`k${index}`, index]));
    expect(serializeJson(many)).toBe(JSON.stringify(many));
    expect(serializeJson(many)).toBe(JSON.stringify(many));
    // Own members only, as JSON.stringify: an inherited enumerable member is not written.
    const child = Object.assign(Object.create({ inherited: true }), { own: 'yes' });
    expect(serializeJson(child)).toBe('{"own":"yes"}');
  });

  it('writes an invalid Date as null, as JSON.stringify does', () => {
    expect(serializeJson({ at: new Date(Number.NaN) })).toBe('{"at":null}');
  });
});

describe('serializeJsonNumberStrings (format=json_numberstring)', () => {
  it('writes every Decimal as a string of the same exact text, and nothing else differently', () => {
    const value = {
      sourceAmount: new Money('104.40'),
      fees: { USD: new Money('3.2'), ETH: new Money('1e-18') },
      list: [new Money('-12.50'), 7],
      createdAt: new Date(5),
      count: 3,
      label: '1.5',
    };
    expect(serializeJsonNumberStrings(value)).toBe(
      '{"sourceAmount":"104.4","fees":{"USD":"3.2","ETH":"0.000000000000000001"},"list":["-12.5",7],"createdAt":5,"count":3,"label":"1.5"}',
    );
    expect(serializeJson(value)).toBe(
      '{"sourceAmount":104.4,"fees":{"USD":3.2,"ETH":0.000000000000000001},"list":[-12.5,7],"createdAt":5,"count":3,"label":"1.5"}',
    );
    expect(serializeJsonNumberStrings(new Money('1e30'))).toBe('"1000000000000000000000000000000"');
  });

  it('leaves the default serializer as it was, even after a call that threw', () => {
    const hostile = {
      get amount(): never {
        throw new Error('getter');
      },
    };
    expect(() => serializeJsonNumberStrings(hostile)).toThrow('getter');
    expect(serializeJson({ amount: new Money('1.5') })).toBe('{"amount":1.5}');
  });

  it('is chosen by the format parameter only for json_numberstring', () => {
    expect(serializerFor('json_numberstring')).toBe(serializeJsonNumberStrings);
    for (const format of [undefined, 'json', 'JSON_NUMBERSTRING', ['json_numberstring']]) {
      expect(serializerFor(format)).toBe(serializeJson);
    }
  });
});
