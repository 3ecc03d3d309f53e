import type {
  CardConnector,
  ConnectorResult,
  PaymentSnapshot,
  ProcessorEvent,
  RefundSnapshot,
} from '../../src/cards/connector.ts';
import { ConnectorSignatureError } from '../../src/cards/connector.ts';
import { Money } from '../../src/platform/money.ts';

/**
 * A test double of Rampart's own CardConnector port (not of any processor): it lets a test say
 * what "the processor" answers, to exercise the order lifecycle around the port (recording,
 * polling, replays, events) without a network. What a real processor answers is tested against
 * the Stripe emulator and, with credentials, Stripe itself (test/wallet-orders/stripe-*.test.ts).
 *
 * Behaviour by the card's last four digits: `0002` declines, `3220` asks for 3-D Secure, `0005`
 * answers nothing the first `unanswered` times. Payments are kept by idempotency key, so a repeat
 * with the same key answers the same payment, as a processor's idempotency does.
 */
export class ScriptedConnector implements CardConnector {
  readonly name = 'scripted';
  readonly supports = { statementCodes: false, partialCapture: true, partialRefund: true };
  /** Payments made, by reference. */
  readonly payments = new Map<string, PaymentSnapshot & { key: string; orderId: string }>();
  readonly calls: { operation: string; key?: string }[] = [];
  /** How many authorize calls of the `0005` card go unanswered before one is answered. */
  unanswered = 1;
  /** Operations answered unconfirmed before they succeed, by kind. */
  readonly failures: Record<string, number> = {};
  /** Kinds the processor refuses for good. */
  readonly refusals = new Set<string>();
  private byKey = new Map<string, string>();
  private sequence = 0;

  async tokenize(card: { pan: string }): Promise<ConnectorResult<{ token: string }>> {
    this.calls.push({ operation: 'tokenize' });
    return { ok: true, value: { token: `tok_${card.pan.slice(-4)}` } };
  }

  async authorize(request: Parameters<CardConnector['authorize']>[0]) {
    this.calls.push({ operation: 'authorize', key: request.idempotencyKey });
    const last4 = request.token.slice(-4);
    if (last4 === '0005' && this.unanswered > 0) {
      this.unanswered -= 1;
      // The request arrived and the payment was made, but its answer was lost on the way back.
      this.paymentFor(request, 'AUTHORIZED');
      return unconfirmed<PaymentSnapshot>('socket hang up');
    }
    const status =
      last4 === '0002' ? 'DECLINED' : last4 === '3220' || request.force3ds ? 'CHALLENGE' : 'AUTHORIZED';
    return ok(this.paymentFor(request, status));
  }

  async retrieve(reference: string) {
    this.calls.push({ operation: 'retrieve' });
    const payment = this.payments.get(reference);
    return payment ? ok(snapshotOf(payment)) : refused<PaymentSnapshot>('no such payment');
  }

  async capture(request: Parameters<CardConnector['capture']>[0]) {
    return this.operate('capture', request.idempotencyKey, request.reference, 'CAPTURED');
  }

  async void(request: Parameters<CardConnector['void']>[0]) {
    return this.operate('void', request.idempotencyKey, request.reference, 'VOIDED');
  }

  async refund(request: Parameters<CardConnector['refund']>[0]): Promise<ConnectorResult<RefundSnapshot>> {
    this.calls.push({ operation: 'refund', key: request.idempotencyKey });
    return ok({
      reference: `re_${request.idempotencyKey}`,
      paymentReference: request.reference,
      status: 'SUCCEEDED',
      amount: request.amount,
      currency: request.currency,
    });
  }

  /** Events are this JSON with a header `x-scripted-signature: good`. */
  parseEvent(rawBody: Buffer, headers: Record<string, string | string[] | undefined>): ProcessorEvent | null {
    if (headers['x-scripted-signature'] !== 'good') throw new ConnectorSignatureError('bad signature');
    const event = JSON.parse(rawBody.toString('utf8')) as ProcessorEvent & { ignored?: boolean };
    if (event.ignored) return null;
    if (event.kind === 'payment.updated') {
      const p = event.payment as unknown as Record<string, string>;
      return {
        ...event,
        payment: {
          ...event.payment,
          amount: new Money(p.amount!),
          capturedAmount: new Money(p.capturedAmount ?? '0'),
        },
      };
    }
    return event;
  }

  async balanceTransactions() {
    return ok([]);
  }

  async payouts() {
    return ok([]);
  }

  /** The issuer decides the challenge of `reference` (what the buyer does on the issuer's page). */
  decideChallenge(reference: string, approve: boolean): void {
    const payment = this.payments.get(reference)!;
    payment.status = approve ? 'AUTHORIZED' : 'DECLINED';
    if (!approve) payment.decline = { reason: 'AUTHENTICATION', processorCode: 'authentication_failed' };
    delete payment.challengeUrl;
  }

  paymentOf(orderId: string) {
    return [...this.payments.values()].find((payment) => payment.orderId === orderId);
  }

  private paymentFor(request: Parameters<CardConnector['authorize']>[0], status: PaymentSnapshot['status']) {
    const known = this.byKey.get(request.idempotencyKey);
    if (known) return snapshotOf(this.payments.get(known)!);
    this.sequence += 1;
    const reference = `pay_${this.sequence}`;
    const payment = {
      key: request.idempotencyKey,
      orderId: request.orderId,
      reference,
      status,
      amount: request.amount,
      currency: request.currency,
      capturedAmount: new Money(0),
      ...(status === 'CHALLENGE' ? { challengeUrl: `https://issuer.example/challenge/${reference}` } : {}),
      ...(status === 'DECLINED'
        ? { decline: { reason: 'DO_NOT_HONOR' as const, processorCode: 'generic_decline' } }
        : {}),
    };
    this.payments.set(reference, payment);
    this.byKey.set(request.idempotencyKey, reference);
    return snapshotOf(payment);
  }

  private async operate(kind: string, key: string, reference: string, status: PaymentSnapshot['status']) {
    this.calls.push({ operation: kind, key });
    if (this.refusals.has(kind)) return refused<PaymentSnapshot>(`${kind} refused`);
    if ((this.failures[kind] ?? 0) > 0) {
      this.failures[kind]! -= 1;
      return unconfirmed<PaymentSnapshot>('503 from the processor');
    }
    const payment = this.payments.get(reference)!;
    payment.status = status;
    if (status === 'CAPTURED') payment.capturedAmount = payment.amount;
    return ok(snapshotOf(payment));
  }
}

function snapshotOf(payment: PaymentSnapshot & { key?: string; orderId?: string }): PaymentSnapshot {
  const { key: _key, orderId: _orderId, ...snapshot } = payment;
  return { ...snapshot };
}

const ok = <T>(value: T): ConnectorResult<T> => ({ ok: true, value });
const unconfirmed = <T>(detail: string): ConnectorResult<T> => ({ ok: false, unconfirmed: true, detail });
const refused = <T>(why: string): ConnectorResult<T> => ({ ok: false, unconfirmed: false, refused: why });
