import { type Address, formatUnits, type Hash, type PublicClient, parseAbiItem } from 'viem';
import { type Tx, withTransaction } from '../../platform/db/pool.ts';
import { randomChars } from '../../platform/ids.ts';
import { Money } from '../../platform/money.ts';
import type { Chain } from '../addresses.ts';
import type { ChainDeposit, ChainsDeps } from '../port.ts';
import { readAll } from './batched-reads.ts';
import {
  advanceCursor,
  type DepositKeyRow,
  type DepositRow,
  depositKeysOf,
  insertDeposits,
  readCursor,
  saveNativeBalances,
  startCursor,
} from './deposit-store.ts';
import { tokenDecimals } from './token-reads.ts';

/**
 * The deposit watcher of one EVM chain (contract decisions 80–82). Each pass reads the blocks
 * from its cursor (kept in PostgreSQL) up to the newest block with the configured confirmations,
 * at most `maxBlockRange` of them, and in one transaction records the deposits found, credits
 * them and moves the cursor. A block is read only once it has its confirmations, so a deposit in
 * a block a reorg removes (one shallower than the confirmations) is never credited; the unique
 * key of every deposit and the cursor's compare-and-set keep a deposit to one credit however
 * many watchers run and whenever one stops.
 *
 * Native coin is found two ways: the transactions that pay a deposit address, and, for coin a
 * contract sends (an internal transfer, no transaction of its own), the address's balance at the
 * range's end against the last one read, less what the range's transactions explain.
 *
 * RPC load: an internal transfer leaves no trace a node without a trace API shows (no
 * transaction, no log), so no pass can tell which addresses received one; every pass reads every
 * deposit address's balance, once per range (not per block). Those reads, the range's blocks and
 * the receipts of the transactions that touch deposit addresses are issued together, READS_AT_ONCE
 * at a time (batched-reads.ts), on a client whose transport sends concurrent calls as JSON-RPC batches (rpc.ts
 * watchClient): thousands of addresses cost a few HTTP round trips per pass, not one per address.
 */
export interface WatchedChain {
  chain: Chain;
  confirmations: number;
  nativeCurrency: string;
  tokens: readonly { currency: string; contract: Address }[];
  client: PublicClient;
  /** Payments from the hot wallet (gas for sweeps) are the house's own coin, never a deposit. */
  hotWallet: Address;
  maxBlockRange: number;
}

const TRANSFER_EVENT = parseAbiItem(
  'event Transfer(address indexed from, address indexed to, uint256 value)',
);
const NATIVE_DECIMALS = 18;
/** What one pass did: the blocks read (none when caught up) and the deposits credited. */
export interface WatchPass {
  from: bigint;
  to: bigint;
  credited: number;
  /** More confirmed blocks wait beyond `to`: the caller runs again at once. */
  behind: boolean;
}

/** One pass of the watcher; undefined when no new block has its confirmations yet. */
export async function watchOnce(ctx: ChainsDeps, watched: WatchedChain): Promise<WatchPass | undefined> {
  const head = await watched.client.getBlockNumber({ cacheTime: 0 });
  const confirmedTip = head - BigInt(Math.max(1, watched.confirmations)) + 1n;
  if (confirmedTip < 0n) return undefined;
  let from = await readCursor(ctx.db, watched.chain);
  if (from === undefined) {
    // A first start watches from the newest confirmed block: no deposit address is older.
    await startCursor(ctx.db, watched.chain, confirmedTip);
    from = (await readCursor(ctx.db, watched.chain))!;
  }
  if (from > confirmedTip) return undefined;
  const lastInRange = from + BigInt(watched.maxBlockRange) - 1n;
  const to = lastInRange < confirmedTip ? lastInRange : confirmedTip;
  const keys = await depositKeysOf(ctx.db, watched.chain);
  const found = await depositsIn(watched, keys, from, to);
  const credited = await withTransaction(ctx.db, async (tx) => {
    const inserted = await insertDeposits(tx, found.deposits);
    const fresh = found.deposits.filter((deposit) => inserted.has(deposit.depositKey));
    await saveNativeBalances(tx, watched.chain, found.balances);
    if (!(await advanceCursor(tx, watched.chain, from, to + 1n))) throw new CursorMoved(watched.chain);
    await creditDeposits(ctx, tx, watched, fresh);
    return fresh.length;
  }).catch((error: unknown) => {
    if (error instanceof CursorMoved) return 0;
    throw error;
  });
  return { from, to, credited, behind: to < confirmedTip };
}

/** Another watcher read the same blocks and committed first: this pass's work is dropped. */
class CursorMoved extends Error {
  constructor(chain: string) {
    super(`the ${chain} watcher's cursor moved under this pass`);
  }
}

async function creditDeposits(
  ctx: ChainsDeps,
  tx: Tx,
  watched: WatchedChain,
  deposits: readonly DepositRow[],
) {
  if (deposits.length === 0) return;
  const nowMs = ctx.clock.nowMs();
  const credits: ChainDeposit[] = deposits.map((deposit) => ({
    chain: watched.chain,
    owner: deposit.owner,
    address: deposit.address,
    currency: deposit.currency,
    amount: new Money(deposit.amount),
    blockchainTx: {
      id: `TR_${randomChars(11)}`,
      networkTxId: deposit.txHash,
      createdAt: nowMs,
      confirmations: watched.confirmations,
      timeObserved: nowMs,
      blockTime: nowMs,
      blockhash: deposit.blockHash,
      amount: deposit.amount,
      direction: 'INCOMING',
      networkFee: '0',
      address: deposit.address,
      sourceAddress: null,
      currency: deposit.currency,
      twinTxId: null,
    },
  }));
  await ctx.chains.deposits(tx, credits);
}

interface Found {
  deposits: DepositRow[];
  balances: { address: string; balance: string }[];
}

/** The deposits to `keys` in blocks `from`…`to`, and the native balances at `to`. */
async function depositsIn(watched: WatchedChain, keys: readonly DepositKeyRow[], from: bigint, to: bigint) {
  const byAddress = new Map(keys.map((key) => [key.address.toLowerCase(), key]));
  const found: Found = { deposits: [], balances: [] };
  if (byAddress.size === 0) return found;
  const native = await nativeFlows(watched, byAddress, from, to);
  found.deposits.push(...native.deposits);
  found.deposits.push(...(await tokenDeposits(watched, byAddress, from, to)));
  const [toBlock, balances] = await Promise.all([
    watched.client.getBlock({ blockNumber: to }),
    readAll(keys, (key) => watched.client.getBalance({ address: key.address as Address, blockNumber: to })),
  ]);
  for (const [index, key] of keys.entries()) {
    const balance = balances[index]!;
    const lower = key.address.toLowerCase();
    // What the range's transactions explain: coin paid in by a transaction, less coin sent out.
    const explained = (native.incoming.get(lower) ?? 0n) - (native.outgoing.get(lower) ?? 0n);
    const expected = BigInt(key.native_balance) + explained;
    const internal = balance - expected;
    // The expected balance carries on from what was explained and credited, never from the read
    // alone: a node answering a stale balance once (lower) must not make the true one, read
    // later, look like new coin.
    found.balances.push({ address: key.address, balance: (internal > 0n ? balance : expected).toString() });
    if (internal <= 0n) continue;
    found.deposits.push({
      chain: watched.chain,
      depositKey: `internal:${lower}:${to}`,
      address: key.address,
      owner: key.owner,
      currency: watched.nativeCurrency,
      amount: formatUnits(internal, NATIVE_DECIMALS),
      blockNumber: to.toString(),
      blockHash: toBlock.hash!,
      txHash: null,
    });
  }
  return found;
}

interface NativeFlows {
  deposits: DepositRow[];
  /** Coin each address received by a transaction in the range (from anyone, the hot wallet too). */
  incoming: Map<string, bigint>;
  /** Coin each address sent out (value and fee) in the range. */
  outgoing: Map<string, bigint>;
}

/** The range's transactions to and from deposit addresses: deposits and the balance changes they explain. */
async function nativeFlows(
  watched: WatchedChain,
  byAddress: ReadonlyMap<string, DepositKeyRow>,
  from: bigint,
  to: bigint,
): Promise<NativeFlows> {
  const flows: NativeFlows = { deposits: [], incoming: new Map(), outgoing: new Map() };
  const add = (map: Map<string, bigint>, address: string, amount: bigint) =>
    map.set(address, (map.get(address) ?? 0n) + amount);
  const hot = watched.hotWallet.toLowerCase();
  const numbers: bigint[] = [];
  for (let number = from; number <= to; number++) numbers.push(number);
  const blocks = await readAll(numbers, (blockNumber) =>
    watched.client.getBlock({ blockNumber, includeTransactions: true }),
  );
  const touching = blocks.flatMap((block) =>
    block.transactions
      .filter(
        (transaction) =>
          (transaction.to && byAddress.has(transaction.to.toLowerCase())) ||
          byAddress.has(transaction.from.toLowerCase()),
      )
      .map((transaction) => ({ block, transaction })),
  );
  const receipts = await readAll(touching, ({ transaction }) =>
    watched.client.getTransactionReceipt({ hash: transaction.hash as Hash }),
  );
  for (const [index, { block, transaction }] of touching.entries()) {
    const toKey = transaction.to ? byAddress.get(transaction.to.toLowerCase()) : undefined;
    const fromKey = byAddress.has(transaction.from.toLowerCase());
    const receipt = receipts[index]!;
    const succeeded = receipt.status === 'success';
    if (fromKey) {
      const fee = receipt.gasUsed * receipt.effectiveGasPrice;
      add(flows.outgoing, transaction.from.toLowerCase(), fee + (succeeded ? transaction.value : 0n));
    }
    if (!toKey || !succeeded || transaction.value === 0n) continue;
    add(flows.incoming, toKey.address.toLowerCase(), transaction.value);
    // The hot wallet's gas for a sweep, or a deposit address paying another: custody's own coin.
    if (transaction.from.toLowerCase() === hot || fromKey) continue;
    flows.deposits.push({
      chain: watched.chain,
      depositKey: `${transaction.hash}:native`,
      address: toKey.address,
      owner: toKey.owner,
      currency: watched.nativeCurrency,
      amount: formatUnits(transaction.value, NATIVE_DECIMALS),
      blockNumber: block.number!.toString(),
      blockHash: block.hash!,
      txHash: transaction.hash,
    });
  }
  return flows;
}

/** The range's ERC-20 `Transfer` logs of the configured tokens to deposit addresses. */
async function tokenDeposits(
  watched: WatchedChain,
  byAddress: ReadonlyMap<string, DepositKeyRow>,
  from: bigint,
  to: bigint,
): Promise<DepositRow[]> {
  if (watched.tokens.length === 0) return [];
  const currencyOf = new Map(watched.tokens.map((token) => [token.contract.toLowerCase(), token.currency]));
  const logs = await watched.client.getLogs({
    address: watched.tokens.map((token) => token.contract),
    event: TRANSFER_EVENT,
    fromBlock: from,
    toBlock: to,
  });
  const hot = watched.hotWallet.toLowerCase();
  const deposits: DepositRow[] = [];
  for (const log of logs) {
    const { from: sender, to: recipient, value } = log.args;
    const key = recipient ? byAddress.get(recipient.toLowerCase()) : undefined;
    const currency = currencyOf.get(log.address.toLowerCase());
    if (!key || !currency || !value || value === 0n || log.removed) continue;
    if (sender?.toLowerCase() === hot || (sender && byAddress.has(sender.toLowerCase()))) continue;
    const decimals = await tokenDecimals(watched.client, log.address);
    deposits.push({
      chain: watched.chain,
      depositKey: `${log.transactionHash}:${log.logIndex}`,
      address: key.address,
      owner: key.owner,
      currency,
      amount: formatUnits(value, decimals),
      blockNumber: log.blockNumber!.toString(),
      blockHash: log.blockHash!,
      txHash: log.transactionHash,
    });
  }
  return deposits;
}
