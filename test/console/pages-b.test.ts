import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operatorHeaders, type TestApp } from '../helpers/app.ts';
import type { PartnerCredentials } from '../helpers/partner.ts';
import { dispute, operatorRefund, placeOrder } from '../wallet-orders/refund-support.ts';
import { startCardOrderApp, workerFor } from '../wallet-orders/support.ts';
import { type ConsoleBrowser, consoleAs, signInRoute } from './support-b.ts';

/**
 * The console's partner, settings, ledger, audit, dispute and reconciliation pages over HTTP: reads
 * for every role, changes for admins only, each through the operator API's own service and audited
 * with the operator; refused input shown on the page with nothing changed.
 */
let t: TestApp;
let partner: PartnerCredentials;
let admin: ConsoleBrowser;
const db = () => t.database.db;

beforeAll(async () => {
  ({ t, partner } = await startCardOrderApp({ extend: signInRoute }));
  admin = await consoleAs(t, 'admin');
});
afterAll(async () => t.close());

const partnerPath = () => `/console/partners/${partner.accountId}`;
const usersApiOf = async () =>
  (await db().query('SELECT users_api_enabled FROM accounts WHERE id = $1', [partner.accountId])).rows[0]
    .users_api_enabled as boolean;
const auditOf = async (action: string) =>
  (
    await db().query(
      'SELECT actor, operator_id, target, detail FROM operator_audit WHERE action = $1 ORDER BY id',
      [action],
    )
  ).rows;

describe('the partner pages', () => {
  it('lists partners, finds one by id and by name, and shows its page to support without forms', async () => {
    const support = await consoleAs(t, 'support');
    const list = await support.get('/console/partners');
    expect(list.status).toBe(200);
    expect(list.text).toContain(partner.accountId);
    expect((await support.get(`/console/partners?q=${partner.accountId}`)).text).toContain(partner.accountId);
    expect((await support.get('/console/partners?q=no-such-name-anywhere')).text).toContain(
      'No partner matches.',
    );
    const page = await support.get(partnerPath());
    expect(page.status).toBe(200);
    expect(page.text).toContain('Users API');
    expect(page.text).not.toContain('Create an API key');
  });

  it('refuses every change to support and reviewer (403) and changes nothing', async () => {
    const before = await usersApiOf();
    for (const role of ['support', 'reviewer'] as const) {
      const browser = await consoleAs(t, role);
      await browser.get(partnerPath());
      const switched = await browser.post(`${partnerPath()}/users-api`, { enabled: String(!before) });
      expect(switched.status).toBe(403);
      const limits = await browser.post(`${partnerPath()}/card-limits`, {
        'STANDARD.daily': '1',
        'STANDARD.weekly': '2',
        'STANDARD.yearly': '3',
      });
      expect(limits.status).toBe(403);
      expect((await browser.post('/console/settings/clock', { advanceSeconds: '60' })).status).toBe(403);
    }
    expect(await usersApiOf()).toBe(before);
    expect(await auditOf('POST /console/partners/:accountId/users-api')).toEqual([]);
    expect(await auditOf('POST /console/partners/:accountId/card-limits')).toEqual([]);
    expect(await auditOf('POST /console/settings/clock')).toEqual([]);
  });

  it('switches the Users API as an admin, audited with the operator', async () => {
    const before = await usersApiOf();
    const done = await admin.post(`${partnerPath()}/users-api`, { enabled: String(!before) });
    expect(done.status).toBe(303);
    expect(done.location).toBe(`${partnerPath()}?done=users-api`);
    expect(await usersApiOf()).toBe(!before);
    expect(await auditOf('POST /console/partners/:accountId/users-api')).toEqual([
      {
        actor: 'OP_3333333333B admin@example.com',
        operator_id: 'OP_3333333333B',
        target: `account:${partner.accountId}`,
        detail: { usersApi: !before },
      },
    ]);
  });

  it('sets card limits, and shows a malformed limit’s error having changed nothing', async () => {
    const set = await admin.post(`${partnerPath()}/card-limits`, {
      'STANDARD.daily': '100',
      'STANDARD.weekly': '500',
      'STANDARD.yearly': '5000',
    });
    expect(set.status).toBe(303);
    expect((await admin.get(partnerPath())).text).toContain('500 USD');
    const refused = await admin.post(`${partnerPath()}/card-limits`, {
      'STANDARD.daily': '12.3.4',
      'STANDARD.weekly': '500',
      'STANDARD.yearly': '5000',
    });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('STANDARD.daily must be a decimal number');
    const inverted = await admin.post(`${partnerPath()}/card-limits`, {
      'STANDARD.daily': '900',
      'STANDARD.weekly': '500',
      'STANDARD.yearly': '5000',
    });
    expect(inverted.status).toBe(400);
    expect(inverted.text).toContain('daily must not exceed weekly');
    const stored = await db().query('SELECT limits FROM card_limit_overrides WHERE partner_id = $1', [
      partner.accountId,
    ]);
    expect(stored.rows[0].limits.STANDARD).toEqual({ daily: '100', weekly: '500', yearly: '5000' });
    expect(await auditOf('POST /console/partners/:accountId/card-limits')).toHaveLength(1);
    // Back to the roomy tables the card orders below need.
    const restored = await admin.post(`${partnerPath()}/card-limits`, {
      'STANDARD.daily': '100000',
      'STANDARD.weekly': '100000',
      'STANDARD.yearly': '100000',
    });
    expect(restored.status).toBe(303);
  });

  it('creates an API key whose secret is shown once, and revokes it', async () => {
    const created = await admin.post(`${partnerPath()}/keys`, {
      type: 'READONLY',
      desc: 'console key',
      ipWhitelist: '',
    });
    expect(created.status).toBe(200);
    const apiKey = /id="new-api-key">([^<]+)</.exec(created.text)?.[1];
    const secret = /id="new-secret-key">([^<]+)</.exec(created.text)?.[1];
    expect(apiKey).toBeDefined();
    expect(secret).toMatch(/.{20,}/);
    const reloaded = await admin.get(partnerPath());
    expect(reloaded.text).toContain(apiKey!);
    expect(reloaded.text).not.toContain(secret!);
    const [row] = (await auditOf('POST /console/partners/:accountId/keys')) as { detail: object }[];
    expect(JSON.stringify(row)).not.toContain(secret!);

    const badWhitelist = await admin.post(`${partnerPath()}/keys`, {
      type: 'FULL',
      ipWhitelist: 'not-an-ip',
    });
    expect(badWhitelist.status).toBe(400);
    expect(badWhitelist.text).not.toContain('id="new-secret-key"');

    const revoked = await admin.post(`${partnerPath()}/keys/${apiKey}/revoke`, {});
    expect(revoked.status).toBe(303);
    const gone = await db().query('SELECT deleted_at FROM api_keys WHERE api_key = $1', [apiKey]);
    expect(gone.rows[0].deleted_at).not.toBeNull();
    expect((await admin.post(`${partnerPath()}/keys/${apiKey}/revoke`, {})).status).toBe(404);
  });
});

describe('fees, rates and the clock', () => {
  it('refuses a negative fee with the service’s words and keeps the schedule', async () => {
    const before = await (
      await fetch(`${t.baseUrl}/operator/v1/fees`, { headers: operatorHeaders() })
    ).json();
    const refused = await admin.post('/console/settings/fees', { 'fee.debit-card.USD.flat': '-1' });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('role="alert"');
    const after = await (await fetch(`${t.baseUrl}/operator/v1/fees`, { headers: operatorHeaders() })).json();
    expect(after).toEqual(before);
    const saved = await admin.post('/console/settings/fees', { 'fee.debit-card.USD.percent': '3.1' });
    expect(saved.status).toBe(303);
    const changed = (await (
      await fetch(`${t.baseUrl}/operator/v1/fees`, { headers: operatorHeaders() })
    ).json()) as {
      methods: Record<string, Record<string, { percent: string }>>;
    };
    expect(changed.methods['debit-card']!.USD!.percent).toBe('3.1');
    expect(await auditOf('POST /console/settings/fees')).toHaveLength(1);
  });

  it('changes a reference price, refuses a non-positive one, and moves the sandbox clock', async () => {
    expect((await admin.post('/console/settings/rates', { 'rate.BTC': '0' })).status).toBe(400);
    expect((await admin.post('/console/settings/rates', { 'rate.BTC': '61000' })).status).toBe(303);
    const rates = (await (
      await fetch(`${t.baseUrl}/operator/v1/rates`, { headers: operatorHeaders() })
    ).json()) as {
      prices: Record<string, { USD: string }>;
    };
    expect(rates.prices.BTC!.USD).toBe('61000');
    const offset = t.ctx.clock.currentOffsetMs();
    expect((await admin.post('/console/settings/clock', { advanceSeconds: 'soon' })).status).toBe(400);
    expect(t.ctx.clock.currentOffsetMs()).toBe(offset);
    expect((await admin.post('/console/settings/clock', { advanceSeconds: '60' })).status).toBe(303);
    expect(t.ctx.clock.currentOffsetMs()).toBe(offset + 60_000);
  });
});

describe('the audit log', () => {
  it('filters by actor, action, outcome, target and time, newest first, a page of 50 at a time', async () => {
    await db().query(
      `INSERT INTO operator_audit (actor, action, target, outcome, status, at)
       SELECT 'audit-probe', 'GET /operator/v1/probe', 'probe:' || (n % 2), 'ok', 200,
              timestamptz '2026-01-01 00:00:00+00' + n * interval '1 minute'
       FROM generate_series(1, 70) AS n`,
    );
    const first = await admin.get('/console/audit?actor=audit-probe');
    expect(first.status).toBe(200);
    const times = (text: string) => [...text.matchAll(/<time datetime="([^"]+)"/g)].map((m) => m[1]!);
    const firstTimes = times(first.text);
    expect(firstTimes).toHaveLength(50);
    expect(firstTimes[0]).toBe('2026-01-01T01:10:00.000Z');
    expect([...firstTimes].sort().reverse()).toEqual(firstTimes);
    const next = /href="([^"]+)" rel="next"/.exec(first.text)?.[1]?.replaceAll('&amp;', '&');
    expect(next).toBeDefined();
    const second = await admin.get(next!);
    expect(times(second.text)).toHaveLength(20);
    expect(times(second.text).at(-1)).toBe('2026-01-01T00:01:00.000Z');
    expect(second.text).not.toContain('rel="next"');

    const byTarget = await admin.get(
      '/console/audit?target=probe:1&action=GET%20/operator/v1/pro&outcome=ok',
    );
    expect(times(byTarget.text)).toHaveLength(35);
    const byTime = await admin.get(
      '/console/audit?actor=audit-probe&from=2026-01-01T00:10&to=2026-01-01T00:20',
    );
    expect(times(byTime.text)).toHaveLength(10);
    expect((await admin.get('/console/audit?outcome=denied&actor=audit-probe')).text).toContain(
      'No audited action matches.',
    );
    const byOperator = await admin.get('/console/audit?actor=OP_3333333333B');
    expect(byOperator.text).toContain('/console/partners/:accountId/users-api');
    expect((await admin.get('/console/audit?from=yesterday')).status).toBe(400);
    expect((await admin.get('/console/audit?after=garbage!')).status).toBe(400);
  });
});

describe('ledger, disputes and reconciliation', () => {
  it('shows house and customer balances', async () => {
    const credit = await fetch(`${t.baseUrl}/operator/v1/ledger/credits`, {
      method: 'POST',
      headers: operatorHeaders(),
      body: JSON.stringify({ owner: `account:${partner.accountId}`, currency: 'USD', amount: '12.5' }),
    });
    expect(credit.status).toBe(200);
    const page = await admin.get('/console/ledger?kind=account');
    expect(page.status).toBe(200);
    expect(page.text).toContain(`account:${partner.accountId}`);
    expect(page.text).toContain('external:bank');
    const one = await admin.get(`/console/ledger?owner=account:${partner.accountId}`);
    expect(one.text).toContain('12.5');
  });

  it('lists a disputed order in CHARGEBACK, and the card reconciliation shows a mismatch made on purpose', async () => {
    const fromMs = Date.now() - 1000;
    const disputed = await placeOrder(t, partner);
    const refunded = await placeOrder(t, partner);
    await workerFor(t).drain();
    expect((await dispute(t, disputed.orderId, 'OPEN')).status).toBe(200);
    expect((await operatorRefund(t, refunded.orderId, { amount: '1.00' })).status).toBe(200);

    const disputes = await admin.get('/console/disputes');
    expect(disputes.text).toContain(disputed.orderId);
    expect(disputes.text).toContain('CHARGEBACK');
    expect((await admin.get('/console/orders?status=CHARGEBACK')).text).toContain(disputed.orderId);

    const support = await consoleAs(t, 'support');
    await support.get('/console/reconciliation');
    expect((await support.post('/console/reconciliation/cards', { from: String(fromMs) })).status).toBe(403);

    const balanced = await admin.post('/console/reconciliation/cards', { from: String(fromMs), to: '' });
    expect(balanced.status).toBe(200);
    expect(balanced.text).toContain('None: every order matches to the cent.');
    await db().query('UPDATE sandbox_card_refunds SET amount = amount + 0.01 WHERE order_id = $1', [
      refunded.orderId,
    ]);
    const off = await admin.post('/console/reconciliation/cards', { from: String(fromMs), to: '' });
    expect(off.text).toContain('NOT BALANCED');
    expect(off.text).toContain(refunded.orderId);
    expect(off.text).toContain('-0.01');
    const badPeriod = await admin.post('/console/reconciliation/cards', { from: 'yesterday' });
    expect(badPeriod.status).toBe(400);
    expect(badPeriod.text).toContain('from must be an ISO 8601 time');
  });
});
