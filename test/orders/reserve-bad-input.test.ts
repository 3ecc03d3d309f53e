import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { expectEnvelopeResponse } from '../helpers/http.ts';
import { createPartner, type PartnerCredentials } from '../helpers/partner.ts';
import {
  BTC_BAD_CHECKSUM,
  BTC_TESTNET,
  ETH_BAD_CHECKSUM,
  lockedBody,
  postSigned,
  snapshot,
} from './support.ts';

let t: TestApp;
let partner: PartnerCredentials;
let other: PartnerCredentials;

beforeAll(async () => {
  t = await startTestApp();
  partner = await createPartner(t);
  other = await createPartner(t, { name: 'Other partner' });
});
afterAll(async () => t?.close());

type Case = [
  name: string,
  body: (p: PartnerCredentials) => unknown,
  type: string,
  problematicField: string,
  errorCode?: string,
];

const V = 'ValidationException';
const R = 'FieldRequiredException';
const without = (body: Record<string, unknown>, ...fields: string[]) =>
  Object.fromEntries(Object.entries(body).filter(([key]) => !fields.includes(key)));

const cases: Case[] = [
  ['sourceAmount and destAmount together', (p) => lockedBody(p, { destAmount: '0.1' }), V, 'destAmount'],
  ['amount with sourceAmount', (p) => lockedBody(p, { amount: '10' }), V, 'amount'],
  ['an empty body', () => ({}), R, 'sourceAmount'],
  ['a rate lock without dest (decision 4)', (p) => without(lockedBody(p), 'dest'), R, 'dest'],
  [
    'a rate lock without amountIncludeFees',
    (p) => without(lockedBody(p), 'amountIncludeFees'),
    R,
    'amountIncludeFees',
  ],
  ['amount 0', (p) => lockedBody(p, { sourceAmount: 0 }), V, 'sourceAmount'],
  ['amount "0"', (p) => lockedBody(p, { sourceAmount: '0' }), V, 'sourceAmount'],
  ['amount -1', (p) => lockedBody(p, { sourceAmount: -1 }), V, 'sourceAmount'],
  ['amount "-1"', (p) => lockedBody(p, { sourceAmount: '-1' }), V, 'sourceAmount'],
  [
    'amount 1e400 (a JSON number literal)',
    (p) => JSON.stringify(lockedBody(p, { sourceAmount: 'X' })).replace('"X"', '1e400'),
    V,
    'sourceAmount',
  ],
  ['amount "1e400"', (p) => lockedBody(p, { sourceAmount: '1e400' }), V, 'sourceAmount'],
  ['amount "NaN"', (p) => lockedBody(p, { sourceAmount: 'NaN' }), V, 'sourceAmount'],
  ['amount "1,5"', (p) => lockedBody(p, { sourceAmount: '1,5' }), V, 'sourceAmount'],
  [
    'amount with 30 decimals',
    (p) => lockedBody(p, { sourceAmount: `1.${'0'.repeat(29)}1` }),
    V,
    'sourceAmount',
  ],
  [
    'destAmount with 30 decimals (ETH has 18)',
    (p) => without(lockedBody(p, { destAmount: `0.${'1'.repeat(30)}` }), 'sourceAmount'),
    V,
    'destAmount',
  ],
  [
    'destAmount 30 decimals as a JSON number',
    (p) =>
      JSON.stringify(without(lockedBody(p, { destAmount: 'X' }), 'sourceAmount')).replace(
        '"X"',
        `0.${'1'.repeat(30)}`,
      ),
    V,
    'destAmount',
  ],
  [
    'a crypto source currency',
    (p) => lockedBody(p, { sourceCurrency: 'BTC' }),
    V,
    'sourceCurrency',
    'validation.unsupportedCurrency',
  ],
  [
    'a fiat destination currency',
    (p) => lockedBody(p, { destCurrency: 'EUR' }),
    V,
    'destCurrency',
    'validation.unsupportedCurrency',
  ],
  [
    'an unknown currency',
    (p) => lockedBody(p, { sourceCurrency: 'XYZ' }),
    V,
    'sourceCurrency',
    'validation.unsupportedCurrency',
  ],
  ['a lower-case currency', (p) => lockedBody(p, { sourceCurrency: 'usd' }), V, 'sourceCurrency'],
  ['an unknown payment method', (p) => lockedBody(p, { paymentMethod: 'credit-card' }), V, 'paymentMethod'],
  [
    'dest with a bad EIP-55 checksum',
    (p) => lockedBody(p, { dest: `ethereum:${ETH_BAD_CHECKSUM}` }),
    V,
    'dest',
  ],
  [
    'dest with a bad base58check checksum',
    (p) => lockedBody(p, { destCurrency: 'BTC', dest: `bitcoin:${BTC_BAD_CHECKSUM}` }),
    V,
    'dest',
  ],
  [
    'dest on an unknown chain',
    (p) => lockedBody(p, { dest: 'dogecoin:DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L' }),
    V,
    'dest',
  ],
  [
    'dest without a chain',
    (p) => lockedBody(p, { dest: '0xBB9bc244D798123fDe783fCc1C72d3Bb8C189413' }),
    V,
    'dest',
  ],
  ['a bitcoin address for ETH', (p) => lockedBody(p, { dest: `bitcoin:${BTC_TESTNET}` }), V, 'dest'],
  [
    'dest as another partner’s account',
    (p) => lockedBody(p, { dest: `account:${other.accountId}` }),
    V,
    'dest',
  ],
  [
    'referrerAccountId of another partner',
    (p) => lockedBody(p, { referrerAccountId: other.accountId }),
    V,
    'referrerAccountId',
    'validation.invalidReferrerId',
  ],
  [
    'lockFields naming secretKey',
    (p) => lockedBody(p, { lockFields: ['dest', 'secretKey'] }),
    V,
    'lockFields',
  ],
  ['country ZZ', (p) => lockedBody(p, { country: 'ZZ' }), V, 'country', 'validation.unsupportedCountry'],
  [
    'a country outside the billing list',
    (p) => lockedBody(p, { country: 'JP' }),
    V,
    'country',
    'validation.unsupportedCountry',
  ],
  [
    'a Norwegian currency with a US address',
    (p) => lockedBody(p, { sourceCurrency: 'NOK' }),
    V,
    'sourceCurrency',
    'validation.unsupportedCurrency',
  ],
  [
    'a 64 KB redirectUrl',
    (p) => lockedBody(p, { redirectUrl: `https://a.example/${'x'.repeat(64 * 1024)}` }),
    V,
    'redirectUrl',
  ],
  [
    'a javascript: redirectUrl',
    (p) => lockedBody(p, { redirectUrl: 'javascript:alert(1)' }),
    V,
    'redirectUrl',
  ],
  [
    'a JavaScript: failureRedirectUrl',
    (p) => lockedBody(p, { failureRedirectUrl: 'JavaScript:alert(document.cookie)' }),
    V,
    'failureRedirectUrl',
  ],
  [
    'a data: redirectUrl',
    (p) => lockedBody(p, { redirectUrl: 'data:text/html,<script>alert(1)</script>' }),
    V,
    'redirectUrl',
  ],
  [
    'a redirectUrl with credentials',
    (p) => lockedBody(p, { redirectUrl: 'https://user:pw@a.example/' }),
    V,
    'redirectUrl',
  ],
  [
    'an order below the minimum',
    (p) => lockedBody(p, { sourceAmount: '1' }),
    V,
    'sourceAmount',
    'validation.transactionAmountTooSmall',
  ],
  [
    'an order above the maximum',
    (p) => lockedBody(p, { sourceAmount: '1000000' }),
    V,
    'sourceAmount',
    'validation.transactionAmountTooLarge',
  ],
  ['a phone number without country code', (p) => lockedBody(p, { phone: '4155550100' }), V, 'phone'],
];

describe('POST /v3/orders/reserve refuses bad input with the envelope and stores nothing', () => {
  it.each(cases)('%s', async (_name, body, type, problematicField, errorCode) => {
    const before = await snapshot(t);
    const response = await postSigned(t, partner, '/v3/orders/reserve', body(partner));
    await expectEnvelopeResponse(response, 400, type, {
      problematicField,
      ...(errorCode ? { errorCode } : {}),
    });
    expect(await snapshot(t)).toEqual(before);
  });
});
