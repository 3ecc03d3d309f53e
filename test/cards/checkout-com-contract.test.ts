import { describe, expect, expectTypeOf, it } from 'vitest';
import { type CheckoutSdk, checkoutComConnector } from '../../src/cards/checkout-com/connector.ts';
import {
  authorizeRequest,
  captureRequest,
  declineOf,
  minorUnits,
  paymentSnapshot,
  refundRequest,
  statusOf,
  voidRequest,
} from '../../src/cards/checkout-com/transformers.ts';
import type {
  CkoActionAccepted,
  CkoCaptureRequest,
  CkoCardTokenRequest,
  CkoPayment,
  CkoPaymentRequest,
  CkoRefundRequest,
  CkoVoidRequest,
} from '../../src/cards/checkout-com/types.ts';
import { type CardConnector, paymentKey } from '../../src/cards/connector.ts';
import { Money } from '../../src/platform/money.ts';

/**
 * Checkout.com's transformers fit the card connector contract (src/cards/connector.ts): Rampart's
 * operations become the SDK calls' arguments (exact minor units, idempotency keys from
 * paymentKey), and Checkout.com's documented example answers become Rampart's snapshots. The
 * answers are written here after the examples of Checkout.com's API reference
 * (https://api-reference.checkout.com, "Request a payment or payout" 201 and 202, "Get payment
 * details") and response codes page (https://www.checkout.com/docs/resources/codes/response-codes).
 * The SDK is replaced by a fake of its `payments` and `tokens` methods only to show that the
 * transformers plug into the contract: it is not an emulator of Checkout.com.
 */

const ORDER = 'WO_CKOTEST0001';
const PAYMENT = 'pay_y3oqhf46pyzuxjbcn2giaqnb44';
const RETURN_URL = 'https://rampart.example/checkout/return/WO_CKOTEST0001';
const asked = { amount: new Money('65.40'), currency: 'USD' };

const authorize = {
  idempotencyKey: paymentKey(ORDER, 'authorize'),
  orderId: ORDER,
  token: 'tok_ubfj2q76miwundwlk72vxt2i7q',
  amount: new Money('65.40'),
  currency: 'USD',
  returnUrl: RETURN_URL,
  force3ds: false,
};

/** The 201 example of "Request a payment": approved and held. */
const AUTHORIZED: CkoPayment = {
  id: PAYMENT,
  action_id: 'act_y3oqhf46pyzuxjbcn2giaqnb44',
  amount: 6540,
  currency: 'USD',
  approved: true,
  status: 'Authorized',
  auth_code: '643381',
  response_code: '10000',
  response_summary: 'Approved',
  '3ds': { downgraded: true, enrolled: 'N' },
  processed_on: '2018-09-11T10:13:00Z',
  reference: 'ORD-5023-4E89',
  expires_on: '2018-10-11T10:13:00Z',
  _links: {
    self: { href: `https://api.sandbox.checkout.com/payments/${PAYMENT}` },
    capture: { href: `https://api.sandbox.checkout.com/payments/${PAYMENT}/captures` },
    void: { href: `https://api.sandbox.checkout.com/payments/${PAYMENT}/voids` },
  },
};

/** The 202 example: 3-D Secure wanted, the buyer goes to `_links.redirect`. */
const PENDING_3DS: CkoPayment = {
  id: PAYMENT,
  status: 'Pending',
  reference: 'ORD-5023-4E89',
  '3ds': { downgraded: false, enrolled: 'Y' },
  _links: {
    self: { href: `https://api.sandbox.checkout.com/payments/${PAYMENT}` },
    redirect: { href: `https://api.sandbox.checkout.com/3ds/${PAYMENT}` },
  },
};

const declined = (code: string, summary: string): CkoPayment => ({
  ...AUTHORIZED,
  approved: false,
  status: 'Declined',
  response_code: code,
  response_summary: summary,
  _links: { self: AUTHORIZED._links.self },
});

type Payments = CheckoutSdk['payments'];

describe('the types (checked by tsc --noEmit, which covers the tests)', () => {
  it("fit the SDK's own parameter types, and the connector has the contract's shape", () => {
    expectTypeOf<CkoPaymentRequest>().toExtend<Parameters<Payments['request']>[0]>();
    expectTypeOf<CkoCaptureRequest>().toExtend<NonNullable<Parameters<Payments['capture']>[1]>>();
    expectTypeOf<CkoVoidRequest>().toExtend<NonNullable<Parameters<Payments['void']>[1]>>();
    expectTypeOf<CkoRefundRequest>().toExtend<NonNullable<Parameters<Payments['refund']>[1]>>();
    expectTypeOf<string>().toExtend<NonNullable<Parameters<Payments['request']>[1]>>();
    expectTypeOf<CkoCardTokenRequest>().toExtend<Parameters<CheckoutSdk['tokens']['request']>[0]>();
    expectTypeOf<ReturnType<typeof checkoutComConnector>>().toExtend<
      Pick<CardConnector, 'tokenize' | 'authorize' | 'retrieve' | 'capture' | 'void' | 'refund'>
    >();
  });
});

describe('Rampart operations → Checkout.com requests', () => {
  it('authorizes exactly the quote in minor units, held (capture: false), 3-D Secure on, keyed by paymentKey', () => {
    expect(authorizeRequest(authorize)).toEqual({
      idempotencyKey: `rampart-${ORDER}-authorize-1`,
      body: {
        source: { type: 'token', token: authorize.token },
        amount: 6540,
        currency: 'USD',
        payment_type: 'Regular',
        reference: ORDER,
        capture: false,
        '3ds': { enabled: true, challenge_indicator: 'no_preference' },
        success_url: RETURN_URL,
        failure_url: RETURN_URL,
        metadata: { rampart_order_id: ORDER },
      },
    });
    const forced = authorizeRequest({ ...authorize, force3ds: true }).body['3ds'];
    expect(forced).toEqual({ enabled: true, challenge_indicator: 'challenge_requested_mandate' });
  });

  it('writes amounts in the currency minor unit, and refuses one that is not a whole number of them', () => {
    expect(minorUnits(new Money('0.01'), 'USD')).toBe(1);
    expect(minorUnits(new Money('1500'), 'JPY')).toBe(1500);
    expect(minorUnits(new Money('12345678.99'), 'USD')).toBe(1234567899);
    expect(() => minorUnits(new Money('1.005'), 'USD')).toThrow(/not a whole number of minor units/);
  });

  it('captures, voids and refunds the payment by its id, each with its own idempotency key', () => {
    const base = { reference: PAYMENT, amount: new Money('65.40'), currency: 'USD' };
    expect(captureRequest({ ...base, idempotencyKey: paymentKey(ORDER, 'capture') })).toEqual({
      paymentId: PAYMENT,
      idempotencyKey: `rampart-${ORDER}-capture-1`,
      body: { amount: 6540, reference: `rampart-${ORDER}-capture-1` },
    });
    expect(voidRequest({ reference: PAYMENT, idempotencyKey: paymentKey(ORDER, 'void') })).toEqual({
      paymentId: PAYMENT,
      idempotencyKey: `rampart-${ORDER}-void-1`,
      body: { reference: `rampart-${ORDER}-void-1` },
    });
    const partial = { ...base, amount: new Money('10.05'), idempotencyKey: paymentKey(ORDER, 'refund', 2) };
    expect(refundRequest(partial)).toEqual({
      paymentId: PAYMENT,
      idempotencyKey: `rampart-${ORDER}-refund-2`,
      body: { amount: 1005, reference: `rampart-${ORDER}-refund-2` },
    });
  });
});

describe("Checkout.com's documented answers → Rampart snapshots", () => {
  it('reads the 201 Authorized example as AUTHORIZED, with its amount and hold expiry', () => {
    expect(paymentSnapshot(AUTHORIZED, asked)).toEqual({
      reference: PAYMENT,
      status: 'AUTHORIZED',
      amount: new Money('65.4'),
      currency: 'USD',
      capturedAmount: new Money(0),
      authorizationExpiresAtMs: Date.parse('2018-10-11T10:13:00Z'),
    });
    expect(statusOf({ status: 'Card Verified', _links: AUTHORIZED._links })).toBe('AUTHORIZED');
  });

  it('reads the 202 Pending example with a redirect as the 3-D Secure CHALLENGE at that URL', () => {
    expect(paymentSnapshot(PENDING_3DS, asked)).toMatchObject({
      status: 'CHALLENGE',
      challengeUrl: `https://api.sandbox.checkout.com/3ds/${PAYMENT}`,
      amount: asked.amount,
    });
    expect(statusOf({ status: 'Pending', _links: { self: PENDING_3DS._links.self } })).toBe('PENDING');
  });

  it('reads Declined with its response code: 20051 insufficient funds, 20005 do not honour, 3-D Secure failures', () => {
    expect(paymentSnapshot(declined('20051', 'Insufficient Funds'), asked)).toMatchObject({
      status: 'DECLINED',
      decline: { reason: 'INSUFFICIENT_FUNDS', processorCode: '20051' },
    });
    expect(paymentSnapshot(declined('20005', 'Declined - Do Not Honour'), asked).decline).toEqual({
      reason: 'DO_NOT_HONOR',
      processorCode: '20005',
    });
    expect(declineOf('20151')).toEqual({ reason: 'AUTHENTICATION', processorCode: '20151' });
  });

  it('reads Captured (with balances), Voided, and every other status as PENDING', () => {
    const balances = {
      total_authorized: 6540,
      total_voided: 0,
      available_to_void: 0,
      total_captured: 6000,
      available_to_capture: 0,
      total_refunded: 0,
      available_to_refund: 6000,
    };
    expect(paymentSnapshot({ ...AUTHORIZED, status: 'Partially Captured', balances }, asked)).toMatchObject({
      status: 'CAPTURED',
      capturedAmount: new Money('60'),
    });
    expect(paymentSnapshot({ ...AUTHORIZED, status: 'Captured' }, asked).capturedAmount).toEqual(
      new Money('65.4'),
    );
    expect(statusOf({ ...AUTHORIZED, status: 'Voided' })).toBe('VOIDED');
    for (const status of ['Retry Scheduled', 'Expired', 'Canceled', 'Paid', 'Something New'] as const) {
      expect(statusOf({ ...AUTHORIZED, status: status as CkoPayment['status'] })).toBe('PENDING');
    }
  });
});

/** A stand-in for the SDK's `payments` and `tokens`, recording each call's arguments. */
function fakeSdk(answers: { payment?: CkoPayment; action?: CkoActionAccepted; error?: unknown }) {
  const calls: { method: string; args: unknown[] }[] = [];
  const answer =
    (method: string, value: () => unknown) =>
    async (...args: unknown[]) => {
      calls.push({ method, args });
      if (answers.error) throw answers.error;
      return value() as object;
    };
  const payments = {
    request: answer('request', () => answers.payment),
    get: answer('get', () => answers.payment),
    capture: answer('capture', () => answers.action),
    void: answer('void', () => answers.action),
    refund: answer('refund', () => answers.action),
  };
  const tokens = {
    request: answer('tokens.request', () => ({ type: 'card', token: 'tok_x', expires_on: '' })),
  };
  return { sdk: { payments, tokens } as unknown as CheckoutSdk, calls };
}

describe('a connector on the SDK, through the transformers', () => {
  const ACCEPTED: CkoActionAccepted = {
    action_id: 'act_y3oqhf46pyzuxjbcn2giaqnb44',
    reference: `rampart-${ORDER}-capture-1`,
    _links: { payment: { href: `https://api.sandbox.checkout.com/payments/${PAYMENT}` } },
  };

  it('authorizes with the body and idempotency key, and answers the snapshot', async () => {
    const { sdk, calls } = fakeSdk({ payment: PENDING_3DS });
    const connector = checkoutComConnector(sdk, () => asked);
    const result = await connector.authorize(authorize);
    expect(result).toMatchObject({ ok: true, value: { status: 'CHALLENGE' } });
    expect(calls).toEqual([
      { method: 'request', args: [authorizeRequest(authorize).body, authorize.idempotencyKey] },
    ]);
  });

  it('keeps an accepted capture PENDING and an accepted refund a PENDING refund', async () => {
    const { sdk, calls } = fakeSdk({ action: ACCEPTED });
    const connector = checkoutComConnector(sdk, () => asked);
    const op = { reference: PAYMENT, amount: new Money('65.40'), currency: 'USD' };
    const capture = await connector.capture({ ...op, idempotencyKey: paymentKey(ORDER, 'capture') });
    expect(capture).toMatchObject({ ok: true, value: { status: 'PENDING', reference: PAYMENT } });
    const refund = await connector.refund({ ...op, idempotencyKey: paymentKey(ORDER, 'refund') });
    expect(refund).toEqual({
      ok: true,
      value: {
        reference: ACCEPTED.action_id,
        paymentReference: PAYMENT,
        status: 'PENDING',
        amount: op.amount,
        currency: 'USD',
      },
    });
    expect(calls.map(({ method, args }) => [method, args[0], args[2]])).toEqual([
      ['capture', PAYMENT, `rampart-${ORDER}-capture-1`],
      ['refund', PAYMENT, `rampart-${ORDER}-refund-1`],
    ]);
  });

  it('reports a 5xx or no answer as unconfirmed, and a 4xx as refused', async () => {
    const outcome = async (error: unknown) =>
      checkoutComConnector(fakeSdk({ error }).sdk, () => asked).void({
        reference: PAYMENT,
        idempotencyKey: paymentKey(ORDER, 'void'),
      });
    expect(
      await outcome(Object.assign(new Error('bad gateway'), { name: 'BadGateway', http_code: 502 })),
    ).toMatchObject({
      ok: false,
      unconfirmed: true,
    });
    expect(await outcome(Object.assign(new Error('timeout'), { name: 'ApiTimeout' }))).toMatchObject({
      ok: false,
      unconfirmed: true,
    });
    expect(
      await outcome(Object.assign(new Error('invalid'), { name: 'ValidationError', http_code: 422 })),
    ).toEqual({
      ok: false,
      unconfirmed: false,
      refused: 'Checkout.com refused the request: ValidationError 422',
    });
  });
});
