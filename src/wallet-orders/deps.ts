import type { CardsDeps } from '../cards/index.ts';
import type { LimitsDeps } from '../limits/index.ts';
import type { OrdersDeps } from '../orders/index.ts';
import type { TransfersDeps } from '../transfers/index.ts';
import type { CodeSender } from './code-sender.ts';
import type { PreparedOrder } from './request.ts';
import type { WalletOrderBody } from './view.ts';

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

/** Card orders placed together with the ones other requests place at the same moment (order-groups.ts). */
export interface OrderPlacement {
  /** Answers the order's WalletOrder, or throws what refused it. */
  place(prepared: PreparedOrder): Promise<WalletOrderBody>;
  /** Gives back the connections of the transactions begun ahead for the next groups. */
  close(): Promise<void>;
}
