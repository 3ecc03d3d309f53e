import type { Queryable } from '../platform/db/pool.ts';
import type { ApiError } from '../platform/errors.ts';
import { CardDeclinedError, cardErrors } from './errors.ts';
import type { AuthorizationStep, AuthorizeRequest, CardsDeps, DeclineReason } from './processor.ts';

/** One order's answer from authorizeCards. */
export type CardAuthorization =
  | { step: AuthorizationStep }
  | { declined: CardDeclinedError }
  /** No answer within the wait: the call was aborted, and nothing may be assumed about the card. */
  | { late: true };

/**
 * Authorises (holds) each request's amount, all at once (CardProcessor.authorize), waiting at
 * most `waitMs` for any answer: a call still out then is abandoned (its signal aborted) and
 * answers `late`. Declines become Wyre's errorCodes. Any other failure of a call rejects the
 * whole; the other calls are aborted too, so none touches `q` afterwards.
 */
export async function authorizeCards(
  ctx: CardsDeps,
  q: Queryable,
  requests: readonly AuthorizeRequest[],
  waitMs: number,
): Promise<CardAuthorization[]> {
  const processor = ctx.cardProcessor;
  const controllers = requests.map(() => new AbortController());
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), waitMs);
  });
  try {
    const calls = processor.authorize(
      q,
      requests.map((request, index) => ({ request, signal: controllers[index]!.signal })),
    );
    // Once abandoned, a call's own rejection (its abort) has nobody waiting for it.
    for (const call of calls) call.catch(() => undefined);
    return await Promise.all(
      calls.map(async (call): Promise<CardAuthorization> => {
        const result = await Promise.race([call, deadline]);
        if (result === 'late') return { late: true };
        return result.outcome === 'APPROVED'
          ? { step: result.step }
          : { declined: declineError(result.reason) };
      }),
    );
  } finally {
    clearTimeout(timer);
    // One reason for all: an Error per order (its stack captured) cost more than the call itself.
    const reason = new Error('card processor timeout');
    for (const controller of controllers) controller.abort(reason);
  }
}

/**
 * One order's authorization, bounded by RAMPART_CARD_PROCESSOR_TIMEOUT_MS: a processor that does
 * not answer in time fails the order as transient, so the caller's transaction rolls back with
 * nothing charged.
 */
export async function authorizeCard(
  ctx: CardsDeps,
  q: Queryable,
  request: AuthorizeRequest,
): Promise<AuthorizationStep> {
  const [answer] = await authorizeCards(ctx, q, [request], ctx.config.cardProcessorTimeoutMs);
  if (answer === undefined || 'late' in answer) throw cardErrors.processorTimeout();
  if ('declined' in answer) throw answer.declined;
  return answer.step;
}

function declineError(reason: DeclineReason): CardDeclinedError {
  return new CardDeclinedError(reason, refusalOf(reason));
}

function refusalOf(reason: DeclineReason): ApiError {
  switch (reason) {
    case 'CREDIT':
      return cardErrors.credit();
    case 'PREPAID':
      return cardErrors.prepaid();
    case 'BRAND':
      return cardErrors.unsupportedBrand();
    case 'AVS_ZIP':
      return cardErrors.avsZip();
    case 'INSUFFICIENT_FUNDS':
      return cardErrors.insufficientFunds();
    default:
      return cardErrors.declined('05', 'Do not honor');
  }
}
