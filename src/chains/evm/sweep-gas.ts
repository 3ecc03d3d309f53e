import type { Tx } from '../../platform/db/pool.ts';
import type { ChainOutcome } from '../port.ts';
import { settleSweep } from './deposit-store.ts';

/**
 * The outcome side of the sweeper's gas top-ups, apart from sweeper.ts so the composition root
 * wires it without loading the EVM modules (viem) when no chain is configured.
 */

/** The reference type of gas top-ups (`sweepgas:…`), whose outcomes come to onSweepGasOutcome. */
export const SWEEP_GAS = 'sweepgas';

/**
 * A top-up's outcome, in the sender's settling transaction: the address may be swept again (a
 * failed top-up is asked for again next pass). Its gas was booked by the sender.
 */
export async function onSweepGasOutcome(tx: Tx, outcome: ChainOutcome): Promise<void> {
  await settleSweep(tx, null, outcome.reference, outcome.status, null);
}
