import { expect } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { signedFetch } from '../helpers/partner.ts';
import { ETH_ADDRESS, sleep, type Tenant } from './support.ts';

/**
 * The fault tests' mixed load. Every POST carries an Idempotency-Key and its exact body is kept,
 * so one the crash left unanswered is sent again unchanged; answered ones can be replayed to
 * prove the same key gives the same bytes.
 */

export type OpKind = 'transfer' | 'unconfirmed' | 'confirm' | 'reserve' | 'order';

/** One idempotent POST: the key and exact body are kept so it can be sent again unchanged. */
export interface Op {
  kind: OpKind;
  key: string;
  path: string;
  body: string;
  /** Undefined while no answer arrived (the connection died with the server). */
  status?: number;
  text?: string;
  /** Sent more than once with the same key. */
  retried?: boolean;
  /** Why the last attempt got no answer. */
  error?: string;
}

export function answerOf<T>(op: Op): T {
  return JSON.parse(op.text ?? 'null') as T;
}

export function idOf(op: Op): string {
  // Reservations answer {url, reservation}; everything else carries its id.
  const answer = answerOf<{ id?: string; reservation?: string }>(op);
  return answer.id ?? answer.reservation ?? '';
}

/** Unanswered, or answered "try again" (409 in flight, 503): sent again with the same key later. */
export function needsRetry(op: Op): boolean {
  return op.status === undefined || op.status === 409 || op.status === 503;
}

let keySeq = 0;
function newKey(kind: OpKind): string {
  keySeq += 1;
  return `fault-${process.pid}-${Date.now().toString(36)}-${kind}-${keySeq}`;
}

/** Sends one op (as a user when its path says so); records the answer, or nothing on a network error. */
export async function send(remote: TestApp, tenant: Tenant, op: Op): Promise<Op> {
  try {
    const response = await signedFetch(remote, tenant.partner, {
      method: 'POST',
      path: op.path,
      body: op.body,
      headers: { 'idempotency-key': op.key },
    });
    op.text = await response.text();
    op.status = response.status;
    op.error = undefined;
  } catch (error) {
    // The server went away before answering: nothing acknowledged.
    op.error = String((error as { cause?: unknown }).cause ?? error);
  }
  return op;
}

const asUserPath = (path: string, userId: string) =>
  `${path}?masqueradeAs=${encodeURIComponent(`user:${userId}`)}`;

export function transferOp(tenant: Tenant, seq: number, notifyUrl: string, autoConfirm: boolean): Op {
  const count = tenant.users.length;
  const from = tenant.users[seq % count] ?? '';
  const to = tenant.users[(seq + 1 + (seq % (count - 1))) % count] ?? '';
  const key = newKey(autoConfirm ? 'transfer' : 'unconfirmed');
  return {
    kind: autoConfirm ? 'transfer' : 'unconfirmed',
    key,
    path: asUserPath('/v3/transfers', from),
    // The key in the message makes every body (and so every signature) distinct.
    body: JSON.stringify({
      source: `user:${from}`,
      sourceCurrency: 'USD',
      sourceAmount: '1.37',
      dest: `user:${to}`,
      destCurrency: 'USD',
      autoConfirm,
      notifyUrl,
      message: key,
    }),
  };
}

/** The confirm of an answered UNCONFIRMED transfer, by its payer. */
export function confirmOp(created: Op): Op {
  const { id, source } = answerOf<{ id: string; source: string }>(created);
  const user = source.replace(/^user:/, '');
  return {
    kind: 'confirm',
    key: newKey('confirm'),
    path: asUserPath(`/v3/transfers/${id}/confirm`, user),
    body: '{}',
  };
}

export function reserveOp(tenant: Tenant): Op {
  const key = newKey('reserve');
  return {
    kind: 'reserve',
    key,
    path: '/v3/orders/reserve',
    body: JSON.stringify({
      sourceAmount: '25',
      amountIncludeFees: false,
      paymentMethod: 'debit-card',
      sourceCurrency: 'USD',
      destCurrency: 'ETH',
      dest: `ethereum:${ETH_ADDRESS}`,
      referrerAccountId: tenant.partner.accountId,
      country: 'US',
      referenceId: key,
    }),
  };
}

/** A card order on an answered rate-locked reservation, paid with the sandbox's approving Visa. */
export function orderOp(tenant: Tenant, reserved: Op): Op {
  const reservation = idOf(reserved);
  const { sourceAmount } = answerOf<{ sourceAmount: string }>(reserved);
  return {
    kind: 'order',
    key: newKey('order'),
    path: '/v3/debitcard/process/partner',
    body: JSON.stringify({
      debitCard: { number: '4111111111111111', year: '2030', month: '01', cvv: '123' },
      reservationId: reservation,
      amount: sourceAmount,
      sourceCurrency: 'USD',
      destCurrency: 'ETH',
      dest: `ethereum:${ETH_ADDRESS}`,
      referrerAccountId: tenant.partner.accountId,
      givenName: 'Ada',
      familyName: 'Lovelace',
      email: 'ada@example.com',
      phone: '+14155550100',
      address: { street1: '123 Test Ave', city: 'Portland', state: 'OR', postalCode: '97209', country: 'US' },
      ipAddress: '203.0.113.7',
      referenceId: reserved.key,
    }),
  };
}

/**
 * The answer of POST /v3/orders/reserve is `{url, reservation}`; the order needs the locked
 * total, read back once (a GET: no effect, nothing to retry).
 */
export async function withQuoteTotal(remote: TestApp, tenant: Tenant, reserved: Op): Promise<Op | undefined> {
  try {
    const { reservation } = answerOf<{ reservation: string }>(reserved);
    const response = await signedFetch(remote, tenant.partner, {
      path: `/v3/orders/reservation/${reservation}`,
    });
    if (response.status !== 200) return undefined;
    const { quote } = (await response.json()) as { quote: { sourceAmount: number } };
    return {
      ...reserved,
      text: JSON.stringify({ id: reservation, sourceAmount: String(quote.sourceAmount) }),
    };
  } catch {
    return undefined;
  }
}

export interface LoadOptions {
  tenant: Tenant;
  /** Where each request goes: one server, or spread over several. */
  target: (seq: number) => TestApp;
  notifyUrl: (seq: number) => string;
  concurrency: number;
  cardOrders: boolean;
  stop: () => boolean;
}

/**
 * The mixed load: autoConfirm transfers, UNCONFIRMED transfers confirmed at once, and
 * reservations followed by a card order. Every op lands in `ops`, answered or not.
 */
export async function runLoad(ops: Op[], options: LoadOptions): Promise<void> {
  let seq = 0;
  const step = async () => {
    seq += 1;
    const mine = seq;
    const remote = options.target(mine);
    const shape = mine % 5;
    if (shape === 4 && options.cardOrders) {
      const reserved = await send(remote, options.tenant, track(ops, reserveOp(options.tenant)));
      if (reserved.status !== 200 || options.stop()) return;
      const priced = await withQuoteTotal(remote, options.tenant, reserved);
      if (priced) await send(remote, options.tenant, track(ops, orderOp(options.tenant, priced)));
      return;
    }
    const autoConfirm = shape !== 3;
    const created = await send(
      remote,
      options.tenant,
      track(ops, transferOp(options.tenant, mine, options.notifyUrl(mine), autoConfirm)),
    );
    // Confirmed even when the load is stopping: an UNCONFIRMED transfer is not a finished op.
    if (!autoConfirm && created.status === 200)
      await send(remote, options.tenant, track(ops, confirmOp(created)));
  };
  const loop = async () => {
    while (!options.stop()) {
      const before = ops.length;
      await step();
      // After a refusal or no answer, pause: a load against a dead database should not spin.
      if (ops.slice(before).some((op) => op.status !== 200)) await sleep(100);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, loop));
}

function track(ops: Op[], op: Op): Op {
  ops.push(op);
  return op;
}

export const acknowledged = (ops: Op[], kind: OpKind) =>
  ops.filter((op) => op.kind === kind && op.status === 200);

/**
 * After a restart: every op without a final answer is sent again with its key until it gets one
 * (the first attempt either committed, and the stored answer comes back, or left nothing, and it
 * runs now). Then the follow-ups the crash cut off: confirms of UNCONFIRMED transfers and card
 * orders of reservations answered only now. Returns how many were sent again.
 */
export async function retryUnanswered(remote: TestApp, tenant: Tenant, ops: Op[]): Promise<number> {
  let retried = 0;
  for (const op of ops.filter(needsRetry)) {
    for (let attempt = 0; needsRetry(op) && attempt < 50; attempt += 1) {
      if (attempt > 0) await sleep(200);
      op.retried = true;
      await send(remote, tenant, op);
    }
    expect(op.status, `${op.kind} ${op.key} never got an answer: ${op.text}`).not.toBeUndefined();
    retried += 1;
  }
  await completeFollowUps(remote, tenant, ops);
  return retried;
}

async function completeFollowUps(remote: TestApp, tenant: Tenant, ops: Op[]): Promise<void> {
  const confirmed = new Set(ops.filter((op) => op.kind === 'confirm').map((op) => op.path.split('/')[3]));
  for (const created of acknowledged(ops, 'unconfirmed')) {
    if (confirmed.has(idOf(created))) continue;
    const confirm = track(ops, confirmOp(created));
    await send(remote, tenant, confirm);
    expect(confirm.status, confirm.text).toBe(200);
  }
}

/**
 * Sends up to `count` already-answered ops again with the same key: each must come back with the
 * same status and the same bytes, marked as a replay, and (checked by the invariants) no second effect.
 */
export async function expectReplays(
  remote: TestApp,
  tenant: Tenant,
  ops: Op[],
  count: number,
): Promise<number> {
  const answered = ops.filter((op) => op.status === 200 && !op.retried).slice(-count);
  for (const op of answered) {
    const response = await signedFetch(remote, tenant.partner, {
      method: 'POST',
      path: op.path,
      body: op.body,
      headers: { 'idempotency-key': op.key },
    });
    const text = await response.text();
    expect(response.status, text).toBe(200);
    expect(response.headers.get('idempotency-replayed')).toBe('true');
    expect(text).toBe(op.text);
  }
  return answered.length;
}
