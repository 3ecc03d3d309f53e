import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { snapshotTables } from '../helpers/db.ts';
import { expectEnvelopeResponse } from '../helpers/http.ts';
import { bearerFetch, createPartner, type PartnerCredentials, signedFetch } from '../helpers/partner.ts';
import { createKey, createSubaccount } from '../identity/support.ts';
import { createUser } from '../users/support.ts';
import { deliveriesOf, queueTransferCallbacks } from './support.ts';

interface SubscriptionBody {
  id: string;
  subscribed: string;
  notifyTarget: string;
  createdAt: number;
  failure: string | null;
  failCount: number;
}

let t: TestApp;
let partner: PartnerCredentials & { webhookSecret: string };
let other: PartnerCredentials & { webhookSecret: string };
const TARGET = 'http://127.0.0.1:9/hooks';
const IGNORED = ['operator_audit', 'signature_replays', 'access_audit'];

const call = (who: PartnerCredentials, method: string, path: string, body?: unknown) =>
  signedFetch(t, who, { method, path, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });

async function subscribe(who: PartnerCredentials, subscribeTo: string, path = '/v3/subscriptions') {
  const response = await call(who, 'POST', path, { subscribeTo, notifyTarget: TARGET });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return JSON.parse(text) as SubscriptionBody;
}

beforeAll(async () => {
  t = await startTestApp();
  partner = await createPartner(t, { usersApi: true });
  other = await createPartner(t, { usersApi: true, name: 'Other partner' });
});
afterAll(async () => {
  await t.close();
});

describe('POST/GET/DELETE /v3/subscriptions', () => {
  it('creates {id, subscribed, notifyTarget, createdAt, failure, failCount}; a bare AC_ id is an account', async () => {
    const before = Date.now();
    const created = await subscribe(partner, partner.accountId);
    expect(Object.keys(created).sort()).toEqual(
      ['createdAt', 'failCount', 'failure', 'id', 'notifyTarget', 'subscribed'].sort(),
    );
    expect(created).toMatchObject({
      id: expect.stringMatching(/^DA_[2-9A-HJ-NP-Z]{11}$/),
      subscribed: `account:${partner.accountId}`,
      notifyTarget: TARGET,
      failure: null,
      failCount: 0,
    });
    expect(created.createdAt).toBeGreaterThanOrEqual(before - 1000);
    const read = await call(partner, 'GET', `/v3/subscriptions/${created.id}`);
    expect(await read.json()).toEqual(created);
  });

  it('a created transfer notifies the subscription to its account, naming the account', async () => {
    const created = await subscribe(partner, `account:${partner.accountId}`);
    const transferId = await queueTransferCallbacks(t, partner.accountId);
    expect(await deliveriesOf(t, `transfer:${transferId}`)).toEqual([]);
    const deliveries = await deliveriesOf(t, `account:${partner.accountId}`);
    const mine = deliveries.filter((d) => d.subscription_id === created.id);
    expect(mine.map((d) => d.body)).toEqual([
      `{"subscriptionId":"${created.id}","trigger":"account:${partner.accountId}"}`,
    ]);
  });

  it('lists newest first with offset/limit and totals; another partner sees none of it', async () => {
    const fresh = await createPartner(t, { name: 'Lister' });
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await subscribe(fresh, `account:${fresh.accountId}`));
    const page = await (await call(fresh, 'GET', '/v3/subscriptions?offset=1&limit=1')).json();
    expect(page).toEqual({ data: [made[1]], position: 1, recordsTotal: 3, recordsFiltered: 3 });
    const all = (await (await call(fresh, 'GET', '/v3/subscriptions')).json()) as {
      data: SubscriptionBody[];
    };
    expect(all.data.map((s) => s.id)).toEqual(made.map((s) => s.id).reverse());
    const theirs = (await (await call(other, 'GET', '/v3/subscriptions')).json()) as {
      data: SubscriptionBody[];
    };
    expect(theirs.data.map((s) => s.id)).not.toContain(made[0]!.id);
  });

  it("another partner's subscription id is 404 to read and to delete, and stays", async () => {
    const created = await subscribe(partner, partner.accountId);
    await expectEnvelopeResponse(
      await call(other, 'GET', `/v3/subscriptions/${created.id}`),
      404,
      'NotFoundException',
    );
    await expectEnvelopeResponse(
      await call(other, 'DELETE', `/v3/subscriptions/${created.id}`),
      404,
      'NotFoundException',
    );
    expect((await call(partner, 'GET', `/v3/subscriptions/${created.id}`)).status).toBe(200);
  });

  it('DELETE stops callbacks: gone from the list, 404 afterwards, a new transfer queues nothing for it', async () => {
    const created = await subscribe(partner, partner.accountId);
    const deleted = await call(partner, 'DELETE', `/v3/subscriptions/${created.id}`);
    expect(await deleted.json()).toEqual(created);
    await expectEnvelopeResponse(
      await call(partner, 'GET', `/v3/subscriptions/${created.id}`),
      404,
      'NotFoundException',
    );
    await expectEnvelopeResponse(
      await call(partner, 'DELETE', `/v3/subscriptions/${created.id}`),
      404,
      'NotFoundException',
    );
    const list = (await (await call(partner, 'GET', '/v3/subscriptions?limit=100')).json()) as {
      data: SubscriptionBody[];
    };
    expect(list.data.map((s) => s.id)).not.toContain(created.id);
    const transferId = await queueTransferCallbacks(t, partner.accountId);
    const deliveries = await deliveriesOf(t, `transfer:${transferId}`);
    expect(deliveries.map((d) => d.subscription_id)).not.toContain(created.id);
  });

  it('subscribes to a sub-account and to a user of its own; masquerading as the sub-account sees only its own', async () => {
    const sub = await createSubaccount(t, partner);
    const onSub = await subscribe(partner, `account:${sub.id}`);
    const user = await createUser(t, partner);
    const onUser = await subscribe(partner, `user:${user.id}`);
    expect(onUser.subscribed).toBe(`user:${user.id}`);
    const asSub = `?masqueradeAs=${sub.id}`;
    const made = await subscribe(partner, `account:${sub.id}`, `/v3/subscriptions${asSub}`);
    const seen = (await (await call(partner, 'GET', `/v3/subscriptions${asSub}`)).json()) as {
      data: SubscriptionBody[];
    };
    expect(seen.data.map((s) => s.id)).toEqual([made.id]);
    await expectEnvelopeResponse(
      await call(partner, 'GET', `/v3/subscriptions/${onSub.id}${asSub}`),
      404,
      'NotFoundException',
    );
    // The sub-account cannot subscribe to its parent.
    await expectEnvelopeResponse(
      await call(partner, 'POST', `/v3/subscriptions${asSub}`, {
        subscribeTo: `account:${partner.accountId}`,
        notifyTarget: TARGET,
      }),
      400,
      'ValidationException',
      { errorCode: 'validation.unknownSrn', problematicField: 'subscribeTo' },
    );
  });

  it('an Idempotency-Key replays the same subscription', async () => {
    const body = JSON.stringify({ subscribeTo: partner.accountId, notifyTarget: TARGET });
    const send = () =>
      signedFetch(t, partner, {
        method: 'POST',
        path: '/v3/subscriptions',
        body,
        headers: { 'idempotency-key': 'sub-once' },
      });
    const first = await (await send()).json();
    const again = await send();
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(await again.json()).toEqual(first);
  });
});

describe('bad input changes nothing', () => {
  const cases: [string, unknown, number, string, { errorCode?: string; problematicField?: string }][] = [
    [
      'missing subscribeTo',
      { notifyTarget: TARGET },
      400,
      'FieldRequiredException',
      { problematicField: 'subscribeTo' },
    ],
    ['missing notifyTarget', { subscribeTo: 'AC_2222222222Z' }, 400, 'FieldRequiredException', {}],
    ['number subscribeTo', { subscribeTo: 12, notifyTarget: TARGET }, 400, 'ValidationException', {}],
    ['unknown field', { subscribeTo: 'x', notifyTarget: TARGET, extra: 1 }, 400, 'ValidationException', {}],
    [
      'oversized SRN',
      { subscribeTo: `account:${'A'.repeat(100)}`, notifyTarget: TARGET },
      400,
      'ValidationException',
      {},
    ],
    [
      'payment method SRN',
      { subscribeTo: 'paymentmethod:PA_2222222222Z', notifyTarget: TARGET },
      400,
      'ValidationException',
      { errorCode: 'validation.invalidSrn' },
    ],
    [
      'malformed account id',
      { subscribeTo: 'account:AC_lower', notifyTarget: TARGET },
      400,
      'ValidationException',
      { errorCode: 'validation.invalidSrn' },
    ],
    [
      'unknown transfer',
      { subscribeTo: 'transfer:TF_2222222222Z', notifyTarget: TARGET },
      400,
      'ValidationException',
      { errorCode: 'validation.unknownSrn' },
    ],
    [
      'script URL',
      { subscribeTo: 'AC_2222222222Z', notifyTarget: 'javascript:alert(1)' },
      400,
      'ValidationException',
      { problematicField: 'notifyTarget' },
    ],
    [
      'link-local target',
      { subscribeTo: 'AC_2222222222Z', notifyTarget: 'http://169.254.169.254/' },
      400,
      'ValidationException',
      { errorCode: 'validation.forbiddenCallbackHost' },
    ],
  ];

  it.each(cases)('%s', async (_name, body, status, type, extra) => {
    const before = await snapshotTables(t.database.db, IGNORED);
    const response = await call(partner, 'POST', '/v3/subscriptions', body);
    await expectEnvelopeResponse(response, status, type, extra);
    expect(await snapshotTables(t.database.db, IGNORED)).toEqual(before);
  });

  it("another partner's account or user as subscribeTo reads as unknown", async () => {
    const theirUser = await createUser(t, other);
    for (const subscribeTo of [`account:${other.accountId}`, other.accountId, `user:${theirUser.id}`]) {
      const before = await snapshotTables(t.database.db, IGNORED);
      await expectEnvelopeResponse(
        await call(partner, 'POST', '/v3/subscriptions', { subscribeTo, notifyTarget: TARGET }),
        400,
        'ValidationException',
        { errorCode: 'validation.unknownSrn', problematicField: 'subscribeTo' },
      );
      expect(await snapshotTables(t.database.db, IGNORED)).toEqual(before);
    }
  });

  it('malformed JSON, bad list parameters, unknown ids', async () => {
    const raw = await signedFetch(t, partner, {
      method: 'POST',
      path: '/v3/subscriptions',
      body: '{"subscribeTo":',
    });
    await expectEnvelopeResponse(raw, 400, 'JsonFormatException');
    await expectEnvelopeResponse(
      await call(partner, 'GET', '/v3/subscriptions?limit=101'),
      400,
      'ValidationException',
    );
    await expectEnvelopeResponse(
      await call(partner, 'GET', '/v3/subscriptions?offset=-1'),
      400,
      'ValidationException',
    );
    await expectEnvelopeResponse(
      await call(partner, 'GET', '/v3/subscriptions/nope'),
      404,
      'NotFoundException',
    );
    await expectEnvelopeResponse(
      await call(partner, 'DELETE', '/v3/subscriptions/DA_2222222222Z'),
      404,
      'NotFoundException',
    );
    await expectEnvelopeResponse(await fetch(`${t.baseUrl}/v3/subscriptions`), 401, 'AccessDeniedException');
  });
});

describe('GET /v3/subscriptions/signingSecret', () => {
  it("answers the master account the webhookSecret the operator's create-account call returned", async () => {
    const response = await call(partner, 'GET', '/v3/subscriptions/signingSecret');
    expect(await response.json()).toEqual({ webhookSecret: partner.webhookSecret });
  });

  it("a sub-account's own key is refused (403)", async () => {
    const sub = await createSubaccount(t, partner);
    const key = await createKey(t, partner, { desc: 'sub key' }, `account:${sub.id}`);
    const response = await call(
      { accountId: sub.id, apiKey: key.apiKey, secretKey: key.secretKey },
      'GET',
      '/v3/subscriptions/signingSecret',
    );
    await expectEnvelopeResponse(response, 403, 'AccessDeniedException');
  });

  it('a self-created (decentralized) account gets one on first use, the same afterwards, sealed at rest', async () => {
    const session = randomBytes(24).toString('base64url');
    expect(
      (await fetch(`${t.baseUrl}/v2/sessions/auth/key?secretKey=${session}`, { method: 'POST' })).status,
    ).toBe(200);
    const account = await bearerFetch(t, session, 'POST', '/v3/accounts', {
      type: 'INDIVIDUAL',
      country: 'US',
    });
    const { id } = (await account.json()) as { id: string };
    const first = (await (
      await bearerFetch(t, session, 'GET', '/v3/subscriptions/signingSecret')
    ).json()) as {
      webhookSecret: string;
    };
    expect(first.webhookSecret).toMatch(/^WH-/);
    const again = await (await bearerFetch(t, session, 'GET', '/v3/subscriptions/signingSecret')).json();
    expect(again).toEqual(first);
    const { rows } = await t.ctx.db.query<{ webhook_secret: Buffer }>(
      'SELECT webhook_secret FROM accounts WHERE id = $1',
      [id],
    );
    expect(rows[0]!.webhook_secret.includes(Buffer.from(first.webhookSecret))).toBe(false);
  });
});
