import {
  type Address,
  encodeFunctionData,
  erc20Abi,
  formatUnits,
  type Hash,
  type Hex,
  keccak256,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { postEntry } from '../../ledger/index.ts';
import { type Db, withTransaction } from '../../platform/db/pool.ts';
import { randomChars } from '../../platform/ids.ts';
import { Money } from '../../platform/money.ts';
import { type ChainsDeps, requestChainSend } from '../port.ts';
import { readAll } from './batched-reads.ts';
import {
  type DepositKeyRow,
  depositKeysOf,
  insertSweep,
  openSweeps,
  settleSweep,
  underSessionLock,
} from './deposit-store.ts';
import { SWEEP_GAS } from './sweep-gas.ts';
import { tokenBalance } from './token-reads.ts';
import type { WatchedChain } from './watcher.ts';

/**
 * Moves deposits into the hot wallet, so the hot wallet can pay out (contract decision 83). A
 * deposit address's native coin is sent to the hot wallet less the transaction's fee; its tokens
 * are sent by a token transfer, whose gas the hot wallet first tops up: a plain transfer of the
 * gas the token transfer needs (21,000 gas for the top-up, then the token transfer's own, about
 * 35,000–65,000, paid with the topped-up coin). The top-up is a send of the chains port, paid by
 * the hot wallet's sender with its own nonces (reference `sweepgas:…`), which books its gas.
 * Sweeps never touch an owner's balance (the deposit was credited when it had its confirmations);
 * a sweep's fee is booked from `house:fees` to the chain once it is mined. Every sweep is recorded
 * before it is broadcast, and a deposit address with one open is left alone until it settles.
 */
export interface SweptChain extends WatchedChain {
  keys: {
    depositAccount(index: number): { address: string; privateKey: `0x${string}` };
    hotWallet(): { address: string; privateKey: `0x${string}` };
  };
}

const NATIVE_DECIMALS = 18;
const TRANSFER_GAS = 21_000n;
/** An open transaction the node no longer knows after this long was dropped: settled as FAILED. */
const DROPPED_AFTER_MS = 10 * 60_000;
/** Keeps two sweepers (two worker processes) from signing for the same addresses at once. */
const SWEEP_LOCK = 0x5_3eef;

export interface SweepPass {
  settled: number;
  sent: number;
  /** Addresses whose sweep could not be sent this pass (the hot wallet short of gas, the node down). */
  failed: number;
}

/** One pass: settles the open sweeps, then sweeps what the deposit addresses hold. */
export async function sweepOnce(ctx: ChainsDeps, chain: SweptChain): Promise<SweepPass> {
  return underSweepLock(ctx.db, chain.chain, async () => {
    const settled = await settleOpenSweeps(ctx, chain);
    const busy = new Set((await openSweeps(ctx.db, chain.chain)).map((sweep) => sweep.address.toLowerCase()));
    const keys = await addressesHolding(
      chain,
      (await depositKeysOf(ctx.db, chain.chain)).filter((key) => !busy.has(key.address.toLowerCase())),
    );
    let sent = 0;
    let failed = 0;
    // Each address alone: one that cannot be swept now does not hold up the others.
    for (const key of keys) {
      try {
        sent += await sweepAddress(ctx, chain, key);
      } catch {
        failed++;
      }
    }
    return { settled, sent, failed };
  });
}

function underSweepLock(db: Db, chain: string, work: () => Promise<SweepPass>): Promise<SweepPass> {
  return underSessionLock(db, SWEEP_LOCK, chain, work, () => ({ settled: 0, sent: 0, failed: 0 }));
}

/** Books the fee of each open sweep mined with its confirmations; a dropped one is FAILED with none. */
async function settleOpenSweeps(ctx: ChainsDeps, chain: SweptChain): Promise<number> {
  const head = await chain.client.getBlockNumber({ cacheTime: 0 });
  let settled = 0;
  for (const sweep of await openSweeps(ctx.db, chain.chain)) {
    // A top-up is settled by its send's outcome (onSweepGasOutcome).
    if (sweep.kind === 'gas') continue;
    const receipt = await chain.client
      .getTransactionReceipt({ hash: sweep.id as Hash })
      .catch(() => undefined);
    if (!receipt) {
      if (Date.now() - sweep.createdAt.getTime() < DROPPED_AFTER_MS) continue;
      const known = await chain.client.getTransaction({ hash: sweep.id as Hash }).catch(() => undefined);
      if (known) continue;
      await settleSweep(ctx.db, chain.chain, sweep.id, 'FAILED', '0');
      settled++;
      continue;
    }
    if (head - receipt.blockNumber + 1n < BigInt(chain.confirmations)) continue;
    const fee = receipt.gasUsed * receipt.effectiveGasPrice;
    const status = receipt.status === 'success' ? 'CONFIRMED' : 'FAILED';
    await withTransaction(ctx.db, async (tx) => {
      if (!(await settleSweep(tx, chain.chain, sweep.id, status, fee.toString()))) return;
      if (fee === 0n) return;
      const amount = new Money(formatUnits(fee, NATIVE_DECIMALS));
      await postEntry(tx, {
        kind: 'chain.sweepFee',
        reference: `sweep:${sweep.id}`,
        postings: [
          { owner: 'house:fees', currency: chain.nativeCurrency, amount: amount.negated() },
          { owner: `external:chain:${chain.chain}`, currency: chain.nativeCurrency, amount },
        ],
      });
    });
    settled++;
  }
  return settled;
}

/**
 * The addresses holding anything at the confirmed tip, read together (batched-reads.ts): the
 * sweep of an address takes only coin it held there (settledBalance), so one holding nothing
 * there has nothing to sweep, and the per-address reads (fees, estimates) go to the few that do.
 */
async function addressesHolding(chain: SweptChain, keys: DepositKeyRow[]): Promise<DepositKeyRow[]> {
  if (keys.length === 0) return keys;
  const confirmedTip =
    (await chain.client.getBlockNumber({ cacheTime: 0 })) - BigInt(chain.confirmations) + 1n;
  if (confirmedTip < 0n) return [];
  const holds = await readAll(keys, async (key) => {
    const address = key.address as Address;
    const reads = [
      chain.client.getBalance({ address, blockNumber: confirmedTip }),
      ...chain.tokens.map((token) => tokenBalance(chain.client, token.contract, address, confirmedTip)),
    ];
    return (await Promise.all(reads)).some((held) => held > 0n);
  });
  return keys.filter((_, index) => holds[index]);
}

/** Sweeps one address: its tokens first (their gas is native coin), then its native coin. */
async function sweepAddress(ctx: ChainsDeps, chain: SweptChain, key: DepositKeyRow): Promise<number> {
  const address = key.address as Address;
  const confirmedTip =
    (await chain.client.getBlockNumber({ cacheTime: 0 })) - BigInt(chain.confirmations) + 1n;
  if (confirmedTip < 0n) return 0;
  const fees = await chain.client.estimateFeesPerGas();
  const native = await settledBalance(confirmedTip, (blockNumber) =>
    chain.client.getBalance({ address, blockNumber }),
  );
  for (const token of chain.tokens) {
    const held = await settledBalance(confirmedTip, (blockNumber) =>
      tokenBalance(chain.client, token.contract, address, blockNumber),
    );
    if (held === 0n) continue;
    const data = encodeFunctionData({
      abi: erc20Abi,
      functionName: 'transfer',
      args: [chain.hotWallet, held],
    });
    const gas = await chain.client.estimateGas({ account: address, to: token.contract, data });
    const needed = gas * fees.maxFeePerGas;
    if (native < needed) {
      // The gas arrives first; the token transfer goes in a later pass, once the top-up settled.
      // Twice what it needs now, so a fee rise meanwhile does not ask for a second top-up; not
      // asked for while the hot wallet cannot pay it (the sweep of other deposits fills it).
      const topUp = 2n * needed - native;
      const hot = await chain.client.getBalance({ address: chain.hotWallet });
      if (hot < topUp + TRANSFER_GAS * fees.maxFeePerGas) return 0;
      await requestGas(ctx, chain, address, topUp);
      return 1;
    }
    await send(ctx, chain, chain.keys.depositAccount(key.derivation_index).privateKey, {
      kind: 'sweep',
      watched: address,
      currency: token.currency,
      to: token.contract,
      value: 0n,
      data,
      amount: held,
      gas,
      fees,
    });
    return 1;
  }
  const fee = TRANSFER_GAS * fees.maxFeePerGas;
  // Coin worth less than twice its own transfer fee stays where it is.
  if (native <= 2n * fee) return 0;
  await send(ctx, chain, chain.keys.depositAccount(key.derivation_index).privateKey, {
    kind: 'sweep',
    watched: address,
    currency: chain.nativeCurrency,
    to: chain.hotWallet,
    value: native - fee,
    gas: TRANSFER_GAS,
    fees,
  });
  return 1;
}

/** What an address holds both at the confirmed tip and now: coin not yet confirmed is not swept. */
async function settledBalance(
  confirmedTip: bigint,
  read: (blockNumber: bigint | undefined) => Promise<bigint>,
): Promise<bigint> {
  const [confirmed, latest] = await Promise.all([read(confirmedTip), read(undefined)]);
  // bigint: Math.min does not take it.
  if (confirmed < latest) return confirmed;
  return latest;
}

interface Outgoing {
  kind: 'sweep';
  /** The deposit address the transaction is for (kept busy until it settles). */
  watched: Address;
  currency: string;
  to: Address;
  value: bigint;
  data?: Hex;
  /** Base units moved (the token amount of a token sweep; else `value`). */
  amount?: bigint;
  gas: bigint;
  fees: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };
}

/** A gas top-up from the hot wallet, as a send of the chains port, recorded with it. */
async function requestGas(ctx: ChainsDeps, chain: SweptChain, address: Address, wei: bigint) {
  const reference = `${SWEEP_GAS}:${randomChars(20)}`;
  await withTransaction(ctx.db, async (tx) => {
    await insertSweep(tx, {
      chain: chain.chain,
      id: reference,
      kind: 'gas',
      address,
      currency: chain.nativeCurrency,
      amount: wei.toString(),
    });
    await requestChainSend(ctx, tx, {
      reference,
      chain: chain.chain,
      address,
      currency: chain.nativeCurrency,
      amount: new Money(formatUnits(wei, NATIVE_DECIMALS)),
    });
  });
}

/** Signs, records, then broadcasts: a restart finds the transaction whether it went out or not. */
async function send(ctx: ChainsDeps, chain: SweptChain, privateKey: `0x${string}`, out: Outgoing) {
  const account = privateKeyToAccount(privateKey);
  const [nonce, chainId] = await Promise.all([
    chain.client.getTransactionCount({ address: account.address, blockTag: 'pending' }),
    chain.client.getChainId(),
  ]);
  const serialized = await account.signTransaction({
    type: 'eip1559',
    chainId,
    nonce,
    to: out.to,
    value: out.value,
    ...(out.data ? { data: out.data } : {}),
    gas: out.gas,
    maxFeePerGas: out.fees.maxFeePerGas,
    maxPriorityFeePerGas: out.fees.maxPriorityFeePerGas,
  });
  const txHash = keccak256(serialized);
  await insertSweep(ctx.db, {
    chain: chain.chain,
    id: txHash,
    kind: out.kind,
    address: out.watched,
    currency: out.currency,
    amount: (out.amount ?? out.value).toString(),
  });
  try {
    await chain.client.sendRawTransaction({ serializedTransaction: serialized });
  } catch (error) {
    // Refused by the node (no funds for the gas, say): it never went out, so it settles FAILED at
    // once and the address is tried again next pass. One the node did take (an answer lost on
    // the way back) stays open and settles from its receipt.
    const taken = await chain.client.getTransaction({ hash: txHash }).catch(() => undefined);
    if (!taken) await settleSweep(ctx.db, chain.chain, txHash, 'FAILED', '0');
    throw error;
  }
}
