import type { CallbackUrlDeps } from '../callbacks/url-policy.ts';
import type { CardsDeps } from '../cards/processor.ts';
import type { LimitsDeps } from '../limits/service.ts';
import type { OrdersDeps } from '../orders/deps.ts';
import type { CodeSender } from './code-sender.ts';

/**
 * What the card order functions are given besides the base context: the card processor, the
 * reservations and prices they use, the limits, the callback URL rules (webhooks) and the code
 * sender of the issuer's extra steps.
 */
export interface WalletOrdersDeps extends CardsDeps, OrdersDeps, LimitsDeps, CallbackUrlDeps {
  codeSender: CodeSender;
}
