import { cardErrors } from './errors.ts';
import { CARD_AUTHORIZATION_LIFETIME_MS, type CardProcessor } from './processor.ts';

/**
 * Production's processor until a real one is configured: card orders answer 503 rather than
 * pretend to charge anyone. Nothing is ever authorized, so capture, void and refund have no
 * order to act on and refuse the same way.
 */
export const noCardProcessor: CardProcessor = {
  simulatesIssuer: false,
  authorizationLifetimeMs: CARD_AUTHORIZATION_LIFETIME_MS,
  authorize: (_q, calls) => calls.map(() => Promise.reject(cardErrors.noProcessor())),
  capture: () => Promise.reject(cardErrors.noProcessor()),
  void: () => Promise.reject(cardErrors.noProcessor()),
  refund: () => Promise.reject(cardErrors.noProcessor()),
};
