import type { Queryable } from '../platform/db/pool.ts';
import { Money } from '../platform/money.ts';
import { lookupBin } from './bins.ts';
import type { CardInput } from './card-input.ts';
import type { TimeRange } from './connector.ts';
import { cardErrors } from './errors.ts';
import {
  type ApplePayToken,
  type AuthorizeCall,
  type AuthorizeRequest,
  type AuthorizeResult,
  CARD_AUTHORIZATION_LIFETIME_MS,
  type CardProcessor,
  type CardRefund,
  type DisputeAction,
  type DisputeEvent,
  type ProcessorBooks,
} from './processor.ts';
import {
  closeSandboxDispute,
  insertSandboxAuthorizations,
  moveSandboxAuthorizations,
  openSandboxDispute,
  recordSandboxRefund,
  type SandboxDisputeRow,
  sandboxAuthorizedAmong,
  sandboxMovements,
} from './sandbox-store.ts';
import { SLOW_CARD_DELAY_MS, TEST_CARDS, type TestCardBehaviour, testCardBehaviour } from './test-cards.ts';

function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * A processor that behaves like a real one for the documented test cards: BIN check (credit and
 * prepaid refused), AVS, declines, extra authorization steps, a slow answer. Its authorizations
 * live in `sandbox_card_authorizations`, written with the caller's transaction: the approvals
 * that answer at once in one statement per authorize call.
 */
export const sandboxProcessor: CardProcessor = {
  simulatesIssuer: true,
  authorizationLifetimeMs: CARD_AUTHORIZATION_LIFETIME_MS,
  authorize(q: Queryable, calls: readonly AuthorizeCall[]): Promise<AuthorizeResult>[] {
    const behaviours = calls.map((call) => testCardBehaviour(call.request.card.pan));
    const declines = calls.map((call, index) => decline(call.request, behaviours[index]!));
    // A repeat answers the first approval without waiting or declining; an approval that is
    // not slow finds out from its own insert, the rest look first (one statement for all).
    const looks = calls.filter((_, index) => declines[index] || behaviours[index] === 'SLOW');
    const before =
      looks.length > 0
        ? sandboxAuthorizedAmong(
            q,
            looks.map((call) => call.request.orderId),
          )
        : Promise.resolve(new Set<string>());
    const prompt = calls.filter((_, index) => !declines[index] && behaviours[index] !== 'SLOW');
    const written = prompt.length > 0 ? recordAuthorizations(q, prompt) : Promise.resolve(new Set<string>());
    // Each answer is awaited by its caller; these keep an unawaited failure from going unhandled.
    before.catch(() => undefined);
    written.catch(() => undefined);
    return calls.map(async (call, index) => {
      const { orderId } = call.request;
      const behaviour = behaviours[index]!;
      if (behaviour !== 'SLOW' && !declines[index]) {
        if ((await written).has(orderId)) return approved(behaviour);
        call.signal.throwIfAborted(); // left out of the insert, not a repeat
        return APPROVED_BEFORE;
      }
      if ((await before).has(orderId)) return APPROVED_BEFORE;
      const declined = declines[index];
      if (declined) return declined;
      await abortableDelay(SLOW_CARD_DELAY_MS, call.signal);
      return (await recordAuthorizations(q, [call])).has(orderId) ? approved(behaviour) : APPROVED_BEFORE;
    });
  },
  capture: (q, orderIds) => moveSandboxAuthorizations(q, orderIds, 'AUTHORIZED', 'CAPTURED'),
  void: (q, orderId) => moveSandboxAuthorizations(q, [orderId], 'AUTHORIZED', 'VOIDED'),
  refund: sandboxRefund,
  books: sandboxBooks,
  simulateDispute: sandboxDispute,
  applePayCard: sandboxApplePayCard,
};

/**
 * Whole or partial, confirmed at once. A refund the sandbox cannot make (nothing captured, or
 * more than is left) is a caller's bug: the refund rules (wallet-orders/refunds.ts) refuse it first.
 */
async function sandboxRefund(q: Queryable, orderId: string, refund: CardRefund): Promise<'COMPLETE'> {
  const recorded = await recordSandboxRefund(q, {
    refundId: refund.refundId,
    orderId,
    amount: refund.amount.toFixed(),
  });
  if (!recorded)
    throw new Error(`sandbox processor: nothing left to refund ${refund.amount.toFixed()} of ${orderId}`);
  return 'COMPLETE';
}

/** What the sandbox's card network charges for a dispute, in the charge's currency (as Stripe's 15 USD). */
export const SANDBOX_DISPUTE_FEE = '15';

async function sandboxDispute(
  q: Queryable,
  orderId: string,
  action: DisputeAction,
): Promise<DisputeEvent | undefined> {
  const row =
    action === 'OPEN'
      ? await openSandboxDispute(q, { reference: `dp_sandbox_${orderId}`, orderId, fee: SANDBOX_DISPUTE_FEE })
      : await closeSandboxDispute(q, orderId, action === 'WIN' ? 'WON' : 'LOST');
  if (!row) return undefined;
  const expected = action === 'OPEN' ? 'OPEN' : action === 'WIN' ? 'WON' : 'LOST';
  // Closing a dispute closed the other way (or opening a closed one) answers nothing to send.
  if (row.status !== expected && action !== 'OPEN') return undefined;
  return disputeEvent(row, action === 'OPEN' ? 'OPEN' : row.status);
}

function disputeEvent(row: SandboxDisputeRow, status: SandboxDisputeRow['status']): DisputeEvent {
  const kind = status === 'OPEN' ? 'dispute.opened' : status === 'WON' ? 'dispute.won' : 'dispute.lost';
  return {
    eventId: `sandbox:${row.reference}:${kind}`,
    kind,
    orderId: row.order_id,
    dispute: {
      reference: row.reference,
      paymentReference: `ch_sandbox_${row.order_id}`,
      amount: new Money(row.amount),
      currency: row.currency,
      reason: 'fraudulent',
    },
  };
}

async function sandboxBooks(q: Queryable, range: TimeRange): Promise<ProcessorBooks> {
  const movements = await sandboxMovements(q, range.fromMs, range.toMs);
  return {
    balanceTransactions: movements.map((movement) => ({
      reference: movement.reference,
      type: movement.type,
      orderId: movement.order_id,
      amount: new Money(movement.amount),
      fee: new Money(movement.fee),
      currency: movement.currency,
      createdAtMs: Number(movement.at_ms),
      payoutReference: null,
    })),
    // The sandbox pays nothing out to a bank: its balance stays with it.
    payouts: [],
  };
}

const DEFAULT_APPLE_PAY_CARD = '4111111111111111';

/**
 * The sandbox decrypts nothing: an Apple Pay token stands for the test card whose last four
 * digits end its `paymentMethod.displayName` ("Visa 3220" is the 3-D Secure card, "Visa 0002"
 * the declined one; docs/sandbox-cards.md), else the approving Visa debit card. A token whose
 * `paymentMethod.type` is credit or prepaid is refused as such a card would be.
 */
function sandboxApplePayCard(token: ApplePayToken, nowMs: number): CardInput {
  const type = token.paymentMethod.type?.toLowerCase();
  if (type === 'credit') throw cardErrors.credit();
  if (type === 'prepaid') throw cardErrors.prepaid();
  const last4 = /(\d{4})\s*$/.exec(token.paymentMethod.displayName ?? '')?.[1];
  const number =
    (last4 && Object.keys(TEST_CARDS).find((card) => card.endsWith(last4))) || DEFAULT_APPLE_PAY_CARD;
  // A device account number carries no security code; the sandbox processor reads none.
  return { number, year: String(new Date(nowMs).getUTCFullYear() + 3), month: '12', cvv: '000' };
}

/** What a repeated authorise of an order already authorised answers. */
const APPROVED_BEFORE: AuthorizeResult = { outcome: 'APPROVED', step: 'NONE' };

function approved(behaviour: TestCardBehaviour): AuthorizeResult {
  const step = behaviour === 'NEEDS_CODES' ? 'CODES' : behaviour === 'NEEDS_3DS' ? '3DS' : 'NONE';
  return { outcome: 'APPROVED', step };
}

/**
 * The calls' authorizations, one statement; answers the order ids it wrote (a repeat writes
 * nothing). Calls already aborted are left out: their caller's transaction is not ours to touch.
 */
function recordAuthorizations(q: Queryable, calls: readonly AuthorizeCall[]): Promise<Set<string>> {
  const live = calls.filter((call) => !call.signal.aborted);
  if (live.length === 0) return Promise.reject(calls[0]!.signal.reason);
  return insertSandboxAuthorizations(
    q,
    live.map(({ request }) => ({
      orderId: request.orderId,
      fingerprint: request.fingerprint,
      currency: request.currency,
      amount: request.amount.toFixed(),
      at: request.nowMs,
    })),
  );
}

function decline(request: AuthorizeRequest, behaviour: string): AuthorizeResult | undefined {
  const bin = lookupBin(request.card.pan);
  if (!bin) return { outcome: 'DECLINED', reason: 'BRAND' };
  if (bin.type === 'CREDIT') return { outcome: 'DECLINED', reason: 'CREDIT' };
  if (bin.type === 'PREPAID') return { outcome: 'DECLINED', reason: 'PREPAID' };
  if (behaviour === 'AVS_ZIP_MISMATCH') return { outcome: 'DECLINED', reason: 'AVS_ZIP' };
  if (behaviour === 'DECLINE_DO_NOT_HONOR') return { outcome: 'DECLINED', reason: 'DO_NOT_HONOR' };
  if (behaviour === 'INSUFFICIENT_FUNDS') return { outcome: 'DECLINED', reason: 'INSUFFICIENT_FUNDS' };
  return undefined;
}
