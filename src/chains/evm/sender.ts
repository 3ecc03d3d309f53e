import type { Tx } from '../../platform/db/pool.ts';
import type { ChainsDeps } from '../port.ts';
import { broadcastOne, type EvmChainRuntime, eachAlone, isUnreachable } from './send-common.ts';
import { followPending } from './send-following.ts';
import { signQueued } from './send-signing.ts';
import { pendingSends, tryLockChain, unlockChain } from './send-store.ts';

/**
 * The send side of a real EVM chain (contract decisions 70–79). Each round, under the chain's
 * lock (one sender per chain across all workers):
 *
 * 1. sends without a nonce are checked (amount exact in the asset's decimals, hot wallet able to
 *    pay, no native coin to a contract unless allowed, gas estimated: a reverting token call fails
 *    here), then get their nonce and are signed, and the signed bytes are stored in the same
 *    transaction, before anything is broadcast;
 * 2. stored transactions not yet broadcast are broadcast (after a crash: the ones signed before);
 * 3. broadcast sends are followed: mined with enough confirmations, the outcome is delivered
 *    (CONFIRMED, or FAILED with the funds returned when it reverted), the gas booked; a nonce used
 *    by none of the send's transactions is a dropped send (FAILED); a transaction the node lost
 *    is broadcast again; one pending past the bump delay below the market fee is replaced by the
 *    same payment with the same nonce and a higher fee, stored before it is broadcast.
 *
 * Every step is safe to repeat after a crash at any point: a nonce is taken once per send, the
 * bytes broadcast are always bytes stored first, and an outcome is delivered once (the send stops
 * being QUEUED in the transaction that delivers it). The steps live in send-signing.ts and
 * send-following.ts.
 */

/** Runs one round of the chain's sender, unless another worker is running one. */
export async function runSender(ctx: ChainsDeps, chain: EvmChainRuntime): Promise<void> {
  const client = await ctx.db.connect();
  try {
    if (!(await tryLockChain(client, chain.settings.chain))) return;
    try {
      await eachAlone(
        [
          () => signQueued(ctx, client, chain),
          () => broadcastStored(client, chain),
          () => followPending(ctx, client, chain),
        ],
        (phase) => phase(),
      );
      chain.reached(true);
    } catch (error) {
      // A node that answers, even with errors, is reachable: its sends wait, new ones are taken.
      chain.reached(!isUnreachable(error));
      throw error;
    } finally {
      await unlockChain(client, chain.settings.chain);
    }
  } finally {
    client.release();
  }
}

/** The sender's second step: what was signed and stored is broadcast, crashes in between included. */
async function broadcastStored(client: Tx, chain: EvmChainRuntime): Promise<void> {
  const unsent = (await pendingSends(client, chain.settings.chain)).flatMap((send) =>
    send.txs.filter((stored) => !stored.broadcast),
  );
  await eachAlone(unsent, (tx) => broadcastOne(client, chain, tx));
}
