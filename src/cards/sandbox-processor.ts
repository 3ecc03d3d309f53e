import type { Queryable } from '../platform/db/pool.ts';
import { lookupBin } from './bins.ts';
import type { AuthorizeRequest, AuthorizeResult, CardProcessor } from './processor.ts';
import { SLOW_CARD_DELAY_MS, testCardBehaviour } from './test-cards.ts';

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
 * live in `sandbox_card_authorizations`, written with the caller's transaction.
 */
export const sandboxProcessor: CardProcessor = {
  async authorize(q: Queryable, request: AuthorizeRequest, signal: AbortSignal): Promise<AuthorizeResult> {
    const behaviour = testCardBehaviour(request.card.pan);
    const declined = decline(request, behaviour);
    // A repeat answers the first approval without waiting or declining; an approval that is
    // not slow finds out from its own insert (one round trip), the rest look first.
    if ((declined || behaviour === 'SLOW') && (await authorized(q, request.orderId))) return APPROVED_BEFORE;
    if (declined) return declined;
    // The caller's transaction must not be touched once it stopped waiting for us.
    if (behaviour === 'SLOW') await abortableDelay(SLOW_CARD_DELAY_MS, signal);
    signal.throwIfAborted();
    const { rows } = await q.query(
      `INSERT INTO sandbox_card_authorizations (order_id, card_fingerprint, currency, amount, state, created_at, updated_at)
       VALUES ($1, $2, $3, $4, 'AUTHORIZED', to_timestamp($5 / 1000.0), to_timestamp($5 / 1000.0))
       ON CONFLICT (order_id) DO NOTHING RETURNING order_id`,
      [request.orderId, request.fingerprint, request.currency, request.amount.toFixed(), request.nowMs],
    );
    if (rows.length === 0) return APPROVED_BEFORE;
    const step = behaviour === 'NEEDS_CODES' ? 'CODES' : behaviour === 'NEEDS_3DS' ? '3DS' : 'NONE';
    return { outcome: 'APPROVED', step };
  },
  capture: (q, orderId) => move(q, orderId, 'AUTHORIZED', 'CAPTURED'),
  void: (q, orderId) => move(q, orderId, 'AUTHORIZED', 'VOIDED'),
  refund: (q, orderId) => move(q, orderId, 'CAPTURED', 'REFUNDED'),
};

/** What a repeated authorise of an order already authorised answers. */
const APPROVED_BEFORE: AuthorizeResult = { outcome: 'APPROVED', step: 'NONE' };

async function authorized(q: Queryable, orderId: string): Promise<boolean> {
  const { rows } = await q.query('SELECT 1 FROM sandbox_card_authorizations WHERE order_id = $1', [orderId]);
  return rows.length > 0;
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

/** One conditional update: a repeat finds the row already moved and changes nothing. */
async function move(q: Queryable, orderId: string, from: string, to: string): Promise<void> {
  await q.query(
    'UPDATE sandbox_card_authorizations SET state = $3, updated_at = now() WHERE order_id = $1 AND state = $2',
    [orderId, from, to],
  );
}
