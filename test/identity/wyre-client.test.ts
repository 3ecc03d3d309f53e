import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operatorHeaders, type TestApp } from '../helpers/app.ts';
import { createPartner, type PartnerCredentials } from '../helpers/partner.ts';
import {
  ACCOUNT_ID,
  type AccountView,
  type CreatedKey,
  type Envelope,
  rows,
  startIdentityApp,
} from './support.ts';

/** Wyre's official Node client (CommonJS): signs `…?timestamp=…&format=json`, sends X-Api-Version: 2. */
interface WyreClientLike {
  get(path: string, params?: Record<string, unknown>): Promise<unknown>;
  post(path: string, body?: unknown): Promise<unknown>;
  delete(path: string, body?: unknown): Promise<unknown>;
  masqueraded(target: string): WyreClientLike;
}
const { WyreClient } = createRequire(import.meta.url)('@wyre/api') as {
  WyreClient: new (config: {
    apiKey: string;
    secretKey: string;
    baseUrl: string;
    format?: string;
  }) => WyreClientLike;
};

let t: TestApp;
let partner: PartnerCredentials;
let client: WyreClientLike;
/** What arrived on the wire, to check the client really sends what the brief says it sends. */
const seen: { url: string; version: string | undefined }[] = [];

beforeAll(async () => {
  // The client signs protocol://host:port + path, so the loopback base is a configured public URL.
  t = await startIdentityApp({
    extend: (app) => {
      app.addHook('onRequest', async (request) => {
        const version = request.headers['x-api-version'];
        seen.push({ url: request.raw.url ?? '', version: typeof version === 'string' ? version : undefined });
      });
    },
  });
  partner = await createPartner(t);
  client = new WyreClient({ apiKey: partner.apiKey, secretKey: partner.secretKey, baseUrl: t.baseUrl });
});
afterAll(async () => t?.close());

describe('@wyre/api against Rampart', () => {
  it('GET /v3/accounts/{id}', async () => {
    const account = (await client.get(`/v3/accounts/${partner.accountId}`)) as AccountView;
    expect(account).toMatchObject({ id: partner.accountId, status: 'APPROVED', country: 'US' });
    expect(Array.isArray(account.profileFields)).toBe(true);
    expect(seen.at(-1)?.url).toMatch(
      new RegExp(`^/v3/accounts/${partner.accountId}\\?timestamp=\\d{13}&format=json$`),
    );
    expect(seen.at(-1)?.version).toBe('2');
    const replays = await rows(t, 'SELECT signature FROM signature_replays');
    expect(replays.length).toBeGreaterThan(0);
  });

  it('format: "json_numberstring", as its README suggests, answers balances as decimal strings', async () => {
    const credited = await fetch(`${t.baseUrl}/operator/v1/ledger/credits`, {
      method: 'POST',
      headers: operatorHeaders(),
      body: JSON.stringify({
        owner: `account:${partner.accountId}`,
        currency: 'ETH',
        amount: '0.123456789012345678',
      }),
    });
    expect(credited.status).toBe(200);
    const strings = new WyreClient({
      apiKey: partner.apiKey,
      secretKey: partner.secretKey,
      baseUrl: t.baseUrl,
      format: 'json_numberstring',
    });
    const account = (await strings.get(`/v3/accounts/${partner.accountId}`)) as AccountView;
    expect(seen.at(-1)?.url).toMatch(/&format=json_numberstring$/);
    expect(account).toMatchObject({
      totalBalances: { ETH: '0.123456789012345678' },
      availableBalances: { ETH: '0.123456789012345678' },
    });
    expect(typeof account.createdAt).toBe('number');
    const numbers = (await client.get(`/v3/accounts/${partner.accountId}`)) as AccountView;
    expect(numbers.totalBalances).toEqual({ ETH: 0.12345678901234568 });
  });

  it('POST /v3/accounts with subaccount: true, then reads it through client.masqueraded(subId)', async () => {
    const created = (await client.post('/v3/accounts', {
      type: 'INDIVIDUAL',
      country: 'US',
      subaccount: true,
      profileFields: [
        { fieldId: 'individualLegalName', value: 'Grace Hopper' },
        { fieldId: 'individualEmail', value: 'grace@example.com' },
      ],
    })) as AccountView;
    expect(created.id).toMatch(ACCOUNT_ID);
    expect(created.profileFields).toContainEqual(
      expect.objectContaining({ fieldId: 'individualLegalName', value: 'Grace Hopper', status: 'PENDING' }),
    );
    const [row] = await rows<{ kind: string; parent_id: string; partner_id: string }>(
      t,
      'SELECT kind, parent_id, partner_id FROM accounts WHERE id = $1',
      [created.id],
    );
    expect(row).toEqual({ kind: 'subaccount', parent_id: partner.accountId, partner_id: partner.accountId });

    const read = (await client.masqueraded(created.id).get(`/v3/accounts/${created.id}`)) as AccountView;
    expect(read.id).toBe(created.id);
    expect(seen.at(-1)?.url).toMatch(/\?timestamp=\d{13}&format=json&masqueradeAs=AC_/);
    const audit = await rows(
      t,
      'SELECT api_key, account_id, target, method, route, outcome FROM access_audit',
    );
    expect(audit).toContainEqual({
      api_key: partner.apiKey,
      account_id: partner.accountId,
      target: created.id,
      method: 'GET',
      route: '/v3/accounts/:accountId',
      outcome: 'allowed',
    });
  });

  it('mints a key and deletes it with client.delete (a JSON "{}" body, signed)', async () => {
    const key = (await client.post('/v2/apiKeys', {
      desc: 'from the node client',
      type: 'READONLY',
    })) as CreatedKey;
    expect(key).toMatchObject({ owner: `account:${partner.accountId}`, type: 'READONLY' });
    const minted = new WyreClient({ apiKey: key.apiKey, secretKey: key.secretKey, baseUrl: t.baseUrl });
    expect(((await minted.get(`/v3/accounts/${partner.accountId}`)) as AccountView).id).toBe(
      partner.accountId,
    );
    expect(await client.delete(`/v2/apiKey/${key.apiKey}`)).toEqual({});
    const refused = (await minted
      .get(`/v3/accounts/${partner.accountId}`)
      .catch((error: unknown) => error)) as Envelope | undefined;
    expect(refused).toMatchObject({
      type: 'AccessDeniedException',
      errorCode: 'accessDenied.invalidSignature',
    });
  });

  it('rejects the client with the Wyre envelope when its secret is wrong', async () => {
    const wrong = new WyreClient({
      apiKey: partner.apiKey,
      secretKey: `${partner.secretKey.slice(0, -1)}${partner.secretKey.endsWith('Z') ? 'Y' : 'Z'}`,
      baseUrl: t.baseUrl,
    });
    const error = (await wrong.get(`/v3/accounts/${partner.accountId}`).catch((e: unknown) => e)) as Envelope;
    expect(error).toMatchObject({
      type: 'AccessDeniedException',
      errorCode: 'accessDenied.invalidSignature',
      language: 'en',
    });
  });

  it('a masqueraded client cannot reach an account that is not its sub-account: 403 forbidden', async () => {
    const otherPartner = await createPartner(t, { name: 'Other' });
    const error = (await client
      .masqueraded(otherPartner.accountId)
      .get(`/v3/accounts/${otherPartner.accountId}`)
      .catch((e: unknown) => e)) as Envelope;
    expect(error).toMatchObject({ type: 'AccessDeniedException', errorCode: 'accessDenied.forbidden' });
  });
});
