import { isLosslessNumber, parse } from 'lossless-json';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operatorHeaders } from '../helpers/app.ts';
import { signedFetch } from '../helpers/partner.ts';
import { approvedUser, credit, startTransfersApp, type TransfersFixture } from '../transfers/support.ts';
import {
  CARDS,
  ETH_ADDRESS,
  lockedBody,
  orderBody,
  postSigned,
  readQuoteTotal,
  reserve,
  setLimits,
  testCard,
  US_ADDRESS,
  workerFor,
} from '../wallet-orders/support.ts';

/**
 * `format=json_numberstring` (Wyre's own client tells users to send it): every amount of an
 * answer is a JSON string of the exact text the default answer writes as a number, on every
 * route; timestamps and counts stay numbers. The same resource is read in both formats and
 * compared value by value.
 */
let fx: TransfersFixture;

beforeAll(async () => {
  fx = await startTransfersApp();
  await setLimits(fx.t, fx.partner.accountId, {
    STANDARD: { daily: '100000', weekly: '100000', yearly: '100000' },
  });
});
afterAll(async () => fx?.t.close());

/** Numbers that are not amounts: they stay numbers in both formats. */
const NOT_AMOUNTS = new Set([
  'createdAt',
  'updatedAt',
  'expiresAt',
  'completedAt',
  'cancelledAt',
  'closedAt',
  'statusOrder',
  'position',
  'recordsTotal',
  'recordsFiltered',
  'entryId',
  // A transfer's chain transaction: when it was mined and seen, and how deep it is.
  'blockTime',
  'timeObserved',
  'confirmations',
]);

interface Comparison {
  /** Paths whose number became a string of the same text. */
  converted: string[];
  /** Names of members that stayed numbers. */
  kept: Set<string>;
}

/** Walks both answers side by side; any other difference fails. */
function compare(numbersText: string, stringsText: string): Comparison {
  const out: Comparison = { converted: [], kept: new Set() };
  const walk = (a: unknown, b: unknown, path: string, name: string) => {
    if (isLosslessNumber(a)) {
      if (isLosslessNumber(b)) {
        expect(b.value, path).toBe(a.value);
        out.kept.add(name);
      } else {
        expect(b, path).toBe(a.value);
        out.converted.push(path);
      }
      return;
    }
    if (Array.isArray(a)) {
      expect(Array.isArray(b) && b.length === a.length, path).toBe(true);
      for (const [index, item] of a.entries()) walk(item, (b as unknown[])[index], `${path}[${index}]`, name);
      return;
    }
    if (a !== null && typeof a === 'object') {
      expect(Object.keys(b as object), path).toEqual(Object.keys(a));
      for (const [key, value] of Object.entries(a)) {
        walk(value, (b as Record<string, unknown>)[key], `${path}.${key}`, key);
      }
      return;
    }
    expect(b, path).toEqual(a);
  };
  walk(parse(numbersText), parse(stringsText), '$', '$');
  return out;
}

/** No number left in a json_numberstring answer but timestamps and counts. */
function expectOnlyNonAmountNumbers(comparison: Comparison) {
  expect([...comparison.kept].filter((name) => !NOT_AMOUNTS.has(name))).toEqual([]);
}

const withFormat = (path: string, format: string) =>
  `${path}${path.includes('?') ? '&' : '?'}format=${format}`;

async function bothFormats(read: (path: string) => Promise<Response>, path: string) {
  const numbers = await read(path);
  const strings = await read(withFormat(path, 'json_numberstring'));
  expect(numbers.status).toBe(200);
  expect(strings.status).toBe(200);
  const comparison = compare(await numbers.text(), await strings.text());
  expectOnlyNonAmountNumbers(comparison);
  return comparison;
}

const signedGet = (path: string) => signedFetch(fx.t, fx.partner, { path });

describe('format=json_numberstring', () => {
  it('GET /v3/rates: every rate as a string, in every view; the default stays numbers', async () => {
    for (const as of ['DIVISOR', 'MULTIPLIER', 'PRICED']) {
      const { converted } = await bothFormats(
        (path) => fetch(`${fx.t.baseUrl}${path}`),
        `/v3/rates?as=${as}`,
      );
      expect(converted.length).toBeGreaterThan(100);
    }
    const text = await (await fetch(`${fx.t.baseUrl}/v3/rates?format=json_numberstring`)).text();
    expect(text).toContain('"EURUSD":"0.925925925925925925"');
    expect(await (await fetch(`${fx.t.baseUrl}/v3/rates`)).text()).toContain('"EURUSD":0.925925925925925925');
  });

  it('quotes and reservations: every amount, fee, rate and equivalency', async () => {
    const body = JSON.stringify({
      amount: 100,
      sourceCurrency: 'USD',
      destCurrency: 'ETH',
      dest: `ethereum:${ETH_ADDRESS}`,
      accountId: fx.partner.accountId,
      country: 'US',
      walletType: 'DEBIT_CARD',
    });
    const quote = (path: string) => signedFetch(fx.t, fx.partner, { method: 'POST', path, body });
    const quoted = await bothFormats(quote, '/v3/orders/quote/partner');
    expect(quoted.converted).toEqual(
      expect.arrayContaining([
        '$.sourceAmount',
        '$.destAmount',
        '$.exchangeRate',
        '$.fees.USD',
        '$.fees.ETH',
        '$.equivalencies.EUR',
      ]),
    );
    const { reservation } = await reserve(fx.t, fx.partner, lockedBody(fx.partner));
    const read = await bothFormats(signedGet, `/v3/orders/reservation/${reservation}`);
    expect(read.converted).toEqual(
      expect.arrayContaining([
        '$.sourceAmount',
        '$.quote.sourceAmount',
        '$.quote.sourceAmountWithoutFees',
        '$.quote.destAmount',
        '$.quote.exchangeRate',
        '$.quote.fees.USD',
        '$.quote.equivalencies.USD',
      ]),
    );
  });

  it('wallet orders, as created and as read, and the card limits', async () => {
    const { reservation } = await reserve(fx.t, fx.partner, lockedBody(fx.partner));
    const amount = await readQuoteTotal(fx.t, fx.partner, reservation);
    const created = await postSigned(
      fx.t,
      fx.partner,
      '/v3/debitcard/process/partner?format=json_numberstring',
      orderBody(fx.partner, reservation, amount, { debitCard: testCard(CARDS.approve) }),
    );
    const order = parse(await created.text()) as Record<string, unknown>;
    expect(created.status).toBe(200);
    expect(order.sourceAmount).toBe(amount);
    expect(typeof order.purchaseAmount).toBe('string');
    await workerFor(fx.t).drain();
    const read = await bothFormats(signedGet, `/v3/orders/${String(order.id)}`);
    expect(read.converted).toEqual(
      expect.arrayContaining(['$.sourceAmount', '$.purchaseAmount', '$.destAmount']),
    );
    const limits = (path: string) =>
      fetch(`${fx.t.baseUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          accountId: fx.partner.accountId,
          address: US_ADDRESS,
          walletType: 'DEBIT_CARD',
        }),
      });
    const calculated = await bothFormats(limits, '/v3/widget/limits/calculate');
    expect(calculated.converted).toEqual(
      expect.arrayContaining(['$.dailyTotalSpent', '$.dailyTotal', '$.yearlyRemaining']),
    );
  });

  it('accounts, users, transfers and operator credits; a replay keeps the format it was stored in', async () => {
    await credit(fx.t, `account:${fx.partner.accountId}`, 'USD', '500.25');
    const account = await bothFormats(signedGet, `/v3/accounts/${fx.partner.accountId}`);
    expect(account.converted).toEqual(
      expect.arrayContaining(['$.totalBalances.USD', '$.availableBalances.USD']),
    );
    const user = await approvedUser(fx.t, fx.partner);
    await credit(fx.t, `user:${user}`, 'USD', '10.5');
    const userRead = await bothFormats(signedGet, `/v3/users/${user}?masqueradeAs=user:${user}`);
    expect(userRead.converted).toEqual(expect.arrayContaining(['$.totalBalances.USD']));

    const transferBody = JSON.stringify({
      sourceCurrency: 'USD',
      sourceAmount: '25',
      destCurrency: 'BTC',
      dest: `user:${user}`,
      autoConfirm: true,
    });
    const post = (headers: Record<string, string>) =>
      signedFetch(fx.t, fx.partner, {
        method: 'POST',
        path: '/v3/transfers?format=json_numberstring',
        body: transferBody,
        headers,
      });
    const first = await post({ 'idempotency-key': 'number-strings-1' });
    const firstText = await first.text();
    expect(first.status, firstText).toBe(200);
    const created = parse(firstText) as Record<string, unknown>;
    expect(typeof created.sourceAmount).toBe('string');
    expect(typeof created.exchangeRate).toBe('string');
    const replay = await post({ 'idempotency-key': 'number-strings-1' });
    expect(replay.headers.get('idempotency-replayed')).toBe('true');
    expect(await replay.text()).toBe(firstText);
    // The format is part of the request: the same key asking for plain numbers is another request.
    const otherFormat = await signedFetch(fx.t, fx.partner, {
      method: 'POST',
      path: '/v3/transfers',
      body: transferBody,
      headers: { 'idempotency-key': 'number-strings-1' },
    });
    expect(otherFormat.status).toBe(422);
    expect(((await otherFormat.json()) as { type: string }).type).toBe('IdempotencyConflictException');

    const id = String(created.id);
    const read = await bothFormats(signedGet, `/v3/transfers/${id}`);
    expect(read.converted).toEqual(
      expect.arrayContaining([
        '$.sourceAmount',
        '$.destAmount',
        '$.exchangeRate',
        '$.totalFees',
        '$.fees.USD',
      ]),
    );
    const list = await bothFormats(signedGet, '/v3/transfers');
    expect(list.converted).toEqual(expect.arrayContaining(['$.data[0].sourceAmount']));
    expect(list.kept).toContain('recordsTotal');

    const operatorCredit = await fetch(
      `${fx.t.baseUrl}/operator/v1/ledger/credits?format=json_numberstring`,
      {
        method: 'POST',
        headers: operatorHeaders(),
        body: JSON.stringify({ owner: `account:${fx.partner.accountId}`, currency: 'USD', amount: '1.10' }),
      },
    );
    expect((parse(await operatorCredit.text()) as Record<string, unknown>).amount).toBe('1.1');
  });
});
