import type { AppContext } from '../platform/context.ts';
import type { Queryable } from '../platform/db/pool.ts';
import { ApiError } from '../platform/errors.ts';
import { cardErrors } from './errors.ts';
import type { AuthorizationStep, AuthorizeRequest, CardProcessor } from './processor.ts';
import { sandboxProcessor } from './sandbox-processor.ts';

/**
 * The processor in use: the simulated one in sandbox. Production has no processor integration
 * yet, so card orders there answer 503 rather than pretend to charge anyone.
 */
export function cardProcessor(ctx: AppContext): CardProcessor {
  if (ctx.config.env === 'sandbox') return sandboxProcessor;
  throw new ApiError(
    'ServiceUnavailableException',
    'card.noProcessor',
    'Card payments are not available: no card processor is configured.',
    { transient: false },
  );
}

/**
 * Authorises (holds) the amount, bounded by RAMPART_CARD_PROCESSOR_TIMEOUT_MS: a processor that
 * does not answer in time is abandoned (its call aborted) and the order fails as transient, so
 * the caller's transaction rolls back with nothing charged. Declines become Wyre's errorCodes.
 */
export async function authorizeCard(
  ctx: AppContext,
  q: Queryable,
  request: AuthorizeRequest,
): Promise<AuthorizationStep> {
  const processor = cardProcessor(ctx);
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort(new Error('card processor timeout'));
      reject(cardErrors.processorTimeout());
    }, ctx.config.cardProcessorTimeoutMs);
  });
  try {
    const call = processor.authorize(q, request, controller.signal);
    // Once abandoned, the call's own rejection (its abort) has nobody waiting for it.
    call.catch(() => undefined);
    const result = await Promise.race([call, timeout]);
    if (result.outcome === 'APPROVED') return result.step;
    throw declineError(result.reason);
  } finally {
    clearTimeout(timer);
  }
}

function declineError(reason: string): ApiError {
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
