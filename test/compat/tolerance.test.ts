import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { portOf, rawRequest } from '../helpers/http.ts';
import {
  bearerFetch,
  createPartner,
  type PartnerCredentials,
  sign,
  signedFetch,
} from '../helpers/partner.ts';
import {
  approvedUser,
  credit,
  operator,
  startTransfersApp,
  type TransfersFixture,
} from '../transfers/support.ts';
import { asUser, createUser, TRANSFER_FIELDS } from '../users/support.ts';

/**
 * What real Wyre clients send that Wyre accepted (docs/contract.md, "Tolerance" and decisions
 * 60-64), each seen failing against Rampart before, and the strictness that stays.
 */

let fx: TransfersFixture;
let partner: PartnerCredentials;
let bob: string;

beforeAll(async () => {
  fx = await startTransfersApp();
  partner = fx.partner;
  bob = await approvedUser(fx.t, partner);
  await credit(fx.t, `account:${partner.accountId}`, 'USD', '1000');
});
afterAll(async () => fx?.t.close());

/** A signed request with exactly these headers and body bytes (fetch adds no type to bytes). */
function signedRaw(
  method: string,
  pathAndQuery: string,
  body: string | undefined,
  headers: Record<string, string>,
) {
  const url = `${pathAndQuery}${pathAndQuery.includes('?') ? '&' : '?'}timestamp=${Date.now()}`;
  const bytes = body === undefined ? undefined : Buffer.from(body);
  return fetch(`${fx.t.baseUrl}${url}`, {
    method,
    headers: {
      'x-api-key': partner.apiKey,
      'x-api-signature': sign(partner.secretKey, `${fx.t.baseUrl}${url}`, bytes),
      ...headers,
    },
    ...(bytes !== undefined ? { body: new Uint8Array(bytes) } : {}),
  });
}

const transferBody = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    source: `account:${partner.accountId}`,
    sourceCurrency: 'USD',
    sourceAmount: '1',
    dest: `user:${bob}`,
    destCurrency: 'USD',
    ...extra,
  });

async function json(response: Response) {
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text) as Record<string, unknown>, text };
}

describe('bodies and credentials (decision 61)', () => {
  it('reads JSON sent with no Content-Type, or as JavaScript or plain text', async () => {
    const types: Record<string, string>[] = [
      {},
      { 'content-type': 'application/javascript' },
      { 'content-type': 'text/plain' },
    ];
    for (const headers of types) {
      const answer = await json(await signedRaw('POST', '/v3/transfers', transferBody(), headers));
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.status).toBe('UNCONFIRMED');
    }
  });

  it('still refuses other media types with 415', async () => {
    const answer = await json(
      await signedRaw('POST', '/v3/transfers', transferBody(), { 'content-type': 'application/xml' }),
    );
    expect(answer.status).toBe(415);
  });

  it('checks the signature over the bytes received, whatever the type', async () => {
    const url = `/v3/transfers?timestamp=${Date.now()}`;
    const response = await fetch(`${fx.t.baseUrl}${url}`, {
      method: 'POST',
      headers: {
        'x-api-key': partner.apiKey,
        // Signed over other bytes than those sent.
        'x-api-signature': sign(
          partner.secretKey,
          `${fx.t.baseUrl}${url}`,
          transferBody({ sourceAmount: '2' }),
        ),
      },
      body: new Uint8Array(Buffer.from(transferBody())),
    });
    expect(response.status).toBe(401);
  });

  it('confirms with an empty body of a form type', async () => {
    const created = await json(await signedRaw('POST', '/v3/transfers', transferBody(), {}));
    const answer = await json(
      await signedRaw('POST', `/v3/transfers/${created.body.id}/confirm`, '', {
        'content-type': 'application/x-www-form-urlencoded',
      }),
    );
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.status).toBe('COMPLETED');
  });

  it('takes `{}` as the body of a signed GET, and refuses any other GET body', async () => {
    // fetch sends no GET body: the bytes go over a socket as a client library writes them.
    const signedGet = (body: string) => {
      const url = `/v3/transfers?timestamp=${Date.now()}`;
      const signature = sign(partner.secretKey, `${fx.t.baseUrl}${url}`, body);
      return rawRequest(portOf(fx.t.baseUrl), [
        `GET ${url} HTTP/1.1\r\nhost: 127.0.0.1\r\nx-api-key: ${partner.apiKey}\r\nx-api-signature: ${signature}\r\n` +
          `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      ]);
    };
    const answer = await signedGet('{ }');
    expect(answer.status, JSON.stringify(answer.json)).toBe(200);
    expect(answer.json).toHaveProperty('data');
    const other = await signedGet('{"a":1}');
    expect(other.status).toBe(400);
    expect(other.json).toMatchObject({ errorCode: 'validation.bodyNotAllowed' });
  });

  it('authenticates a bearer sent beside an empty X-Api-Key', async () => {
    const response = await fetch(`${fx.t.baseUrl}/v3/accounts/${partner.accountId}`, {
      headers: { authorization: `Bearer ${partner.secretKey}`, 'x-api-key': '' },
    });
    expect(response.status, await response.clone().text()).toBe(200);
  });
});

describe('unknown names and coercions (decisions 60, 62)', () => {
  it('ignores body fields and query parameters it does not know', async () => {
    const answer = await json(
      await signedFetch(fx.t, partner, {
        method: 'POST',
        path: '/v3/transfers?pretty=true',
        body: transferBody({ muteMessages: true, somethingNew: { nested: 1 } }),
      }),
    );
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).not.toHaveProperty('somethingNew');
  });

  it('keeps refusing unknown names on the operator API', async () => {
    const response = await operator(fx.t, 'POST', '/operator/v1/sandbox/clock', {
      advanceSeconds: 1,
      extra: true,
    });
    const body = (await response.json()) as Record<string, unknown>;
    expect(response.status).toBe(400);
    expect(body.errorCode).toBe('validation.unknownField');
  });

  it('refuses masqueradeAs in a body', async () => {
    const answer = await json(
      await signedFetch(fx.t, partner, {
        method: 'POST',
        path: '/v3/transfers',
        body: transferBody({ masqueradeAs: `user:${bob}` }),
      }),
    );
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      errorCode: 'validation.masqueradeInBody',
      problematicField: 'masqueradeAs',
    });
  });

  it('reads "true" and "false" as booleans, and refuses other strings and types', async () => {
    const included = await json(
      await signedFetch(fx.t, partner, {
        method: 'POST',
        path: '/v3/transfers',
        body: transferBody({ amountIncludesFees: 'true', preview: 'true' }),
      }),
    );
    expect(included.status, included.text).toBe(200);
    expect(included.body.status).toBe('PREVIEW');
    expect(included.body.sourceAmount).toBe(1);
    for (const value of ['yes', 1, 'TRUE ']) {
      const refused = await json(
        await signedFetch(fx.t, partner, {
          method: 'POST',
          path: '/v3/transfers',
          body: transferBody({ amountIncludesFees: value }),
        }),
      );
      expect(refused.status).toBe(400);
      expect(refused.body.problematicField).toBe('amountIncludesFees');
    }
  });

  it('reads a numeric phone as E.164 digits', async () => {
    const reserved = await json(
      await signedFetch(fx.t, partner, {
        method: 'POST',
        path: '/v3/orders/reserve',
        body: JSON.stringify({ amount: '10', referrerAccountId: partner.accountId, phone: 14155550100 }),
      }),
    );
    expect(reserved.status, reserved.text).toBe(200);
    const read = await json(
      await signedFetch(fx.t, partner, { path: `/v3/orders/reservation/${reserved.body.reservation}` }),
    );
    expect(read.body.phone).toBe('+14155550100');
    const fraction = await json(
      await signedFetch(fx.t, partner, {
        method: 'POST',
        path: '/v3/orders/reserve',
        body: JSON.stringify({ amount: '10', referrerAccountId: partner.accountId, phone: 1.5 }),
      }),
    );
    expect(fraction.status).toBe(400);
    expect(fraction.body.problematicField).toBe('phone');
  });

  it('takes the transfer id in a confirm body when it is the path’s', async () => {
    const other = await json(await signedRaw('POST', '/v3/transfers', transferBody(), {}));
    const created = await json(await signedRaw('POST', '/v3/transfers', transferBody(), {}));
    const mismatch = await json(
      await signedFetch(fx.t, partner, {
        method: 'POST',
        path: `/v3/transfers/${created.body.id}/confirm`,
        body: JSON.stringify({ transferId: other.body.id }),
      }),
    );
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.problematicField).toBe('transferId');
    const confirmed = await json(
      await signedFetch(fx.t, partner, {
        method: 'POST',
        path: `/v3/transfers/${created.body.id}/confirm`,
        body: JSON.stringify({ transferId: created.body.id }),
      }),
    );
    expect(confirmed.status, confirmed.text).toBe(200);
  });

  it('leaves out an empty street2 of an account address', async () => {
    const answer = await json(
      await signedFetch(fx.t, partner, {
        method: 'POST',
        path: '/v3/accounts',
        body: JSON.stringify({
          type: 'INDIVIDUAL',
          country: 'US',
          subaccount: 'true',
          profileFields: [
            {
              fieldId: 'individualResidenceAddress',
              value: {
                street1: '1 Market St',
                street2: '',
                city: 'San Francisco',
                state: 'CA',
                postalCode: '94105',
                country: 'US',
              },
            },
          ],
        }),
      }),
    );
    expect(answer.status, answer.text).toBe(200);
    const fields = answer.body.profileFields as { fieldId: string; value: unknown }[];
    const address = fields.find((field) => field.fieldId === 'individualResidenceAddress');
    expect(address?.value).not.toHaveProperty('street2');
    expect(answer.body.subaccount).toBe(true);
  });

  it('takes cellphoneNumber as the cellphone field', async () => {
    const user = await createUser(fx.t, partner, {
      fields: { ...TRANSFER_FIELDS, cellphoneNumber: '+16508155122' },
    });
    const read = await json(await asUser(fx.t, partner, user.id, 'GET', `/v3/users/${user.id}`));
    const fields = read.body.fields as Record<string, { value: unknown }>;
    expect(fields.cellphone?.value).toBe('+16508155122');
    expect(fields).not.toHaveProperty('cellphoneNumber');
  });
});

describe('reservations and accounts (decisions 63, 64)', () => {
  it('reserves with only referrerAccountId: the buyer picks the amount', async () => {
    const reserved = await json(
      await signedFetch(fx.t, partner, {
        method: 'POST',
        path: '/v3/orders/reserve',
        body: JSON.stringify({ referrerAccountId: partner.accountId }),
      }),
    );
    expect(reserved.status, reserved.text).toBe(200);
    const read = await json(
      await signedFetch(fx.t, partner, { path: `/v3/orders/reservation/${reserved.body.reservation}` }),
    );
    expect(read.body).toMatchObject({ amount: null, sourceAmount: null, destAmount: null, quote: null });
    const empty = await json(
      await signedFetch(fx.t, partner, { method: 'POST', path: '/v3/orders/reserve', body: '{}' }),
    );
    expect(empty.status).toBe(400);
    expect(empty.body.problematicField).toBe('sourceAmount');
  });

  it('lets a decentralized session sign up through a partner (referrerAccountId)', async () => {
    const secret = 'decentralized-secret-0123456789-abcdef';
    const session = await fetch(`${fx.t.baseUrl}/v2/sessions/auth/key`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ secretKey: secret }),
    });
    expect(session.status).toBe(200);
    const account = { type: 'INDIVIDUAL', country: 'US', referrerAccountId: partner.accountId };
    const created = await json(await bearerFetch(fx.t, secret, 'POST', '/v3/accounts', account));
    expect(created.status, created.text).toBe(200);
    expect(created.body.subaccount).toBe(false);

    const other = 'decentralized-secret-0123456789-zyxwvu';
    await fetch(`${fx.t.baseUrl}/v2/sessions/auth/key?secretKey=${other}`, { method: 'POST' });
    const unknownReferrer = await json(
      await bearerFetch(fx.t, other, 'POST', '/v3/accounts', {
        ...account,
        referrerAccountId: created.body.id,
      }),
    );
    expect(unknownReferrer.status).toBe(400);
    expect(unknownReferrer.body.errorCode).toBe('validation.invalidReferrerId');
  });

  it('creates a non-custodial account for a partner key without subaccount: true', async () => {
    const other = await createPartner(fx.t, { name: 'Referring partner' });
    const created = await json(
      await signedFetch(fx.t, other, {
        method: 'POST',
        path: '/v3/accounts',
        body: JSON.stringify({ type: 'INDIVIDUAL', country: 'US' }),
      }),
    );
    expect(created.status, created.text).toBe(200);
    expect(created.body.subaccount).toBe(false);
    // Non-custodial: the partner neither reads it nor acts for it.
    const read = await signedFetch(fx.t, other, { path: `/v3/accounts/${created.body.id}` });
    expect(read.status).toBe(404);
    const { rows } = await fx.t.ctx.db.query<{ referrer_account_id: string; partner_id: string }>(
      'SELECT referrer_account_id, partner_id FROM accounts WHERE id = $1',
      [created.body.id],
    );
    expect(rows[0]).toEqual({ referrer_account_id: other.accountId, partner_id: created.body.id });
  });
});
