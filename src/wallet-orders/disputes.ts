import type { ProcessorEvent } from '../cards/connector.ts';
import type { Tx } from '../platform/db/pool.ts';
import type { WalletOrdersDeps } from './deps.ts';

/** A dispute opened, won or lost on an order's charge, in the transaction that records the event. */
export async function onDisputeEvent(
  _ctx: WalletOrdersDeps,
  _tx: Tx,
  _event: Extract<ProcessorEvent, { kind: 'dispute.opened' | 'dispute.won' | 'dispute.lost' }>,
): Promise<void> {
  throw new Error('dispute events are not handled yet');
}
