import type { CardsDeps } from '../cards/processor.ts';
import type { LimitsDeps } from '../limits/service.ts';
import type { OrdersDeps } from '../orders/deps.ts';
import type { TransfersDeps } from '../transfers/deps.ts';
import type { CodeSender } from './code-sender.ts';
import type { OrderPlacement } from './order-groups.ts';

/**
 * What the card order functions are given besides the base context: the card processor, the
 * reservations and prices they use, the limits, the transfers that deliver them (with the
 * callback URL rules of their webhooks) and the code sender of the issuer's extra steps.
 */
export interface WalletOrdersDeps extends CardsDeps, OrdersDeps, LimitsDeps, TransfersDeps {
  codeSender: CodeSender;
  /** Card orders placed without an Idempotency-Key, grouped with concurrent ones (order-groups.ts). */
  orderPlacement: OrderPlacement;
}
