import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operatorHeaders, startTestApp, type TestApp } from '../helpers/app.ts';
import { snapshotTables } from '../helpers/db.ts';
import { expectEnvelopeResponse } from '../helpers/http.ts';
import { createPartner, type PartnerCredentials } from '../helpers/partner.ts';
import { lockedBody, postSigned } from '../orders/support.ts';

let t: TestApp;
let partner: PartnerCredentials;

beforeAll(async () => {
  t = await startTestApp();
  partner = await createPartner(t);
});
afterAll(async () => t?.close());

const rates = (query = '') => fetch(`${t.baseUrl}/v3/rates${query}`);
const put = (path: string, body: unknown, headers = operatorHeaders()) =>
  fetch(`${t.baseUrl}${path}`, { method: 'PUT', headers, body: JSON.stringify(body) });

async function auditRows(action: string) {
  const { rows } = await t.database.db.query('SELECT * FROM operator_audit WHERE action = $1 ORDER BY id', [
    action,
  ]);
  return rows;
}

describe('GET /v3/rates (no credentials)', () => {
  it('answers DIVISOR by default, keyed <FROM><TO>: source ÷ rate = dest', async () => {
    const response = await rates();
    expect(response.status).toBe(200);
    const text = await response.text();
    const body = JSON.parse(text) as Record<string, number>;
    expect(body.USDBTC).toBe(60000);
    expect(body.USDETH).toBe(3000);
    expect(text).toContain('"EURUSD":0.925925925925925925,'); // 1 ÷ 1.08, to 18 significant digits
    expect(text).toContain('"BTCUSD":0.0000166666666666666666');
    expect(Object.keys(body).every((key) => /^[A-Z]{6,10}$/.test(key))).toBe(true);
  });

  it('answers MULTIPLIER (source × rate = dest) and PRICED, case-insensitively', async () => {
    const multiplierText = await (await rates('?as=multiplier')).text();
    const multiplier = JSON.parse(multiplierText) as Record<string, number>;
    expect(multiplier.BTCUSD).toBe(60000);
    expect(multiplierText).toContain('"USDBTC":0.0000166666666666666666,');
    const pricedText = await (await rates('?as=PRICED&pretty=true')).text();
    expect(pricedText).toContain('"USDBTC":{"USD":60000,"BTC":0.0000166666666666666666}');
  });

  it('refuses an unknown view, naming the parameter', async () => {
    await expectEnvelopeResponse(await rates('?as=SIDEWAYS'), 400, 'ValidationException', {
      problematicField: 'as',
    });
  });

  it('ignores a parameter it does not know, as Wyre did (`pretty`, decision 60)', async () => {
    const response = await rates('?pretty&bogus=1');
    expect(response.status).toBe(200);
  });
});

describe('PUT /operator/v1/rates', () => {
  it('changes the prices at once, for rates and quotes, and audits the change with it', async () => {
    const response = await put('/operator/v1/rates', { BTC: { USD: '50000' }, NOK: { USD: 0.1 } });
    try {
      const text = await response.text();
      expect(response.status, text).toBe(200);
      expect(JSON.parse(text).prices).toMatchObject({
        BTC: { USD: '50000' },
        NOK: { USD: '0.1' },
        ETH: { USD: '3000' },
      });
      const divisor = (await (await rates()).json()) as Record<string, number>;
      expect(divisor.USDBTC).toBe(50000);
      expect(divisor.NOKBTC).toBe(500000); // cross rate through USD: 50000 ÷ 0.1
      const audit = await auditRows('PUT /operator/v1/rates');
      expect(audit.at(-1)).toMatchObject({
        outcome: 'ok',
        status: 200,
        detail: { prices: { BTC: '50000', NOK: '0.1' } },
      });
    } finally {
      await put('/operator/v1/rates', { BTC: { USD: '60000' }, NOK: { USD: '0.092' } });
    }
  });

  it.each([
    ['an unknown currency', { XYZ: { USD: '1' } }, 'XYZ'],
    ['a price in another currency', { BTC: { EUR: '50000' } }, 'BTC'],
    ['a zero price', { BTC: { USD: '0' } }, 'BTC'],
    ['a negative price', { BTC: { USD: -5 } }, 'BTC'],
    ['a price of USD itself', { USD: { USD: '1' } }, 'USD'],
    ['an exponent', { BTC: { USD: '6e4' } }, 'BTC'],
  ])('refuses %s and changes nothing', async (_name, body, field) => {
    const before = await snapshotTables(t.database.db);
    const response = await put('/operator/v1/rates', body);
    const envelope = await expectEnvelopeResponse(response, 400, 'ValidationException');
    expect(envelope.problematicField).toContain(field);
    expect(await snapshotTables(t.database.db)).toEqual(before);
  });

  it('needs the operator token', async () => {
    const response = await put(
      '/operator/v1/rates',
      { BTC: { USD: '1' } },
      { 'content-type': 'application/json' },
    );
    await expectEnvelopeResponse(response, 401, 'AccessDeniedException');
    expect(((await (await rates()).json()) as Record<string, number>).USDBTC).toBe(60000);
  });
});

describe('the fee schedule (PUT /operator/v1/fees)', () => {
  it('ships a default table and lets the operator replace it; quotes follow', async () => {
    const current = (await (
      await fetch(`${t.baseUrl}/operator/v1/fees`, { headers: operatorHeaders() })
    ).json()) as {
      methods: Record<string, Record<string, Record<string, string>>>;
      networkFees: Record<string, string>;
    };
    expect(current.methods['debit-card']?.USD).toEqual({
      percent: '2.9',
      flat: '0.3',
      minOrder: '5',
      maxOrder: '5000',
    });
    const next = structuredClone(current);
    next.methods['debit-card']!.USD = { percent: '1', flat: '0', minOrder: '1', maxOrder: '100' };
    next.networkFees.ETH = '0';
    const response = await put('/operator/v1/fees', next);
    expect(response.status, await response.text()).toBe(200);
    try {
      const quote = await postSigned(t, partner, '/v3/orders/quote/partner', {
        sourceAmount: '50',
        sourceCurrency: 'USD',
        destCurrency: 'ETH',
      });
      expect(await quote.json()).toMatchObject({ sourceAmount: 50.5, fees: { USD: 0.5, ETH: 0 } });
      const tooLarge = await postSigned(
        t,
        partner,
        '/v3/orders/reserve',
        lockedBody(partner, { sourceAmount: '150' }),
      );
      await expectEnvelopeResponse(tooLarge, 400, 'ValidationException', {
        errorCode: 'validation.transactionAmountTooLarge',
        problematicField: 'sourceAmount',
      });
      expect((await auditRows('PUT /operator/v1/fees')).at(-1)).toMatchObject({ outcome: 'ok' });
    } finally {
      expect((await put('/operator/v1/fees', current)).status).toBe(200);
    }
  });

  it('refuses an incoherent schedule as a whole', async () => {
    const before = await snapshotTables(t.database.db);
    const response = await put('/operator/v1/fees', {
      methods: { 'debit-card': { USD: { percent: '2', flat: '0.001', minOrder: '5', maxOrder: '10' } } },
      networkFees: { ETH: '0.0004' },
    });
    await expectEnvelopeResponse(response, 400, 'ValidationException', {
      problematicField: 'methods.debit-card.USD.flat',
    });
    const inverted = await put('/operator/v1/fees', {
      methods: { 'debit-card': { USD: { percent: '2', flat: '0.3', minOrder: '50', maxOrder: '10' } } },
      networkFees: { ETH: '0.0004' },
    });
    await expectEnvelopeResponse(inverted, 400, 'ValidationException', {
      problematicField: 'methods.debit-card.USD.maxOrder',
    });
    expect(await snapshotTables(t.database.db)).toEqual(before);
  });
});
