import type { ProcessorEvent } from '../cards/connector.ts';
import type { Tx } from '../platform/db/pool.ts';
import type { WalletOrdersDeps } from './deps.ts';

/**
 * The processor's word on a refund Rampart asked for (or one made in the processor's own
 * dashboard), in the transaction that records the event.
 */
export async function onRefundEvent(
  _ctx: WalletOrdersDeps,
  _tx: Tx,
  _event: Extract<ProcessorEvent, { kind: 'refund.updated' }>,
): Promise<void> {
  throw new Error('refund events are not handled yet');
}
