import {
  type CardConnector,
  type CardDeclinedError,
  type CardPaymentRow,
  type ConnectorResult,
  cardHasPaidOrder,
  type DeclineReason,
  declineError,
  findPayment,
  lockPayment,
  orderOfReference,
  type PaymentSnapshot,
  type ProcessorEvent,
  paymentKey,
  recordEvent,
  updatePayment,
} from '../cards/index.ts';
import { type Tx, withTransaction } from '../platform/db/pool.ts';
import { enqueueJob } from '../platform/jobs/queue.ts';
import { Money } from '../platform/money.ts';
import { AUTHORIZATION_TTL_MS, codesStepFor } from './authorization.ts';
import type { WalletOrdersDeps } from './deps.ts';
import { onDisputeEvent } from './disputes.ts';
import { FAILURES } from './errors.ts';
import { authorizationExpiryJob, cardAuthorizeJob, enqueueProcessing } from './jobs.ts';
import { onRefundEvent } from './refunds.ts';
import {
  findOrder,
  lockOrder,
  type OrderRow,
  replaceAuthorizationStep,
  updateAuthorization,
} from './store.ts';
import { threeDsCapability } from './three-ds-capability.ts';
import { failOrder } from './transitions.ts';
import { type WalletOrderBody, walletOrderView } from './view.ts';

/**
 * A remote processor's authorization, after the order's transaction committed (docs/contract.md,
 * "Card processors", decisions 100-103). The order was stored RUNNING_CHECKS with its step
 * pending on the processor and its payment AUTHORIZING; from here the processor is asked with
 * the key paymentKey(order, 'authorize'), by the request itself first, then by the status poll
 * job (a crash, a timeout), and its answer is recorded under the order's lock: the same answer
 * recorded twice changes nothing the second time, whichever of the request, the poll, the
 * 3-D Secure return or the processor's event brings it.
 */

/** Polls before the payment is left to the operator (about an hour and a half of asking, backing off). */
export const MAX_AUTHORIZE_POLLS = 12;
const FIRST_POLL_DELAY_MS = 5_000;
const MAX_POLL_DELAY_MS = 15 * 60_000;

function connectorOf(ctx: WalletOrdersDeps): CardConnector {
  const connector = ctx.cardProcessor.remote;
  if (!connector) throw new Error('the card processor is not a remote one');
  return connector;
}

/** A connector call bounded by RAMPART_CARD_PROCESSOR_TIMEOUT_MS: past it, unconfirmed. */
async function bounded<T>(ctx: WalletOrdersDeps, call: () => Promise<ConnectorResult<T>>) {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<ConnectorResult<T>>((resolve) => {
    timer = setTimeout(
      () => resolve({ ok: false, unconfirmed: true, detail: 'no answer in time' }),
      ctx.config.cardProcessorTimeoutMs,
    );
  });
  try {
    return await Promise.race([
      call().catch(
        (error: unknown): ConnectorResult<T> => ({ ok: false, unconfirmed: true, detail: String(error) }),
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Where the issuer's 3-D Secure page sends the buyer back (card-processor-routes.ts). */
export function challengeReturnUrl(ctx: WalletOrdersDeps, orderId: string): string {
  const base = ctx.config.publicUrls[0];
  return `${base}/card-processor/return/${orderId}/${threeDsCapability(ctx, orderId)}`;
}

/**
 * Asks the processor where the payment stands: the authorize again with its key (the processor
 * answers the first request's outcome, or makes it if it never arrived) until a reference is
 * known, then a retrieve of that payment.
 */
function askProcessor(ctx: WalletOrdersDeps, payment: CardPaymentRow) {
  const connector = connectorOf(ctx);
  if (payment.reference !== null) {
    const reference = payment.reference;
    return bounded(ctx, () => connector.retrieve(reference));
  }
  return bounded(ctx, () =>
    connector.authorize({
      idempotencyKey: paymentKey(payment.order_id, 'authorize'),
      orderId: payment.order_id,
      token: payment.token,
      amount: new Money(payment.amount),
      currency: payment.currency,
      returnUrl: challengeReturnUrl(ctx, payment.order_id),
      force3ds: payment.force_3ds,
    }),
  );
}

/** What recording an answer did to the order. */
export type Resolution =
  | { kind: 'pending' }
  | { kind: 'challenge' }
  | { kind: 'cleared' }
  | { kind: 'codes' }
  | { kind: 'declined'; error: CardDeclinedError }
  | { kind: 'unchanged' };

/**
 * After the order's COMMIT, in the request: asks the processor once (bounded) and records the
 * answer. A decline throws Rampart's decline error (the order is FAILED, hold and spend released);
 * anything else answers, and the caller reads the order as it now stands.
 */
export async function authorizeAfterCommit(ctx: WalletOrdersDeps, orderId: string): Promise<void> {
  const payment = await findPayment(ctx.db, orderId);
  if (payment?.state !== 'AUTHORIZING') return;
  const answer = await askProcessor(ctx, payment);
  // Unconfirmed: the poll job asks again with the same key.
  if (!answer.ok && answer.unconfirmed) return;
  const snapshot = answer.ok ? answer.value : refusedSnapshot(payment, answer.refused);
  const resolution = await withTransaction(ctx.db, (tx) => recordSnapshot(ctx, tx, orderId, snapshot));
  if (resolution.kind === 'declined') throw resolution.error;
}

/**
 * A new order as the API answers it, once committed: for a remote processor, asked after COMMIT
 * (authorizeAfterCommit) and read again; a decline throws its error. Other processors answered
 * inside the order's transaction: the order is as it was stored.
 */
export async function afterOrderCommitted(
  ctx: WalletOrdersDeps,
  order: WalletOrderBody,
): Promise<WalletOrderBody> {
  if (!ctx.cardProcessor.remote) return order;
  await authorizeAfterCommit(ctx, order.id);
  const row = await findOrder(ctx.db, order.id);
  return row ? walletOrderView(row) : order;
}

/**
 * The status poll: asks again (same key, or the payment's reference) while the processor has
 * not answered finally; backs off, and past MAX_AUTHORIZE_POLLS flags the payment for the
 * operator and leaves the order pending (nothing is guessed). Done once the order's step left
 * the processor (answered by the request, an event or a return).
 */
export async function pollCardPayment(ctx: WalletOrdersDeps, orderId: string, poll: number): Promise<void> {
  const payment = await findPayment(ctx.db, orderId);
  if (payment?.state !== 'AUTHORIZING') return;
  const answer = await askProcessor(ctx, payment);
  const snapshot = answer.ok
    ? answer.value
    : answer.unconfirmed
      ? undefined
      : refusedSnapshot(payment, answer.refused);
  const resolution = snapshot
    ? await withTransaction(ctx.db, (tx) => recordSnapshot(ctx, tx, orderId, snapshot))
    : ({ kind: 'pending' } as const);
  if (resolution.kind !== 'pending') return;
  await withTransaction(ctx.db, async (tx) => {
    const locked = await lockPayment(tx, orderId);
    if (locked?.state !== 'AUTHORIZING') return;
    if (poll + 1 >= MAX_AUTHORIZE_POLLS) {
      const detail =
        answer.ok || !answer.unconfirmed ? 'the processor still reports it pending' : answer.detail;
      await updatePayment(tx, orderId, {
        polls: poll + 1,
        attention: `status poll gave up: ${detail}`.slice(0, 500),
      });
      return;
    }
    await updatePayment(tx, orderId, { polls: poll + 1 });
    const delay = Math.min(MAX_POLL_DELAY_MS, FIRST_POLL_DELAY_MS * 2 ** poll);
    await enqueueJob(tx, cardAuthorizeJob(orderId, ctx.clock.realNow() + delay, poll + 1));
  });
  if (poll + 1 >= MAX_AUTHORIZE_POLLS) {
    // The job fails (logged by the runner); the payment's `attention` is what the operator reads.
    throw new Error(`card payment of order ${orderId} still unconfirmed after ${MAX_AUTHORIZE_POLLS} polls`);
  }
}

/**
 * The processor refused the authorize request itself (not a decline: a request it calls wrong,
 * such as a token it does not know). That is its explicit word that nothing is held: the order
 * fails as declined, the refusal kept as the processor's code.
 */
function refusedSnapshot(payment: CardPaymentRow, refused: string): PaymentSnapshot {
  return {
    reference: payment.reference ?? '',
    status: 'DECLINED',
    amount: new Money(payment.amount),
    currency: payment.currency,
    capturedAmount: new Money(0),
    decline: { reason: 'DO_NOT_HONOR', processorCode: `refused: ${refused}` },
  };
}

/**
 * The buyer back from the issuer's 3-D Secure page: the payment as the processor has it now,
 * recorded. Answers what it did (the page shows it or sends the buyer on).
 */
export async function returnFromChallenge(ctx: WalletOrdersDeps, orderId: string): Promise<Resolution> {
  const payment = await findPayment(ctx.db, orderId);
  if (payment?.state !== 'CHALLENGE') return { kind: 'unchanged' };
  const answer = await askProcessor(ctx, payment);
  if (!answer.ok) return { kind: 'pending' };
  return withTransaction(ctx.db, (tx) => recordSnapshot(ctx, tx, orderId, answer.value));
}

/**
 * Records the processor's word on an order's payment, under the order's lock then the
 * payment's, in `tx`. Only an answer that moves the order's pending step changes anything: the
 * processor step (AUTHORIZING) moves to 3-D Secure, codes, cleared or FAILED; a 3-D Secure step
 * (CHALLENGE) to cleared or FAILED. Anything else (a repeat, an event out of order, an order
 * already failed or processed) only keeps the processor's reference.
 */
export async function recordSnapshot(
  ctx: WalletOrdersDeps,
  tx: Tx,
  orderId: string,
  snapshot: PaymentSnapshot,
): Promise<Resolution> {
  const order = await lockOrder(tx, orderId);
  const payment = order && (await lockPayment(tx, orderId));
  if (!order || !payment) return { kind: 'unchanged' };
  if (payment.reference === null && snapshot.reference !== '') {
    await updatePayment(tx, orderId, { reference: snapshot.reference });
  }
  const expiresAt = snapshot.authorizationExpiresAtMs ? new Date(snapshot.authorizationExpiresAtMs) : null;
  const waiting = order.status === 'RUNNING_CHECKS' && order.auth_state === 'PENDING';
  if (!waiting) return { kind: 'unchanged' };
  if (payment.state === 'AUTHORIZING' && order.auth_method === 'PROCESSOR') {
    return resolveProcessorStep({ ctx, tx, order, snapshot, expiresAt });
  }
  if (payment.state === 'CHALLENGE' && order.auth_method === '3DS') {
    return resolveChallenge({ ctx, tx, order, snapshot, expiresAt });
  }
  return { kind: 'unchanged' };
}

/** A payment waiting on the processor's answer, the order locked, and that answer. */
interface WaitingStep {
  ctx: WalletOrdersDeps;
  tx: Tx;
  order: OrderRow;
  snapshot: PaymentSnapshot;
  /** When the processor's authorization ends, if it said. */
  expiresAt: Date | null;
}

async function resolveProcessorStep({
  ctx,
  tx,
  order,
  snapshot,
  expiresAt,
}: WaitingStep): Promise<Resolution> {
  const nowMs = ctx.clock.nowMs();
  switch (snapshot.status) {
    case 'CHALLENGE': {
      await updatePayment(tx, order.id, {
        state: 'CHALLENGE',
        challenge_url: snapshot.challengeUrl ?? null,
      });
      await replaceAuthorizationStep(tx, order.id, {
        method: '3DS',
        smsHash: null,
        card2faHash: null,
        expiresAtMs: nowMs + AUTHORIZATION_TTL_MS,
      });
      await enqueueJob(tx, authorizationExpiryJob(order.id, ctx.clock.realNow() + AUTHORIZATION_TTL_MS));
      return { kind: 'challenge' };
    }
    case 'AUTHORIZED':
    case 'CAPTURED': {
      await markAuthorized(tx, order.id, expiresAt);
      if (await codesWanted(ctx, tx, order)) {
        const step = codesStepFor(ctx, order.id);
        await replaceAuthorizationStep(tx, order.id, step.authorization);
        for (const job of step.jobs) await enqueueJob(tx, job);
        return { kind: 'codes' };
      }
      return passStep(tx, order.id, nowMs);
    }
    case 'DECLINED':
    case 'VOIDED':
      return decline(ctx, tx, order, snapshot, declineReasonOf(snapshot));
    default:
      return { kind: 'pending' };
  }
}

/** The processor's authorization recorded on the payment, with when it ends. */
function markAuthorized(tx: Tx, orderId: string, expiresAt: Date | null): Promise<void> {
  return updatePayment(tx, orderId, { state: 'AUTHORIZED', authorization_expires_at: expiresAt });
}

/**
 * The order's authorization step passed (with 3-D Secure's verdict when that was the step), and
 * the order queued for processing.
 */
async function passStep(tx: Tx, orderId: string, nowMs: number, threeDs?: 'APPROVED'): Promise<Resolution> {
  await updateAuthorization(
    tx,
    orderId,
    threeDs ? { three_ds_decision: threeDs, state: 'PASSED' } : { state: 'PASSED' },
    nowMs,
  );
  await enqueueProcessing(tx, orderId);
  return { kind: 'cleared' };
}

async function resolveChallenge({ ctx, tx, order, snapshot, expiresAt }: WaitingStep): Promise<Resolution> {
  const nowMs = ctx.clock.nowMs();
  if (snapshot.status === 'AUTHORIZED' || snapshot.status === 'CAPTURED') {
    await markAuthorized(tx, order.id, expiresAt);
    // 3-D Secure passed is the issuer's own check of the buyer: no codes are asked after it.
    return passStep(tx, order.id, nowMs, 'APPROVED');
  }
  if (snapshot.status === 'DECLINED' || snapshot.status === 'VOIDED') {
    await updateAuthorization(tx, order.id, { three_ds_decision: 'DECLINED' }, nowMs);
    return decline(ctx, tx, order, snapshot, declineReasonOf(snapshot), FAILURES.threeDsDeclined);
  }
  return { kind: 'pending' };
}

/**
 * The decline recorded (the processor's raw code kept for the record, never shown to the buyer)
 * and the order failed: hold and spend released; a declined payment has nothing to void.
 */
async function decline(
  ctx: WalletOrdersDeps,
  tx: Tx,
  order: OrderRow,
  snapshot: PaymentSnapshot,
  reason: DeclineReason,
  failure?: { code: string; message: string },
): Promise<Resolution> {
  await updatePayment(tx, order.id, {
    state: 'DECLINED',
    decline_reason: snapshot.decline?.reason ?? reason,
    processor_code: snapshot.decline?.processorCode?.slice(0, 100) ?? null,
  });
  const error = declineError(reason);
  await failOrder(ctx, tx, order, failure ?? { code: error.errorCode, message: error.message });
  return { kind: 'declined', error };
}

/** The connector's decline in the port's terms; a failed 3-D Secure reads as "do not honor". */
function declineReasonOf(snapshot: PaymentSnapshot): DeclineReason {
  const reason = snapshot.decline?.reason;
  return reason === undefined || reason === 'AUTHENTICATION' ? 'DO_NOT_HONOR' : reason;
}

/**
 * Whether an approved order asks the buyer for an SMS code (docs/contract.md decision 105):
 * `RAMPART_CARD_SMS_CODES` always, never, or on a card's first order (no earlier order of that
 * card reached PROCESSING), and only where the code sender delivers SMS. A CARD2FA code is
 * asked only of a connector that carries statement codes; none does yet.
 */
async function codesWanted(ctx: WalletOrdersDeps, tx: Tx, order: OrderRow): Promise<boolean> {
  const policy = ctx.config.cardSmsCodes;
  // Without a sender that delivers SMS no code can be asked: the processor's approval stands.
  if (policy === 'never' || !ctx.codeSender.delivers.includes('SMS')) return false;
  if (policy === 'always') return true;
  return !(await cardHasPaidOrder(tx, order.card_fingerprint, order.id));
}

/** What an event did, as recorded with its id. */
export type EventOutcome = 'handled' | 'duplicate' | 'unknown-order';

/**
 * A verified processor event: recorded by its id (a repeat is a no-op), its order found by id or
 * by the processor's reference (an unknown one is recorded and ignored), then dispatched in the
 * same transaction: a payment update resolves as the poll would; refunds and disputes go to
 * their handlers (refunds.ts, disputes.ts).
 */
export async function onProcessorEvent(ctx: WalletOrdersDeps, event: ProcessorEvent): Promise<EventOutcome> {
  const processor = connectorOf(ctx).name;
  return withTransaction(ctx.db, async (tx) => {
    const reference = paymentReferenceOf(event);
    const named = event.orderId ?? (await orderOfReference(tx, processor, reference));
    const payment = named === undefined ? undefined : await findPayment(tx, named);
    const orderId = payment?.processor === processor ? payment.order_id : null;
    const outcome: EventOutcome = orderId === null ? 'unknown-order' : 'handled';
    const fresh = await recordEvent(tx, {
      processor,
      eventId: event.eventId,
      kind: event.kind,
      orderId,
      outcome,
    });
    if (!fresh) return 'duplicate';
    if (orderId === null) return outcome;
    if (event.kind === 'payment.updated') await recordSnapshot(ctx, tx, orderId, event.payment);
    else if (event.kind === 'refund.updated') await onRefundEvent(ctx, tx, { ...event, orderId });
    else await onDisputeEvent(ctx, tx, { ...event, orderId });
    return outcome;
  });
}

function paymentReferenceOf(event: ProcessorEvent): string {
  if (event.kind === 'payment.updated') return event.payment.reference;
  if (event.kind === 'refund.updated') return event.refund.paymentReference;
  return event.dispute.paymentReference;
}
