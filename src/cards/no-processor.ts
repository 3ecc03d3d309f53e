import { ApiError } from '../platform/errors.ts';
import type { CardProcessor } from './processor.ts';

function noProcessor(): ApiError {
  return new ApiError(
    'ServiceUnavailableException',
    'card.noProcessor',
    'Card payments are not available: no card processor is configured.',
    { transient: false },
  );
}

/**
 * Production's processor until a real one is configured: card orders answer 503 rather than
 * pretend to charge anyone. Nothing is ever authorized, so capture, void and refund have no
 * order to act on and refuse the same way.
 */
export const noCardProcessor: CardProcessor = {
  simulatesIssuer: false,
  authorize: (_q, calls) => calls.map(() => Promise.reject(noProcessor())),
  capture: () => Promise.reject(noProcessor()),
  void: () => Promise.reject(noProcessor()),
  refund: () => Promise.reject(noProcessor()),
};
