import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthorizeRequest, CardProcessor } from '../src/cards/processor.ts';
import type { Queryable } from '../src/platform/db/pool.ts';
import type { CodeSender } from '../src/wallet-orders/code-sender.ts';
import type { TestApp } from './helpers/app.ts';
import { type PartnerCredentials, signedFetch } from './helpers/partner.ts';
import {
  createOrder,
  lockedReservation,
  orderBody,
  postSigned,
  startCardOrderApp,
} from './wallet-orders/support.ts';

/**
 * The composition root (src/compose.ts) wires every outside system from the ports it is given:
 * an app built with its own implementations uses them and nothing else, and two apps in one
 * process share no state.
 */

/** A processor of the test's own: every card approved, with the SMS and CARD2FA step. */
function recordingProcessor(seen: AuthorizeRequest[]): CardProcessor {
  return {
    simulatesIssuer: false,
    authorizationLifetimeMs: 7 * 24 * 3600 * 1000,
    authorize: (_q: Queryable, calls) =>
      calls.map(async ({ request }) => {
        seen.push(request);
        return { outcome: 'APPROVED', step: 'CODES' } as const;
      }),
    capture: async () => undefined,
    void: async () => undefined,
    refund: async () => undefined,
  };
}

const authorized: AuthorizeRequest[] = [];
const codes: { orderId: string; kind: string }[] = [];
const codeSender: CodeSender = {
  issue: (orderId, kind) => {
    codes.push({ orderId, kind });
    return '424242';
  },
};

let own: { t: TestApp; partner: PartnerCredentials };
let sandbox: { t: TestApp; partner: PartnerCredentials };
beforeAll(async () => {
  own = await startCardOrderApp({ ports: { cardProcessor: recordingProcessor(authorized), codeSender } });
  sandbox = await startCardOrderApp();
});
afterAll(async () => Promise.all([own.t.close(), sandbox.t.close()]));

async function placeOrderWithReservation({ t, partner }: { t: TestApp; partner: PartnerCredentials }) {
  const { reservation, amount } = await lockedReservation(t, partner);
  const created = await createOrder(t, partner, orderBody(partner, reservation, amount));
  expect(created.status).toBe(200);
  return { orderId: String(created.body.id), reservation };
}

async function placeOrder(app: { t: TestApp; partner: PartnerCredentials }) {
  return (await placeOrderWithReservation(app)).orderId;
}

async function stepOf({ t, partner }: { t: TestApp; partner: PartnerCredentials }, orderId: string) {
  const response = await signedFetch(t, partner, { path: `/v3/debitcard/authorization/${orderId}` });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

describe('an app composed with its own ports', () => {
  it('charges through its own card processor and sends codes through its own sender', async () => {
    const orderId = await placeOrder(own);
    expect(authorized.map((request) => request.orderId)).toEqual([orderId]);
    expect(codes).toEqual([
      { orderId, kind: 'SMS' },
      { orderId, kind: 'CARD2FA' },
    ]);
    expect(await stepOf(own, orderId)).toMatchObject({ smsNeeded: true, card2faNeeded: true });
  });

  it('leaves another app of the same process on the sandbox ports', async () => {
    const orderId = await placeOrder(sandbox);
    expect(authorized).toHaveLength(1);
    expect(codes).toHaveLength(2);
    expect(await stepOf(sandbox, orderId)).toMatchObject({ smsNeeded: false, card2faNeeded: false });
  });

  it('accepts the codes its own sender issued, and only those', async () => {
    const { orderId, reservation } = await placeOrderWithReservation(own);
    const submit = (code: string) =>
      postSigned(own.t, own.partner, '/v3/debitcard/authorize/partner', {
        walletOrderId: orderId,
        reservation,
        type: 'ALL',
        sms: code,
        card2fa: code,
      });
    expect((await submit('000000')).status).toBe(400);
    expect((await submit('424242')).status).toBe(200);
    expect(await stepOf(own, orderId)).toMatchObject({ smsNeeded: false, card2faNeeded: false });
  });
});
