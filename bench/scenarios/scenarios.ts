/**
 * The HTTP scenarios of a run, in table order. A scenario names the server it loads and how to build
 * its requests; the harness does the rest (start the target, warm up, measure in alternating rounds
 * against `comparedWith`, compare).
 *
 * To add one: append an entry. `requests` runs once inside the load-generator process before the
 * first measurement, so it may create fixtures (an API key, a signing secret) and return a function
 * that signs each request; that function is called for every request, so keep it cheap.
 */
import { createHmac } from 'node:crypto';
import { createPartner, uniqueTimestamps } from '../fixtures/partner.ts';
import type { HttpScenario, RequestSpec, ScenarioContext } from '../harness/scenario.ts';
import { cardScenarios } from './card-scenarios.ts';
import { ledgerScenarios } from './ledger-scenarios.ts';
import { transferScenarios } from './transfer-scenarios.ts';

/** GETs of `base` + a fresh, unique timestamp, each signed as Wyre clients sign (URL as sent). */
function signedGets(
  context: ScenarioContext,
  partner: { apiKey: string; secretKey: string },
  base: string,
): () => RequestSpec {
  const nextTimestamp = uniqueTimestamps();
  return () => {
    const path = `${base}${nextTimestamp()}`;
    const signature = createHmac('sha256', partner.secretKey)
      .update(`${context.baseUrl}${path}`)
      .digest('hex');
    return { method: 'GET', path, headers: { 'x-api-key': partner.apiKey, 'x-api-signature': signature } };
  };
}

export const scenarios: readonly HttpScenario[] = [
  {
    id: 'hello',
    label: '(a) bare Fastify hello-world',
    target: 'baseline',
    expectedStatus: 200,
    requests: () => ({ method: 'GET', path: '/hello' }),
  },
  {
    id: 'select',
    label: '(b) bare Fastify + one PK SELECT',
    target: 'baseline',
    expectedStatus: 200,
    comparedWith: 'hello',
    // A new id per request, so the route pays for a path parameter and rows are not all one hot
    // page, and so request building costs the same as the signed scenarios later compared with it.
    requests: ({ config }) => {
      const rows = config.kvRows;
      return () => ({ method: 'GET', path: `/kv/${1 + Math.floor(Math.random() * rows)}` });
    },
  },
  {
    id: 'insert',
    label: '(c) bare Fastify + one-row INSERT tx',
    target: 'baseline',
    expectedStatus: 201,
    comparedWith: 'hello',
    requests: () => ({
      method: 'POST',
      path: '/kv',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ value: 'bench-insert' }),
    }),
  },
  {
    id: 'healthz',
    label: 'Rampart GET /healthz',
    target: 'rampart',
    expectedStatus: 200,
    comparedWith: 'hello',
    requests: () => ({ method: 'GET', path: '/healthz' }),
  },
  {
    id: 'not-found',
    label: 'Rampart 404 error envelope',
    target: 'rampart',
    expectedStatus: 404,
    comparedWith: 'hello',
    requests: () => ({ method: 'GET', path: '/v3/no-such-route' }),
  },
  {
    id: 'signed',
    label: 'Rampart signed GET /v3/accounts/{id}',
    target: 'rampart',
    expectedStatus: 200,
    comparedWith: 'select',
    // Wyre signing: hex HMAC-SHA256(secret, base URL + path + query), a fresh timestamp each time.
    requests: async (context) => {
      const partner = await createPartner(context, 'bench signed');
      const base = `/v3/accounts/${partner.accountId}?timestamp=`;
      return signedGets(context, partner, base);
    },
  },
  {
    id: 'bearer',
    label: 'Rampart bearer GET /v3/accounts/{id}',
    target: 'rampart',
    expectedStatus: 200,
    comparedWith: 'select',
    requests: async (context) => {
      const partner = await createPartner(context, 'bench bearer');
      const request: RequestSpec = {
        method: 'GET',
        path: `/v3/accounts/${partner.accountId}`,
        headers: { authorization: `Bearer ${partner.secretKey}` },
      };
      // Built per request like (b)'s, so the load generator spends the same on both.
      return () => ({ ...request });
    },
  },
  {
    id: 'rates',
    label: 'Rampart GET /v3/rates',
    target: 'rampart',
    expectedStatus: 200,
    comparedWith: 'hello',
    requests: () => ({ method: 'GET', path: '/v3/rates' }),
  },
  {
    id: 'reserve',
    label: 'Rampart signed POST /v3/orders/reserve (rate-locked)',
    target: 'rampart',
    expectedStatus: 200,
    comparedWith: 'insert',
    // A full rate-lock request (spec §2.1 rule 1): quoted and stored in one INSERT transaction.
    requests: async (context) => {
      const partner = await createPartner(context, 'bench reserve');
      const body = JSON.stringify({
        sourceAmount: '100',
        amountIncludeFees: false,
        paymentMethod: 'debit-card',
        sourceCurrency: 'USD',
        destCurrency: 'ETH',
        dest: 'ethereum:0xBB9bc244D798123fDe783fCc1C72d3Bb8C189413',
        referrerAccountId: partner.accountId,
        country: 'US',
      });
      const nextTimestamp = uniqueTimestamps();
      return () => {
        const path = `/v3/orders/reserve?timestamp=${nextTimestamp()}`;
        const signature = createHmac('sha256', partner.secretKey)
          .update(`${context.baseUrl}${path}${body}`)
          .digest('hex');
        return {
          method: 'POST',
          path,
          body,
          headers: {
            'content-type': 'application/json',
            'x-api-key': partner.apiKey,
            'x-api-signature': signature,
          },
        };
      };
    },
  },
  {
    id: 'user-scopes',
    label: 'Rampart signed, masqueraded GET /v3/users/{id}?scopes=TRANSFER',
    target: 'rampart',
    expectedStatus: 200,
    comparedWith: 'select',
    // One user with the TRANSFER fields submitted; each request signs the URL with masqueradeAs.
    requests: async (context) => {
      const partner = await createPartner(context, 'bench users', true);
      const createPath = `/v3/users?timestamp=${Date.now()}`;
      const createBody = JSON.stringify({
        fields: {
          firstName: 'Bench',
          lastName: 'User',
          dateOfBirth: '1990-01-01',
          residenceAddress: {
            street1: '1 Main St',
            city: 'Austin',
            state: 'TX',
            postalCode: '78701',
            country: 'US',
          },
        },
      });
      const created = await fetch(`${context.baseUrl}${createPath}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-api-key': partner.apiKey,
          'x-api-signature': createHmac('sha256', partner.secretKey)
            .update(`${context.baseUrl}${createPath}${createBody}`)
            .digest('hex'),
        },
        body: createBody,
      });
      const text = await created.text();
      if (created.status !== 200) throw new Error(`creating bench user: ${created.status} ${text}`);
      const userId = (JSON.parse(text) as { id: string }).id;
      const base = `/v3/users/${userId}?scopes=TRANSFER&masqueradeAs=user:${userId}&timestamp=`;
      return signedGets(context, partner, base);
    },
  },
  ...transferScenarios,
  ...cardScenarios,
  ...ledgerScenarios,
];

export function findScenario(id: string): HttpScenario {
  const scenario = scenarios.find((candidate) => candidate.id === id);
  if (!scenario) throw new Error(`no scenario with id "${id}"`);
  return scenario;
}
