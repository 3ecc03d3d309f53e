import { describe, expect, it } from 'vitest';
import {
  CallbackSignatureError,
  errorFromResponse,
  FieldRequiredException,
  parseExactJson,
  RampartApiError,
  RampartClient,
  ServiceUnavailableException,
  signCallback,
  signRequest,
  ValidationException,
  verifyCallback,
} from '../../sdk/src/index.js';
import { randomAlphanumeric } from '../../sdk/src/random.js';
import { isRetryable, parseRetryAfterMs, retryDelayMs } from '../../sdk/src/retry.js';
import { nextTimestampMs } from '../../sdk/src/signing.js';

describe('signRequest: reference/wyre-api-facts.md §3 vectors', () => {
  const secret = 'SK-X6ABP7DG-2N92PBW3-XNQPM46V-3LLWGARL';

  it('signs URL + empty body', () => {
    expect(signRequest(secret, 'https://api.testwyre.com/account?timestamp=1536518677854')).toBe(
      '98b3573eb8faceb14d86a297fe18419f1fbb8795e811f866c536db7449ed1581',
    );
  });

  it('signs URL + JSON body bytes, as a string or as bytes', () => {
    const url = 'https://api.testwyre.com/v3/transfers?timestamp=1426252182534';
    const body =
      '{"source":"account:AC_YNWFWXDW3AG","sourceCurrency":"USD","sourceAmount":"200","dest":"paymentmethod:PA_L64RP4JB73L","destCurrency":"USD","message":"Sending the user payment method"}';
    const expected = '44469daadb67daca770b344019b3db3eb6709801451cfe473e21b59d6862421d';
    expect(signRequest(secret, url, body)).toBe(expected);
    expect(signRequest(secret, url, Buffer.from(body))).toBe(expected);
  });

  it('signs the query in the order sent, masqueradeAs included', () => {
    expect(signRequest(secret, 'https://api.sendwyre.com/v3/rates?timestamp=1426252182534&format=json')).toBe(
      '6e89ae8e274925afc7f5be17a708149b1ed24f5fa96c58eea759686c93aa1a71',
    );
    expect(
      signRequest(
        secret,
        'https://api.testwyre.com/v3/accounts/AC_XXXXXXXX?masqueradeAs=AC_XXXXXXXX&timestamp=1426252182534',
      ),
    ).toBe('51b6b4c5c8e6d67d4713eba9faccfcc6bc55eb252461c77387570d979f69b821');
  });

  it('never hands out the same timestamp twice, even within one millisecond', () => {
    const first = nextTimestampMs(1_000);
    expect(nextTimestampMs(1_000)).toBe(first + 1);
    expect(nextTimestampMs(first + 1_000_000)).toBe(first + 1_000_000);
  });
});

describe('verifyCallback', () => {
  // Vector computed independently: printf '%s' '1700000000000.<body>' | openssl dgst -sha256 -hmac <secret>
  const secret = 'whsec-test-0123456789abcdefghij';
  const body = '{"subscriptionId":"DA_6LJNVYMVX7T","trigger":"transfer:TF_QA9GMG3GAWV"}';
  const mac = '1b3effd53849d7310d30316c3a45af59319242e21a2d1fd7de7a078b957a0032';
  const header = `t=1700000000000,v1=${mac}`;
  const nowMs = 1_700_000_060_000;

  it('accepts the known vector and returns the payload', () => {
    expect(verifyCallback(body, header, secret, { nowMs })).toEqual({
      subscriptionId: 'DA_6LJNVYMVX7T',
      trigger: 'transfer:TF_QA9GMG3GAWV',
    });
    expect(verifyCallback(Buffer.from(body), header, secret, { nowMs }).subscriptionId).toBe(
      'DA_6LJNVYMVX7T',
    );
    expect(signCallback(body, secret, 1_700_000_000_000)).toBe(header);
  });

  it('accepts any of several v1 values (secret rotation)', () => {
    const rotated = `t=1700000000000,v1=${'0'.repeat(64)},v1=${mac}`;
    expect(verifyCallback(body, rotated, secret, { nowMs }).trigger).toBe('transfer:TF_QA9GMG3GAWV');
  });

  it.each([
    ['a changed body', `${body} `, header, secret],
    ['a re-serialized body', JSON.stringify(JSON.parse(body), null, 1), header, secret],
    ['another secret', body, header, `${secret}x`],
    ['another timestamp', body, `t=1700000000001,v1=${mac}`, secret],
    ['no header', body, undefined, secret],
    ['no v1', body, 't=1700000000000', secret],
    ['no t', body, `v1=${mac}`, secret],
    ['a malformed v1', body, `t=1700000000000,v1=${mac.slice(2)}`, secret],
  ])('refuses %s', (_, rawBody, value, key) => {
    expect(() => verifyCallback(rawBody, value, key, { nowMs })).toThrow(CallbackSignatureError);
  });

  it('refuses a timestamp outside the tolerance, either way', () => {
    expect(() => verifyCallback(body, header, secret, { nowMs: 1_700_000_300_001 })).toThrow(/tolerance/);
    expect(() => verifyCallback(body, header, secret, { nowMs: 1_699_999_699_999 })).toThrow(/tolerance/);
    expect(verifyCallback(body, header, secret, { nowMs: 1_700_000_300_000 }).trigger).toContain('TF_');
    expect(() => verifyCallback(body, header, secret, { nowMs, toleranceMs: 59_999 })).toThrow(/tolerance/);
  });
});

describe('parseExactJson', () => {
  it('keeps amounts as their exact text and other numbers as numbers', () => {
    const text =
      '{"sourceAmount":100.3,"destAmount":0.123456789012345678,"exchangeRate":3601.862550000000000001,' +
      '"fees":{"USD":0.3,"ETH":0.000000000000000001},"createdAt":1700000000000,"failCount":0,' +
      '"statusHistories":[{"statusOrder":200}],"totalBalances":{"BTC":12345678901234567890.12345678}}';
    expect(parseExactJson(text)).toEqual({
      sourceAmount: '100.3',
      destAmount: '0.123456789012345678',
      exchangeRate: '3601.862550000000000001',
      fees: { USD: '0.3', ETH: '0.000000000000000001' },
      createdAt: 1700000000000,
      failCount: 0,
      statusHistories: [{ statusOrder: 200 }],
      totalBalances: { BTC: '12345678901234567890.12345678' },
    });
  });

  it('reads every number as an amount in mode all (rates, limits)', () => {
    expect(parseExactJson('{"USDBTC":{"USD":60000.5,"BTC":0.0000166665277789}}', 'all')).toEqual({
      USDBTC: { USD: '60000.5', BTC: '0.0000166665277789' },
    });
  });

  it('parses strings, escapes, literals and nesting like JSON.parse', () => {
    const text = '{"a":"x\\"y\\u00e9\\\\","b":[true,false,null,-1.5e3,[]],"c":{}}';
    expect(parseExactJson(text)).toEqual(JSON.parse(text));
  });

  it('keeps a __proto__ key an own property', () => {
    const value = parseExactJson('{"__proto__":{"polluted":true}}') as Record<string, unknown>;
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(value)).toEqual(['__proto__']);
  });

  it.each(['', '{', '{"a":1,}', '[1 2]', '{"a":01}', 'nul', '{"a":1} x', '"unterminated'])(
    'refuses malformed JSON %j',
    (text) => {
      expect(() => parseExactJson(text)).toThrow(SyntaxError);
    },
  );
});

describe('errors', () => {
  const envelope = {
    language: 'en',
    exceptionId: 'test_K7Q2MX',
    compositeType: '',
    subType: '',
    errorCode: 'validation.fieldRequired',
    message: 'Field dest is required.',
    type: 'FieldRequiredException',
    transient: false,
    problematicField: 'dest',
  };

  it('maps the envelope type to its class, carrying the envelope fields', () => {
    const error = errorFromResponse(400, envelope);
    expect(error).toBeInstanceOf(FieldRequiredException);
    expect(error).toBeInstanceOf(ValidationException);
    expect(error).toMatchObject({
      status: 400,
      errorCode: 'validation.fieldRequired',
      exceptionId: 'test_K7Q2MX',
      problematicField: 'dest',
      transient: false,
    });
  });

  it('keeps an unknown type as the base class, and reads a non-envelope 502 as transient', () => {
    const unknown = errorFromResponse(400, { ...envelope, type: 'SnapXException' });
    expect(unknown.constructor).toBe(RampartApiError);
    expect(unknown.type).toBe('SnapXException');
    const proxy = errorFromResponse(502, undefined);
    expect(proxy).toBeInstanceOf(ServiceUnavailableException);
    expect(proxy.transient).toBe(true);
    expect(errorFromResponse(418, '<html>').errorCode).toBe('http.418');
  });
});

describe('retry policy', () => {
  const options = { maxRetries: 2, baseDelayMs: 100, maxDelayMs: 1000, maxRetryAfterMs: 5000 };
  const response = (status: number, transient = false, retryAfterMs?: number) =>
    ({ kind: 'response', status, transient, retryAfterMs }) as const;

  it('retries 429 always, transient errors and network failures only when idempotent', () => {
    expect(isRetryable(response(429), false)).toBe(true);
    expect(isRetryable(response(503, true), false)).toBe(false);
    expect(isRetryable(response(503, true), true)).toBe(true);
    expect(isRetryable(response(502), true)).toBe(true);
    expect(isRetryable(response(409, true), true)).toBe(true);
    expect(isRetryable(response(400), true)).toBe(false);
    expect(isRetryable(response(422), true)).toBe(false);
    expect(isRetryable({ kind: 'network' }, true)).toBe(true);
    expect(isRetryable({ kind: 'network' }, false)).toBe(false);
    expect(isRetryable({ kind: 'timeout' }, false)).toBe(false);
  });

  it('uses Retry-After when given, refusing waits past the cap, and full jitter otherwise', () => {
    expect(retryDelayMs(response(429, false, 2000), 0, options)).toBe(2000);
    expect(retryDelayMs(response(429, false, 5001), 0, options)).toBeUndefined();
    expect(retryDelayMs(response(503, true), 0, options, () => 0.5)).toBe(50);
    expect(retryDelayMs(response(503, true), 3, options, () => 0.999)).toBe(799);
    expect(retryDelayMs(response(503, true), 10, options, () => 0.5)).toBe(500);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(parseRetryAfterMs('3')).toBe(3000);
    expect(parseRetryAfterMs('Wed, 21 Oct 2015 07:28:10 GMT', Date.UTC(2015, 9, 21, 7, 28, 0))).toBe(10_000);
    expect(parseRetryAfterMs(null)).toBeUndefined();
    expect(parseRetryAfterMs('soon')).toBeUndefined();
  });
});

describe('client construction', () => {
  const client = new RampartClient({ baseUrl: 'http://127.0.0.1:1' });

  it('masquerades only as an account or a user SRN', () => {
    expect(client.masquerade('user:US_YQG97JUANCF').masqueradeAs).toBe('user:US_YQG97JUANCF');
    expect(client.masquerade('AC_YQG97JUANCF').masqueradeAs).toBe('AC_YQG97JUANCF');
    expect(client.masquerade('account:AC_YQG97JUANCF').masqueradeAs).toBe('account:AC_YQG97JUANCF');
    expect(client.masqueradeAs).toBeUndefined();
    for (const bad of ['US_YQG97JUANCF', 'user:US_x', '', 'AC_YQG97JUANCF&timestamp=1']) {
      expect(() => client.masquerade(bad)).toThrow(TypeError);
    }
  });

  it('refuses a base URL that is not http(s)', () => {
    expect(() => new RampartClient({ baseUrl: 'ftp://example.com' })).toThrow(TypeError);
  });
});

describe('randomAlphanumeric (decentralized session secrets)', () => {
  it('gives the requested length from letters and digits, never twice the same', () => {
    const secrets = Array.from({ length: 200 }, () => randomAlphanumeric(40));
    for (const secret of secrets) expect(secret).toMatch(/^[A-Za-z0-9]{40}$/);
    expect(new Set(secrets).size).toBe(200);
  });

  it('uses the whole alphabet', () => {
    const seen = new Set(randomAlphanumeric(20_000));
    expect(seen.size).toBe(62);
  });
});
