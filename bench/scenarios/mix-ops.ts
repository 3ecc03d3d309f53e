/**
 * The operations of the mixed load (issue 9): what a partner's traffic looks like, one weighted
 * entry per route. Each op builds its requests for one server (signatures cover that server's
 * RAMPART_PUBLIC_URL) and may chain requests (a card order reserves first).
 */

import { type Address, approvingCards, benchAddress } from '../fixtures/cards.ts';
import { createPartner, operatorCall, type Partner, type Signer, signer } from '../fixtures/partner.ts';
import { approvedUsers, creditAll, pickOther } from '../fixtures/users.ts';
import type { RequestSpec, ScenarioContext } from '../harness/scenario.ts';

export interface MixFixture {
  partner: Partner;
  users: string[];
  cards: string[];
  limitsAddress: Address;
}

/** One request's outcome as the op saw it. */
export type Send = (route: string, request: RequestSpec, expected: number) => Promise<string | undefined>;

export interface MixContext {
  fixture: MixFixture;
  sign: Signer;
  send: Send;
  /** Where transfer callbacks go: the harness's receiver. */
  notifyUrl: string;
  /** Transfers answered 200 in the measured window, for matching callbacks (id → answered at, epoch ms). */
  transfers: Map<string, number>;
  /** The latest transfers made (at most RECENT), for reads. */
  recent: string[];
  sequence: () => number;
}

export interface MixOp {
  name: string;
  weight: number;
  run: (context: MixContext) => Promise<void>;
}

const ETH_DEST = 'ethereum:0xBB9bc244D798123fDe783fCc1C72d3Bb8C189413';
const RECENT = 100;
const HIGH_LIMITS = { daily: '1000000000', weekly: '1000000000', yearly: '1000000000' };

export async function makeMixFixture(context: ScenarioContext, users: number): Promise<MixFixture> {
  const partner = await createPartner(context, 'bench mix', true);
  await operatorCall(context, 'PUT', `/operator/v1/accounts/${partner.accountId}/card-limits`, {
    STANDARD: HIGH_LIMITS,
  });
  const ids = await approvedUsers(context, partner, users);
  await creditAll(
    context,
    ids.map((id) => `user:${id}`),
    '1000000',
  );
  return { partner, users: ids, cards: approvingCards(1000), limitsAddress: benchAddress(7, 'Mix Road') };
}

export function signerFor(baseUrl: string, fixture: MixFixture): Signer {
  return signer(baseUrl, fixture.partner);
}

const randomOf = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;

function reserveBody(fixture: MixFixture, sequence: number): string {
  return JSON.stringify({
    sourceAmount: '100',
    amountIncludeFees: false,
    paymentMethod: 'debit-card',
    sourceCurrency: 'USD',
    destCurrency: 'ETH',
    dest: ETH_DEST,
    referrerAccountId: fixture.partner.accountId,
    country: 'US',
    referenceId: `mix-${sequence}`,
  });
}

async function cardOrder({ fixture, sign, send, sequence }: MixContext) {
  const index = sequence();
  const answer = await send(
    'POST /v3/orders/reserve',
    sign('POST', '/v3/orders/reserve', reserveBody(fixture, index)),
    200,
  );
  if (!answer) return;
  const { reservation } = JSON.parse(answer) as { reservation: string };
  // The locked quote's total, as a partner reads it back before charging the card.
  const read = await send(
    'GET /v3/orders/reservation/{id}',
    sign('GET', `/v3/orders/reservation/${reservation}`),
    200,
  );
  if (!read) return;
  const { quote } = JSON.parse(read) as { quote: { sourceAmount: number } };
  const body = JSON.stringify({
    debitCard: { number: fixture.cards[index % fixture.cards.length], year: '2030', month: '01', cvv: '123' },
    reservationId: reservation,
    amount: String(quote.sourceAmount),
    sourceCurrency: 'USD',
    destCurrency: 'ETH',
    dest: ETH_DEST,
    referrerAccountId: fixture.partner.accountId,
    givenName: 'Ada',
    familyName: 'Lovelace',
    email: 'ada@example.com',
    phone: '+14155550100',
    address: benchAddress(index % 1000, 'Mix Street'),
    ipAddress: '203.0.113.7',
  });
  await send('POST /v3/debitcard/process/partner', sign('POST', '/v3/debitcard/process/partner', body), 200);
}

async function transfer({ fixture, sign, send, notifyUrl, transfers, recent }: MixContext) {
  const from = randomOf(fixture.users);
  const body = JSON.stringify({
    source: `user:${from}`,
    sourceCurrency: 'USD',
    sourceAmount: '1.00',
    dest: `user:${pickOther(fixture.users, from)}`,
    destCurrency: 'USD',
    autoConfirm: true,
    notifyUrl,
  });
  const answer = await send(
    'POST /v3/transfers',
    sign('POST', `/v3/transfers?masqueradeAs=user:${from}`, body),
    200,
  );
  if (!answer) return;
  const { id } = JSON.parse(answer) as { id: string };
  transfers.set(id, Date.now());
  recent.push(id);
  if (recent.length > RECENT) recent.shift();
}

async function transferRead({ sign, send, recent }: MixContext) {
  // One of the latest transfers: what a partner polls after creating one.
  if (recent.length === 0) return;
  await send('GET /v3/transfers/{id}', sign('GET', `/v3/transfers/${randomOf(recent)}`), 200);
}

/** Weights: reads dominate, as in a partner's real traffic; every write path is present. */
export const mixOps: readonly MixOp[] = [
  {
    name: 'rates',
    weight: 20,
    run: ({ send }) => send('GET /v3/rates', { method: 'GET', path: '/v3/rates' }, 200).then(() => undefined),
  },
  {
    name: 'limits',
    weight: 10,
    run: ({ fixture, send }) =>
      send(
        'POST /v3/widget/limits/calculate',
        {
          method: 'POST',
          path: '/v3/widget/limits/calculate',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ accountId: fixture.partner.accountId, address: fixture.limitsAddress }),
        },
        200,
      ).then(() => undefined),
  },
  {
    name: 'user read',
    weight: 15,
    run: ({ fixture, sign, send }) => {
      const user = randomOf(fixture.users);
      return send('GET /v3/users/{id}', sign('GET', `/v3/users/${user}?masqueradeAs=user:${user}`), 200).then(
        () => undefined,
      );
    },
  },
  {
    name: 'account read',
    weight: 10,
    run: ({ fixture, sign, send }) =>
      send('GET /v3/accounts/{id}', sign('GET', `/v3/accounts/${fixture.partner.accountId}`), 200).then(
        () => undefined,
      ),
  },
  {
    name: 'reserve',
    weight: 10,
    run: ({ fixture, sign, send, sequence }) =>
      send(
        'POST /v3/orders/reserve',
        sign('POST', '/v3/orders/reserve', reserveBody(fixture, sequence())),
        200,
      ).then(() => undefined),
  },
  { name: 'card order', weight: 5, run: cardOrder },
  { name: 'transfer', weight: 15, run: transfer },
  { name: 'transfer read', weight: 10, run: transferRead },
];

/** An op drawn by weight. */
export function pickOp(): MixOp {
  const total = mixOps.reduce((sum, op) => sum + op.weight, 0);
  let ticket = Math.random() * total;
  for (const op of mixOps) {
    ticket -= op.weight;
    if (ticket < 0) return op;
  }
  return mixOps.at(-1)!;
}
