import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { bearerFetch, createPartner, type PartnerCredentials, signedFetch } from '../helpers/partner.ts';
import {
  ACCOUNT_ID,
  type AccountView,
  API_KEY,
  countRows,
  expectError,
  expectOk,
  rows,
  sessionSecret,
  snapshot,
  startIdentityApp,
  unknownId,
} from './support.ts';

let t: TestApp;
let partner: PartnerCredentials;

beforeAll(async () => {
  t = await startIdentityApp();
  partner = await createPartner(t);
});
afterAll(async () => t?.close());

interface SessionAnswer {
  apiKey: string;
  authenticatedAs: string | null;
}

const registerInQuery = (secret: string) =>
  fetch(`${t.baseUrl}/v2/sessions/auth/key?secretKey=${encodeURIComponent(secret)}`, { method: 'POST' });
const registerInBody = (body: unknown, query = '') =>
  fetch(`${t.baseUrl}/v2/sessions/auth/key${query}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

async function newSession() {
  const secret = sessionSecret();
  const answer = await expectOk<SessionAnswer>(await registerInQuery(secret));
  return { secret, apiKey: answer.apiKey };
}

const createOwnAccount = (secret: string, body: Record<string, unknown> = {}) =>
  bearerFetch(t, secret, 'POST', '/v3/accounts', { type: 'INDIVIDUAL', country: 'US', ...body });

describe('POST /v2/sessions/auth/key', () => {
  it('registers a secret sent in the query (no body): {apiKey, authenticatedAs: null}', async () => {
    const secret = sessionSecret();
    const answer = await expectOk<SessionAnswer>(await registerInQuery(secret));
    expect(answer).toEqual({ apiKey: expect.stringMatching(API_KEY), authenticatedAs: null });
    const [row] = await rows<{ account_id: string | null; origin: string; type: string }>(
      t,
      'SELECT account_id, origin, type FROM api_keys WHERE api_key = $1',
      [answer.apiKey],
    );
    expect(row).toEqual({ account_id: null, origin: 'session', type: 'FULL' });
  });

  it('registers a secret sent in the JSON body', async () => {
    const answer = await expectOk<SessionAnswer>(await registerInBody({ secretKey: sessionSecret() }));
    expect(answer).toEqual({ apiKey: expect.stringMatching(API_KEY), authenticatedAs: null });
  });

  it('accepts the same secret in both query and body', async () => {
    const secret = sessionSecret();
    await expectOk(await registerInBody({ secretKey: secret }, `?secretKey=${secret}`));
  });

  it('accepts exactly 25 and exactly 128 characters', async () => {
    await expectOk(await registerInQuery(sessionSecret().slice(0, 25)));
    await expectOk(await registerInBody({ secretKey: `${sessionSecret()}${'x'.repeat(96)}` }));
  });

  const refused: [string, () => Promise<Response>, string][] = [
    ['24 characters in the query', () => registerInQuery(sessionSecret().slice(0, 24)), 'secretKey'],
    [
      '24 characters in the body',
      () => registerInBody({ secretKey: sessionSecret().slice(0, 24) }),
      'secretKey',
    ],
    [
      '129 characters',
      () => registerInBody({ secretKey: `${sessionSecret()}${'x'.repeat(97)}` }),
      'secretKey',
    ],
    [
      'a control character (body)',
      () => registerInBody({ secretKey: `${sessionSecret()}\u0007` }),
      'secretKey',
    ],
    ['a space (query)', () => registerInQuery(`${sessionSecret()} ${sessionSecret()}`), 'secretKey'],
    ['a non-ASCII letter', () => registerInBody({ secretKey: `${sessionSecret()}\u00e9` }), 'secretKey'],
    ['a number instead of a string', () => registerInBody({ secretKey: 12345678901234 }), 'secretKey'],
    [
      'different secrets in query and body',
      () => registerInBody({ secretKey: sessionSecret() }, `?secretKey=${sessionSecret()}`),
      'secretKey',
    ],
  ];
  for (const [name, send, field] of refused) {
    it(`refuses ${name}: 400 naming ${field}, nothing stored`, async () => {
      const before = await snapshot(t);
      await expectError(await send(), 400, 'ValidationException', { problematicField: field });
      expect(await snapshot(t)).toEqual(before);
    });
  }

  it('refuses no secret at all: 400 FieldRequiredException', async () => {
    const before = await snapshot(t);
    await expectError(await registerInBody({}), 400, 'FieldRequiredException', {
      problematicField: 'secretKey',
    });
    await expectError(
      await fetch(`${t.baseUrl}/v2/sessions/auth/key`, { method: 'POST' }),
      400,
      'FieldRequiredException',
      { problematicField: 'secretKey' },
    );
    expect(await snapshot(t)).toEqual(before);
  });

  it('the same secret twice: 400 validation.secretKeyInUse, nothing stored the second time', async () => {
    const secret = sessionSecret();
    await expectOk(await registerInQuery(secret));
    const before = await snapshot(t);
    await expectError(await registerInBody({ secretKey: secret }), 400, 'ValidationException', {
      errorCode: 'validation.secretKeyInUse',
    });
    expect(await snapshot(t)).toEqual(before);
  });

  it("a partner's own secret key cannot be registered as a session", async () => {
    const before = await snapshot(t);
    await expectError(await registerInQuery(partner.secretKey), 400, 'ValidationException', {
      errorCode: 'validation.secretKeyInUse',
    });
    expect(await snapshot(t)).toEqual(before);
  });

  it('parallel registrations of one secret: exactly one succeeds', async () => {
    const secret = sessionSecret();
    const responses = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        i % 2 ? registerInQuery(secret) : registerInBody({ secretKey: secret }),
      ),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([200, 400, 400, 400, 400, 400]);
    for (const response of responses) {
      if (response.status === 400) {
        await expectError(response, 400, 'ValidationException', { errorCode: 'validation.secretKeyInUse' });
      }
    }
    const { createHash } = await import('node:crypto');
    const hash = createHash('sha256').update(secret).digest('hex');
    expect(await countRows(t, 'SELECT 1 FROM api_keys WHERE secret_hash = $1', [hash])).toBe(1);
  });
});

describe('the untied session token', () => {
  it('every call but account creation answers 401 accessDenied.noAccount, nothing changed', async () => {
    const { secret } = await newSession();
    const before = await snapshot(t);
    const noAccount = { errorCode: 'accessDenied.noAccount' };
    await expectError(
      await bearerFetch(t, secret, 'GET', `/v3/accounts/${unknownId('AC')}`),
      401,
      'AccessDeniedException',
      noAccount,
    );
    await expectError(
      await bearerFetch(t, secret, 'GET', `/v3/accounts/${partner.accountId}`),
      401,
      'AccessDeniedException',
      noAccount,
    );
    await expectError(
      await bearerFetch(t, secret, 'POST', '/v2/apiKeys', { desc: 'untied' }),
      401,
      'AccessDeniedException',
      noAccount,
    );
    await expectError(
      await bearerFetch(t, secret, 'POST', `/v3/accounts/${partner.accountId}`, {
        profileFields: [{ fieldId: 'individualLegalName', value: 'x' }],
      }),
      401,
      'AccessDeniedException',
      noAccount,
    );
    expect(await snapshot(t)).toEqual(before);
  });

  it('signature auth with the session apiKey and the token as secret: 401 noAccount before the account exists', async () => {
    const { secret, apiKey } = await newSession();
    await expectError(
      await signedFetch(
        t,
        { accountId: '', apiKey, secretKey: secret },
        { path: `/v3/accounts/${unknownId('AC')}` },
      ),
      401,
      'AccessDeniedException',
      { errorCode: 'accessDenied.noAccount' },
    );
  });

  it('POST /v3/accounts ties it to a new individual account; then the API opens up', async () => {
    const { secret, apiKey } = await newSession();
    const account = await expectOk<AccountView>(
      await createOwnAccount(secret, {
        profileFields: [{ fieldId: 'individualLegalName', value: 'Dee Central' }],
      }),
    );
    expect(account).toMatchObject({
      id: expect.stringMatching(ACCOUNT_ID),
      type: 'INDIVIDUAL',
      country: 'US',
    });
    expect(account.profileFields).toContainEqual(
      expect.objectContaining({ fieldId: 'individualLegalName', value: 'Dee Central', status: 'PENDING' }),
    );
    const [row] = await rows<{ kind: string; partner_id: string; parent_id: string | null }>(
      t,
      'SELECT kind, partner_id, parent_id FROM accounts WHERE id = $1',
      [account.id],
    );
    expect(row).toEqual({ kind: 'individual', partner_id: account.id, parent_id: null });
    const [key] = await rows<{ account_id: string; partner_id: string }>(
      t,
      'SELECT account_id, partner_id FROM api_keys WHERE api_key = $1',
      [apiKey],
    );
    expect(key).toEqual({ account_id: account.id, partner_id: account.id });

    const read = await expectOk<AccountView>(
      await bearerFetch(t, secret, 'GET', `/v3/accounts/${account.id}`),
    );
    expect(read.id).toBe(account.id);
    // The session's apiKey with the token as signing secret (spec §5.4.5): the token is not sent.
    const signed = await expectOk<AccountView>(
      await signedFetch(
        t,
        { accountId: account.id, apiKey, secretKey: secret },
        { path: `/v3/accounts/${account.id}` },
      ),
    );
    expect(signed.id).toBe(account.id);
    // Now it may mint keys for its account.
    const minted = await expectOk<{ owner: string }>(
      await bearerFetch(t, secret, 'POST', '/v2/apiKeys', { desc: 'device 2' }),
    );
    expect(minted.owner).toBe(`account:${account.id}`);
    // It sees neither the partner's master nor other accounts.
    await expectError(
      await bearerFetch(t, secret, 'GET', `/v3/accounts/${partner.accountId}`),
      404,
      'NotFoundException',
    );
  });

  it('a second POST /v3/accounts: 400 validation.accountAlreadyExists, nothing created', async () => {
    const { secret } = await newSession();
    await expectOk(await createOwnAccount(secret));
    const before = await snapshot(t);
    await expectError(await createOwnAccount(secret), 400, 'ValidationException', {
      errorCode: 'validation.accountAlreadyExists',
    });
    // Nor as a "sub-account": an individual is not a master.
    await expectError(await createOwnAccount(secret, { subaccount: true }), 403, 'AccessDeniedException', {
      errorCode: 'accessDenied.forbidden',
    });
    expect(await snapshot(t)).toEqual(before);
  });

  it('POST /v3/accounts retried with its Idempotency-Key replays the account, though the token is now tied', async () => {
    const { secret } = await newSession();
    const send = () =>
      fetch(`${t.baseUrl}/v3/accounts`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${secret}`,
          'content-type': 'application/json',
          'idempotency-key': 'own-account',
        },
        body: JSON.stringify({ type: 'INDIVIDUAL', country: 'US' }),
      });
    const first = await send();
    const firstText = await first.text();
    expect(first.status, firstText).toBe(200);
    const before = await snapshot(t);
    const retry = await send();
    const retryText = await retry.text();
    expect(retry.status, retryText).toBe(200);
    expect(retry.headers.get('idempotency-replayed')).toBe('true');
    expect(retryText).toBe(firstText);
    expect(await snapshot(t)).toEqual(before);
  });

  it('two parallel POST /v3/accounts with one fresh token: exactly one 200, one account row', async () => {
    const { secret, apiKey } = await newSession();
    const accountsBefore = await countRows(t, 'SELECT 1 FROM accounts');
    const responses = await Promise.all([
      createOwnAccount(secret),
      createOwnAccount(secret),
      createOwnAccount(secret),
    ]);
    const ok = responses.filter((response) => response.status === 200);
    expect(ok).toHaveLength(1);
    for (const response of responses.filter((r) => r.status !== 200)) {
      await expectError(response, 400, 'ValidationException', {
        errorCode: 'validation.accountAlreadyExists',
      });
    }
    const account = await expectOk<AccountView>(ok[0]!);
    expect(await countRows(t, 'SELECT 1 FROM accounts')).toBe(accountsBefore + 1);
    const [key] = await rows<{ account_id: string }>(
      t,
      'SELECT account_id FROM api_keys WHERE api_key = $1',
      [apiKey],
    );
    expect(key?.account_id).toBe(account.id);
  });

  it("an untied session may delete its own key, which then stops working; not anyone else's", async () => {
    const mine = await newSession();
    const theirs = await newSession();
    const before = await snapshot(t);
    await expectError(
      await bearerFetch(t, mine.secret, 'DELETE', `/v2/apiKey/${theirs.apiKey}`),
      404,
      'NotFoundException',
    );
    await expectError(
      await bearerFetch(t, mine.secret, 'DELETE', `/v2/apiKey/${partner.apiKey}`),
      404,
      'NotFoundException',
    );
    expect(await snapshot(t)).toEqual(before);
    expect(await expectOk(await bearerFetch(t, mine.secret, 'DELETE', `/v2/apiKey/${mine.apiKey}`))).toEqual(
      {},
    );
    await expectError(await createOwnAccount(mine.secret), 401, 'AccessDeniedException', {
      errorCode: 'accessDenied.invalidSession',
    });
    await expectOk(await createOwnAccount(theirs.secret));
  });
});
