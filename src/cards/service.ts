import { batched, RunAlone } from '../platform/db/grouped-transactions.ts';
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
        if (result.outcome === 'PENDING') return { step: 'PROCESSOR' };
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
 * How long a group of card orders waits for the card processor. The group's locks and its place
 * in line are held meanwhile, so a slow issuer must not hold up everyone: an order still waiting
 * then runs alone (RunAlone), with the full processor timeout. (The sandbox answers at once but
 * for its slow card.)
 */
const GROUP_AUTHORIZATION_WAIT_MS = 250;

export interface CardAuthorizationRequest {
  ctx: CardsDeps;
  request: AuthorizeRequest;
}

/**
 * authorizeCards as a step of a card order's write path (one context per group): alone it waits
 * up to RAMPART_CARD_PROCESSOR_TIMEOUT_MS, grouped up to GROUP_AUTHORIZATION_WAIT_MS.
 */
export const cardAuthorization = batched(
  'cards.authorize',
  (q, requests: CardAuthorizationRequest[], grouped) => {
    const { ctx } = requests[0]!;
    const timeoutMs = ctx.config.cardProcessorTimeoutMs;
    return authorizeCards(
      ctx,
      q,
      requests.map(({ request }) => request),
      grouped ? Math.min(GROUP_AUTHORIZATION_WAIT_MS, timeoutMs) : timeoutMs,
    );
  },
);

/**
 * The authorization step the issuer asked for, or what refuses the order: its decline, or when
 * the processor did not answer in time a transient timeout (nothing charged: the order's
 * transaction rolls back), or, grouped, RunAlone (it gets the full timeout alone).
 */
export function authorizedStep(answer: CardAuthorization, grouped: boolean): AuthorizationStep {
  if ('declined' in answer) throw answer.declined;
  if ('late' in answer)
    throw grouped ? new RunAlone('the card processor is slow') : cardErrors.processorTimeout();
  return answer.step;
}

export function declineError(reason: DeclineReason): CardDeclinedError {
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
