import { keccak256, parseTransaction, type TransactionReceipt } from 'viem';
import { postEntry } from '../../ledger/index.ts';
import { inTransaction, type Tx } from '../../platform/db/pool.ts';
import { randomChars } from '../../platform/ids.ts';
import { isKnownCurrency, Money } from '../../platform/money.ts';
import { type ChainOutcome, type ChainsDeps, deliverChainOutcomes } from '../port.ts';
import { lockQueuedSends, recordOutcomes } from '../store.ts';
import { broadcastOne, type EvmChainRuntime, eachAlone, storedView } from './send-common.ts';
import { insertSignedTx, markDone, type PendingSend, pendingSends, type StoredTx } from './send-store.ts';
import { fromBaseUnits } from './units.ts';

// The sender's last step: broadcast sends followed to their outcome, bumped when stuck (decisions 71, 73, 78).

/** A replacement pays at least this much more (nodes ask for 10 %). */
const BUMP_NUMERATOR = 1125n;
const BUMP_DENOMINATOR = 1000n;

/**
 * Each send with a nonce, by nonce: finished once mined with its confirmations, or once its
 * nonce went to another transaction (dropped); otherwise kept alive (broadcast again, bumped).
 */
export async function followPending(ctx: ChainsDeps, client: Tx, chain: EvmChainRuntime): Promise<void> {
  const pending = await pendingSends(client, chain.settings.chain);
  if (pending.length === 0) return;
  const { publicClient, hotAccount } = chain.rpc;
  const minedCount = await publicClient.getTransactionCount({
    address: hotAccount.address,
    blockTag: 'latest',
  });
  const head = await publicClient.getBlockNumber({ cacheTime: 0 });
  await eachAlone(pending, async (send) => {
    const mined = await minedTransaction(chain, send);
    if (mined) {
      if (head - mined.blockNumber + 1n >= BigInt(chain.settings.confirmations))
        await finishMined(ctx, client, chain, send, mined, head);
      return;
    }
    // The nonce is spent, by none of this send's transactions (looked up after the count was
    // read, so one mined meanwhile is found): the send was dropped and nothing of it paid.
    if (minedCount > send.nonce) return finishDropped(ctx, client, send);
    await keepAlive(client, chain, send);
  });
}

async function minedTransaction(
  chain: EvmChainRuntime,
  send: PendingSend,
): Promise<TransactionReceipt | undefined> {
  for (const tx of [...send.txs].reverse()) {
    try {
      return await chain.rpc.publicClient.getTransactionReceipt({ hash: tx.hash });
    } catch (error) {
      if ((error as Error).name !== 'TransactionReceiptNotFoundError') throw error;
    }
  }
  return undefined;
}

/**
 * A mined send with its confirmations: CONFIRMED with its BlockchainTx, or FAILED when it
 * reverted (its module returns the funds). Either way its gas was paid: booked from house:fees
 * to the chain (decision 73).
 */
async function finishMined(
  ctx: ChainsDeps,
  client: Tx,
  chain: EvmChainRuntime,
  send: PendingSend,
  receipt: TransactionReceipt,
  head: bigint,
): Promise<void> {
  const block = await chain.rpc.publicClient.getBlock({ blockNumber: receipt.blockNumber });
  const gasPaid = fromBaseUnits(receipt.gasUsed * receipt.effectiveGasPrice, 18);
  const signedAt = send.txs.find((tx) => tx.hash === receipt.transactionHash)?.signed_at_ms ?? Date.now();
  const outcome: ChainOutcome =
    receipt.status === 'success'
      ? {
          reference: send.reference,
          status: 'CONFIRMED',
          blockchainTx: {
            id: `TR_${randomChars(11)}`,
            networkTxId: receipt.transactionHash,
            createdAt: Math.round(signedAt),
            confirmations: Number(head - receipt.blockNumber + 1n),
            timeObserved: Date.now(),
            blockTime: Number(block.timestamp) * 1000,
            blockhash: receipt.blockHash,
            amount: send.amount,
            direction: 'OUTGOING',
            networkFee: gasPaid,
            address: send.address,
            sourceAddress: send.from_address,
            currency: send.currency,
            twinTxId: null,
          },
        }
      : {
          reference: send.reference,
          status: 'FAILED',
          failureReason: `The transaction ${receipt.transactionHash} reverted on ${chain.settings.chain}.`,
        };
  await inTransaction(client, async () => {
    await markDone(client, send.reference);
    if ((await lockQueuedSends(client, [send.reference])).length === 0) return;
    await recordOutcomes(client, [
      {
        reference: outcome.reference,
        status: outcome.status,
        blockchainTx: outcome.blockchainTx ?? null,
        failureReason: outcome.failureReason ?? null,
      },
    ]);
    const gas = new Money(gasPaid);
    if (gas.gt(0) && isKnownCurrency(chain.settings.nativeCurrency)) {
      await postEntry(client, {
        kind: 'chain.gas',
        reference: send.reference,
        memo: receipt.transactionHash,
        postings: [
          { owner: 'house:fees', currency: chain.settings.nativeCurrency, amount: gas.negated() },
          {
            owner: `external:chain:${chain.settings.chain}`,
            currency: chain.settings.nativeCurrency,
            amount: gas,
          },
        ],
      });
    }
    await deliverChainOutcomes(ctx, client, [outcome]);
  });
}

async function finishDropped(ctx: ChainsDeps, client: Tx, send: PendingSend): Promise<void> {
  const reason = `None of the send's transactions was mined: nonce ${send.nonce} was used by another.`;
  await inTransaction(client, async () => {
    await markDone(client, send.reference);
    if ((await lockQueuedSends(client, [send.reference])).length === 0) return;
    await recordOutcomes(client, [
      { reference: send.reference, status: 'FAILED', blockchainTx: null, failureReason: reason },
    ]);
    await deliverChainOutcomes(ctx, client, [
      { reference: send.reference, status: 'FAILED', failureReason: reason },
    ]);
  });
}

/**
 * A send not mined yet: broadcast again if the node lost it; replaced with a higher fee, same
 * nonce, when its newest transaction has waited past the bump delay below the market fee.
 */
async function keepAlive(client: Tx, chain: EvmChainRuntime, send: PendingSend): Promise<void> {
  const latest = send.txs.at(-1);
  if (!latest) return;
  const { publicClient } = chain.rpc;
  try {
    await publicClient.getTransaction({ hash: latest.hash });
  } catch (error) {
    if ((error as Error).name !== 'TransactionNotFoundError') throw error;
    for (const tx of send.txs) await broadcastOne(client, chain, tx);
  }
  if (Date.now() - latest.signed_at_ms < chain.sends.feeBumpAfterMs) return;
  const market = await publicClient.estimateFeesPerGas();
  if (market.maxFeePerGas <= BigInt(latest.max_fee_per_gas)) return;
  const replacement = await signReplacement(client, chain, send, latest, market);
  await broadcastOne(client, chain, replacement);
}

function bumped(old: bigint, market: bigint): bigint {
  const raised = (old * BUMP_NUMERATOR + BUMP_DENOMINATOR - 1n) / BUMP_DENOMINATOR;
  return raised > market ? raised : market;
}

/** The same payment, same nonce, higher fees: stored before it is broadcast. */
async function signReplacement(
  client: Tx,
  chain: EvmChainRuntime,
  send: PendingSend,
  latest: StoredTx,
  market: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint },
): Promise<StoredTx> {
  const previous = parseTransaction(latest.raw);
  const maxFeePerGas = bumped(BigInt(latest.max_fee_per_gas), market.maxFeePerGas);
  const tip = bumped(BigInt(latest.max_priority_fee_per_gas), market.maxPriorityFeePerGas);
  // The tip can never exceed the fee cap.
  let maxPriorityFeePerGas = tip;
  if (maxPriorityFeePerGas > maxFeePerGas) maxPriorityFeePerGas = maxFeePerGas;
  const raw = await chain.rpc.hotAccount.signTransaction({
    type: 'eip1559',
    chainId: await chain.chainId(),
    nonce: send.nonce,
    to: previous.to!,
    value: previous.value ?? 0n,
    ...(previous.data ? { data: previous.data } : {}),
    gas: BigInt(latest.gas_limit),
    maxFeePerGas,
    maxPriorityFeePerGas,
  });
  const stored = {
    hash: keccak256(raw),
    reference: send.reference,
    raw,
    gasLimit: BigInt(latest.gas_limit),
    maxFeePerGas,
    maxPriorityFeePerGas,
  };
  await inTransaction(client, () => insertSignedTx(client, stored));
  return storedView(stored);
}
