import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookSecretOf } from '../../src/identity/index.ts';
import type { TestApp } from '../helpers/app.ts';
import { createPartner, type PartnerCredentials, signedFetch } from '../helpers/partner.ts';
import { createKey, createSubaccount } from '../identity/support.ts';
import { aliceAndBob, startTransfersApp, transfer } from '../transfers/support.ts';
import { createOrder, lockedReservation, orderBody, setLimits } from '../wallet-orders/support.ts';
import { DashboardClient, textOf } from './support.ts';

/**
 * The partner dashboard over real HTTP against the real services and PostgreSQL: sign-in (refused,
 * audited, backed off), one partner never reading another's records, cross-site posts refused
 * with nothing changed, API keys (a new secret shown once, revocation), the webhook secret's
 * rotation and the sandbox test purchase.
 */

let t: TestApp;
let a: PartnerCredentials;
let b: PartnerCredentials;
const ids = { aOrder: '', bOrder: '', aTransfer: '', bTransfer: '', aUser: '', bUser: '' };

async function seed(partner: PartnerCredentials) {
  await setLimits(t, partner.accountId, {
    STANDARD: { daily: '100000', weekly: '100000', yearly: '100000' },
  });
  const { reservation, amount } = await lockedReservation(t, partner);
  const order = await createOrder(t, partner, orderBody(partner, reservation, amount));
  expect(order.status, JSON.stringify(order.body)).toBe(200);
  const { alice, bob } = await aliceAndBob(t, partner, '50');
  const sent = await transfer(t, partner, alice, {
    source: `user:${alice}`,
    dest: `user:${bob}`,
    sourceCurrency: 'USD',
    destCurrency: 'USD',
    sourceAmount: '12.34',
    autoConfirm: true,
  });
  expect(sent.status, sent.text).toBe(200);
  return { order: String(order.body.id), transfer: sent.body.id, user: alice };
}

beforeAll(async () => {
  ({ t, partner: a } = await startTransfersApp());
  b = await createPartner(t, { usersApi: true, name: 'Other partner' });
  const seededA = await seed(a);
  const seededB = await seed(b);
  Object.assign(ids, {
    aOrder: seededA.order,
    aTransfer: seededA.transfer,
    aUser: seededA.user,
    bOrder: seededB.order,
    bTransfer: seededB.transfer,
    bUser: seededB.user,
  });
});
afterAll(async () => {
  await t?.close();
});

const signIns = async (apiKey: string) =>
  (
    await t.database.db.query<{ outcome: string; address: string; account_id: string | null }>(
      'SELECT outcome, address, account_id FROM dashboard_sign_ins WHERE api_key = $1 ORDER BY id',
      [apiKey],
    )
  ).rows;

describe('sign-in', () => {
  it('refuses a wrong secret with one answer, audits it, and keeps neither the secret nor a session', async () => {
    const client = new DashboardClient(t);
    const wrong = 'SK-WRONGWRO-NGWRONGW-RONGWRON-GWRONGWR';
    const answer = await client.post('/dashboard/sign-in', { apiKey: a.apiKey, secretKey: wrong });
    expect(answer.status).toBe(401);
    expect(answer.response.headers.get('set-cookie')).toBeNull();
    expect(textOf(answer.text, 'notice')).toBe('That API key and secret do not sign in.');
    expect(answer.text).not.toContain(wrong);
    // The secret's field is empty; the key comes back so it need not be typed again.
    expect(answer.text).toMatch(
      /<input type="password" id="secret" name="secretKey" required maxlength="512" autocomplete="off">/,
    );
    expect(answer.response.headers.get('content-security-policy')).not.toContain('unsafe-inline');
    expect(await signIns(a.apiKey)).toEqual([{ outcome: 'refused', address: '127.0.0.1', account_id: null }]);
    const unknown = await client.post('/dashboard/sign-in', {
      apiKey: 'AK-NOPENOPE-NOPENOPE-NOPENOPE-NOPENOPE',
      secretKey: a.secretKey,
    });
    expect(unknown.status).toBe(401);
    expect(textOf(unknown.text, 'notice')).toBe(textOf(answer.text, 'notice'));
    const stored = await t.database.db.query('SELECT * FROM dashboard_sign_ins');
    expect(JSON.stringify(stored.rows)).not.toContain(a.secretKey);
  });

  it('backs off after five refusals for a key: even the right secret waits, and that is recorded', async () => {
    const c = await createPartner(t, { name: 'Guessed partner' });
    const client = new DashboardClient(t);
    for (let i = 0; i < 5; i += 1) {
      const refused = await client.post('/dashboard/sign-in', { apiKey: c.apiKey, secretKey: `wrong-${i}` });
      expect(refused.status).toBe(401);
    }
    const right = await client.post('/dashboard/sign-in', { apiKey: c.apiKey, secretKey: c.secretKey });
    expect(right.status).toBe(429);
    expect(right.response.headers.get('retry-after')).toBe('900');
    expect(right.response.headers.get('set-cookie')).toBeNull();
    expect((await signIns(c.apiKey)).map((row) => row.outcome)).toEqual([
      'refused',
      'refused',
      'refused',
      'refused',
      'refused',
      'throttled',
    ]);
  });

  it('signs in with the right secret: a session cookie for /dashboard only, the account named, the secret nowhere', async () => {
    const client = new DashboardClient(t);
    const answer = await client.signIn(a);
    expect(client.cookie).toMatch(
      /^rampart_dashboard=[A-Za-z0-9_-]{43}; Path=\/dashboard; HttpOnly; SameSite=Strict/,
    );
    expect(client.cookie).not.toContain(a.secretKey);
    expect(answer.text).not.toContain(a.secretKey);
    const orders = await client.get('/dashboard/orders');
    expect(orders.status).toBe(200);
    expect(textOf(orders.text, 'account-name')).toBe('Test partner');
    expect(orders.text).toContain(ids.aOrder);
    expect(orders.text).not.toContain(a.secretKey);
    expect((await signIns(a.apiKey)).at(-1)).toEqual({
      outcome: 'allowed',
      address: '127.0.0.1',
      account_id: a.accountId,
    });
    const out = await client.postForm('/dashboard/sign-out', '/dashboard/orders');
    expect(out.status).toBe(303);
    expect(out.location).toBe('/dashboard/sign-in');
    expect((await client.get('/dashboard/orders')).location).toBe('/dashboard/sign-in');
  });

  it('refuses a sign-in posted from another site, even with the right secret', async () => {
    const client = new DashboardClient(t);
    const answer = await client.post(
      '/dashboard/sign-in',
      { apiKey: a.apiKey, secretKey: a.secretKey },
      { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
    );
    expect(answer.status).toBe(403);
    expect(answer.response.headers.get('set-cookie')).toBeNull();
  });

  it('sends a visitor without a session to the sign-in page, and refuses its posts', async () => {
    const client = new DashboardClient(t);
    const page = await client.get('/dashboard/transfers');
    expect(page.status).toBe(303);
    expect(page.location).toBe('/dashboard/sign-in');
    const post = await client.post('/dashboard/api-keys', { desc: 'x' });
    expect(post.status).toBe(403);
  });
});

describe("one partner never reads another's records", () => {
  it('by id: 404, nothing of the record in the page', async () => {
    const client = new DashboardClient(t);
    await client.signIn(a);
    for (const [path, own] of [
      [`/dashboard/orders/${ids.bOrder}`, `/dashboard/orders/${ids.aOrder}`],
      [`/dashboard/transfers/${ids.bTransfer}`, `/dashboard/transfers/${ids.aTransfer}`],
      [`/dashboard/users/${ids.bUser}`, `/dashboard/users/${ids.aUser}`],
    ] as const) {
      const foreign = await client.get(path);
      expect(foreign.status, path).toBe(404);
      expect(foreign.text).not.toContain(path.split('/').at(-1));
      expect(foreign.text).not.toContain('12.34');
      const mine = await client.get(own);
      expect(mine.status, own).toBe(200);
    }
    const order = await client.get(`/dashboard/orders/${ids.aOrder}`);
    expect(textOf(order.text, 'order-id')).toBe(ids.aOrder);
    const sent = await client.get(`/dashboard/transfers/${ids.aTransfer}`);
    expect(sent.text).toContain('12.34 USD');
  });

  it('by list, and by a cursor naming the other partner’s record', async () => {
    const client = new DashboardClient(t);
    await client.signIn(a);
    for (const [path, own, foreign] of [
      ['/dashboard/orders', ids.aOrder, ids.bOrder],
      ['/dashboard/transfers', ids.aTransfer, ids.bTransfer],
      ['/dashboard/users', ids.aUser, ids.bUser],
    ] as const) {
      const page = await client.get(path);
      expect(page.status).toBe(200);
      expect(page.text).toContain(own);
      expect(page.text).not.toContain(foreign);
      const after = await client.get(`${path}?after=${foreign}`);
      expect(after.status).toBe(200);
      expect(after.text).not.toContain(foreign);
      expect(after.text).not.toContain(own);
    }
  });

  it('a sub-account key sees its own account only: no partner transfers, no master pages', async () => {
    const sub = await createSubaccount(t, a);
    const key = await createKey(t, a, {}, `account:${sub.id}`);
    const client = new DashboardClient(t);
    await client.signIn(key);
    const transfers = await client.get('/dashboard/transfers');
    expect(transfers.text).not.toContain(ids.aTransfer);
    expect((await client.get('/dashboard/orders')).text).not.toContain(ids.aOrder);
    expect((await client.get('/dashboard/callbacks')).status).toBe(403);
    expect((await client.get('/dashboard/webhook-secret')).status).toBe(403);
  });
});

describe('sessions of one kind only', () => {
  it('the dashboard cookie is never sent to /console, and its token forged as a console cookie opens nothing', async () => {
    const client = new DashboardClient(t);
    await client.signIn(a);
    expect(client.cookie).toContain('Path=/dashboard;');
    const token = /rampart_dashboard=([^;]+)/.exec(client.cookie!)![1]!;
    // With the dashboard's cookie as a browser sends it (Path=/dashboard: not at all), and forged
    // under the console's name: the console sends every one of them to its sign-in.
    for (const cookie of [undefined, `rampart_console=${token}`, `rampart_dashboard=${token}`]) {
      const page = await fetch(`${t.baseUrl}/console`, {
        headers: cookie ? { cookie } : {},
        redirect: 'manual',
      });
      expect(page.status, cookie).toBe(303);
      expect(page.headers.get('location')).toBe('/console/sign-in');
      expect(await page.text()).not.toContain('Test partner');
    }
    expect((await client.get('/dashboard/orders')).status).toBe(200);
  });
});

describe('cross-site form posts', () => {
  const liveKeys = async (accountId: string) =>
    Number(
      (
        await t.database.db.query<{ n: string }>(
          'SELECT count(*) AS n FROM api_keys WHERE account_id = $1 AND deleted_at IS NULL',
          [accountId],
        )
      ).rows[0]!.n,
    );

  it('are refused and change nothing: no token, a wrong token, another origin, another site', async () => {
    const client = new DashboardClient(t);
    await client.signIn(a);
    const token = await client.csrfOf('/dashboard/api-keys');
    const keysBefore = await liveKeys(a.accountId);
    const secretBefore = await webhookSecretOf(t.ctx, t.ctx.db, a.accountId);
    const attempts: [string, Record<string, string>, Record<string, string>][] = [
      ['/dashboard/api-keys', { desc: 'none' }, {}],
      ['/dashboard/api-keys', { desc: 'wrong', _csrf: `${token.slice(0, -2)}xx` }, {}],
      [
        '/dashboard/api-keys',
        { desc: 'origin', _csrf: token },
        { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      ],
      ['/dashboard/api-keys', { desc: 'site', _csrf: token }, { 'sec-fetch-site': 'cross-site' }],
      ['/dashboard/webhook-secret', { _csrf: token }, { origin: 'https://evil.example' }],
      [
        `/dashboard/api-keys/${a.apiKey}/revoke`,
        { _csrf: token, confirm: 'yes' },
        { 'sec-fetch-site': 'same-site' },
      ],
    ];
    for (const [path, fields, headers] of attempts) {
      const answer = await client.post(path, fields, headers);
      expect(answer.status, `${path} ${JSON.stringify(headers)}`).toBe(403);
    }
    expect(await liveKeys(a.accountId)).toBe(keysBefore);
    expect(await webhookSecretOf(t.ctx, t.ctx.db, a.accountId)).toBe(secretBefore);
    expect((await client.get('/dashboard/orders')).status).toBe(200);
  });
});

describe('API keys', () => {
  it('creates a key whose secret is shown once, and which signs API calls', async () => {
    const client = new DashboardClient(t);
    await client.signIn(a);
    const created = await client.postForm('/dashboard/api-keys', '/dashboard/api-keys', {
      desc: 'reporting',
      type: 'READONLY',
    });
    expect(created.status).toBe(200);
    expect(created.response.headers.get('cache-control')).toBe('no-store');
    const apiKey = textOf(created.text, 'new-api-key')!;
    const secretKey = textOf(created.text, 'new-secret')!;
    expect(secretKey).toMatch(/^SK-/);
    const listed = await client.get('/dashboard/api-keys');
    expect(listed.text).toContain(apiKey);
    expect(listed.text).toContain('reporting');
    expect(listed.text).not.toContain(secretKey);
    const call = await signedFetch(t, { accountId: a.accountId, apiKey, secretKey }, { path: '/v2/account' });
    expect(call.status).toBe(200);
    const write = await signedFetch(
      t,
      { accountId: a.accountId, apiKey, secretKey },
      { method: 'POST', path: '/v2/apiKeys', body: '{}' },
    );
    expect(write.status).toBe(403);
  });

  it('revokes another key at once; its own key only with the confirmation, which signs out', async () => {
    const own = await createKey(t, a, { desc: 'session key' });
    const other = await createKey(t, a, { desc: 'doomed' });
    const client = new DashboardClient(t);
    await client.signIn(own);
    const revoked = await client.postForm(
      `/dashboard/api-keys/${other.apiKey}/revoke`,
      '/dashboard/api-keys',
    );
    expect(revoked.status).toBe(303);
    const gone = await signedFetch(t, other, { path: '/v2/account' });
    expect(gone.status).toBe(401);
    const unconfirmed = await client.postForm(
      `/dashboard/api-keys/${own.apiKey}/revoke`,
      '/dashboard/api-keys',
    );
    expect(unconfirmed.status).toBe(400);
    expect(textOf(unconfirmed.text, 'notice')).toMatch(/tick the confirmation/);
    expect((await signedFetch(t, own, { path: '/v2/account' })).status).toBe(200);
    const confirmed = await client.postForm(
      `/dashboard/api-keys/${own.apiKey}/revoke`,
      '/dashboard/api-keys',
      { confirm: 'yes' },
    );
    expect(confirmed.status).toBe(303);
    expect(confirmed.location).toBe('/dashboard/sign-in');
    expect((await client.get('/dashboard/orders')).location).toBe('/dashboard/sign-in');
  });

  it('a session ends when its key is revoked elsewhere; a READONLY key changes nothing', async () => {
    const key = await createKey(t, a, { type: 'READONLY' });
    const client = new DashboardClient(t);
    await client.signIn(key);
    const refused = await client.postForm('/dashboard/api-keys', '/dashboard/api-keys', { desc: 'nope' });
    expect(refused.status).toBe(403);
    const deleted = await signedFetch(t, a, { method: 'DELETE', path: `/v2/apiKey/${key.apiKey}` });
    expect(deleted.status).toBe(200);
    expect((await client.get('/dashboard/orders')).location).toBe('/dashboard/sign-in');
  });
});

describe('webhook signing secret', () => {
  it('says one is set and rotates it: the new one shown once, and the one callbacks are signed with', async () => {
    const client = new DashboardClient(t);
    await client.signIn(b);
    const before = await webhookSecretOf(t.ctx, t.ctx.db, b.accountId);
    const page = await client.get('/dashboard/webhook-secret');
    expect(textOf(page.text, 'webhook-state')).toMatch(/^A signing secret is set/);
    expect(page.text).not.toContain(before);
    const rotated = await client.postForm('/dashboard/webhook-secret', '/dashboard/webhook-secret');
    expect(rotated.status).toBe(200);
    const shown = textOf(rotated.text, 'webhook-secret')!;
    expect(shown).toMatch(/^WH-/);
    expect(shown).not.toBe(before);
    expect(await webhookSecretOf(t.ctx, t.ctx.db, b.accountId)).toBe(shown);
    expect((await client.get('/dashboard/webhook-secret')).text).not.toContain(shown);
    const api = await signedFetch(t, b, { path: '/v3/subscriptions/signingSecret' });
    expect(((await api.json()) as { webhookSecret: string }).webhookSecret).toBe(shown);
  });
});

describe('other pages', () => {
  it('balances, callbacks and the test purchase answer, amounts exact', async () => {
    const client = new DashboardClient(t);
    await client.signIn(a);
    const balances = await client.get('/dashboard/balances');
    expect(balances.status).toBe(200);
    const callbacks = await client.get('/dashboard/callbacks');
    expect(callbacks.status).toBe(200);
    const purchase = await client.postForm('/dashboard/test-purchase', '/dashboard/test-purchase', {
      sourceAmount: '20',
      destCurrency: 'eth',
      dest: 'ethereum:0xBB9bc244D798123fDe783fCc1C72d3Bb8C189413',
    });
    expect(purchase.status, purchase.text).toBe(200);
    const reservation = textOf(purchase.text, 'reservation-id')!;
    const read = await signedFetch(t, a, { path: `/v3/orders/reservation/${reservation}` });
    expect(read.status).toBe(200);
    expect(purchase.text).toMatch(/href="[^"]*\/purchase\?accountId=/);
    const refused = await client.postForm('/dashboard/test-purchase', '/dashboard/test-purchase', {
      sourceAmount: '20',
      destCurrency: 'ETH',
      dest: 'ethereum:not-an-address',
    });
    expect(refused.status).toBe(400);
    expect(textOf(refused.text, 'notice')).toBeTruthy();
  });
});
