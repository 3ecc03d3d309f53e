import {
  BaseError,
  encodeFunctionData,
  erc20Abi,
  type Hex,
  keccak256,
  parseTransaction,
  type TransactionReceipt,
} from 'viem';
import { postEntry } from '../../ledger/service.ts';
import { inTransaction, type Tx } from '../../platform/db/pool.ts';
import { randomChars } from '../../platform/ids.ts';
import { isKnownCurrency, Money } from '../../platform/money.ts';
import { type ChainOutcome, type ChainsDeps, deliverChainOutcomes } from '../port.ts';
import { lockQueuedSends, recordOutcomes } from '../store.ts';
import type { EvmRpc } from './rpc.ts';
import {
  allocateNonce,
  insertSignedTx,
  markBroadcast,
  markDone,
  type PendingSend,
  pendingSends,
  type StoredTx,
  sendsWithoutNonce,
  tryLockChain,
  type UnsignedSend,
  unlockChain,
} from './send-store.ts';
import type { EvmChainSettings, EvmSendSettings } from './settings.ts';
import { fromBaseUnits, toBaseUnits } from './units.ts';

/**
 * The send side of a real EVM chain (contract decisions 70–76). Each round, under the chain's
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
 * being QUEUED in the transaction that delivers it).
 */
export interface EvmChainRuntime {
  settings: EvmChainSettings;
  sends: EvmSendSettings;
  rpc: EvmRpc;
  /** The chain id transactions are signed for (configured, else the node's). */
  chainId(): Promise<number>;
  tokenDecimals(contract: `0x${string}`): Promise<number>;
  /** Told whether the node answered this round. */
  reached(up: boolean): void;
}

/** Sends given a nonce per round: bounds one round's work. */
const SIGN_BATCH = 50;
/** A replacement pays at least this much more (nodes ask for 10 %). */
const BUMP_NUMERATOR = 1125n;
const BUMP_DENOMINATOR = 1000n;

/** Why a send is refused before it gets a nonce: it fails, funds returned, nothing sent. */
class Refusal extends Error {}
/** The hot wallet cannot cover the send now: it waits (bounded by RAMPART_EVM_FUNDS_WAIT_MS). */
class Shortfall extends Error {}

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

/** A transport failure (refused, timed out, garbage): the node did not answer. */
export function isUnreachable(error: unknown): boolean {
  const names = ['HttpRequestError', 'TimeoutError', 'WebSocketRequestError', 'SocketClosedError'];
  if (error instanceof BaseError)
    return Boolean(error.walk((inner) => names.includes((inner as Error).name)));
  return false;
}

interface Payment {
  to: `0x${string}`;
  value: bigint;
  data: Hex | undefined;
  /** The asset moved, in base units, and what it is (native, or a token's contract). */
  units: bigint;
  asset: 'native' | `0x${string}`;
}

/** What the hot wallet holds now, less what its unmined sends will take. */
interface Funds {
  native: bigint;
  tokens: Map<string, bigint>;
}

async function signQueued(ctx: ChainsDeps, client: Tx, chain: EvmChainRuntime): Promise<void> {
  const queued = await sendsWithoutNonce(client, chain.settings.chain, SIGN_BATCH);
  if (queued.length === 0) return;
  const { publicClient, hotAccount } = chain.rpc;
  const nodeNext = await publicClient.getTransactionCount({
    address: hotAccount.address,
    blockTag: 'pending',
  });
  const funds = await availableFunds(client, chain);
  await eachAlone(queued, async (send) => {
    let signed: StoredTx | undefined;
    try {
      signed = await signSend(client, chain, send, nodeNext, funds);
    } catch (error) {
      if (error instanceof Refusal) return failWithoutNonce(ctx, client, send.reference, error.message);
      if (!(error instanceof Shortfall)) throw error;
      if (Date.now() - send.created_at_ms < chain.sends.fundsWaitMs) return;
      return failWithoutNonce(ctx, client, send.reference, error.message);
    }
    if (signed) await broadcastOne(client, chain, signed);
  });
}

/**
 * Runs fn for each item in turn; one item's failure does not stop the others (a send the node
 * refuses must not hold up the chain's other sends). A node that does not answer stops the round
 * at once; otherwise the first failure is thrown once every item had its turn.
 */
async function eachAlone<T>(items: readonly T[], fn: (item: T) => Promise<void>): Promise<void> {
  let first: unknown;
  for (const item of items) {
    try {
      await fn(item);
    } catch (error) {
      if (isUnreachable(error)) throw error;
      first ??= error;
    }
  }
  if (first !== undefined) throw first;
}

/** Checks, prices and signs one send; its nonce and signed bytes are stored before it returns. */
async function signSend(
  client: Tx,
  chain: EvmChainRuntime,
  send: UnsignedSend,
  nodeNext: number,
  funds: Funds,
): Promise<StoredTx | undefined> {
  const { publicClient, hotAccount } = chain.rpc;
  const payment = await paymentOf(chain, send);
  const tokenKey = payment.asset === 'native' ? undefined : payment.asset.toLowerCase();
  const held = tokenKey === undefined ? funds.native : (funds.tokens.get(tokenKey) ?? 0n);
  if (held < payment.units) throw new Shortfall(shortfallReason(chain, send));
  const gas = await estimateGas(chain, payment);
  const fees = await publicClient.estimateFeesPerGas();
  const gasReserve = gas * fees.maxFeePerGas;
  const nativeNeeded = gasReserve + (payment.asset === 'native' ? payment.units : 0n);
  if (funds.native < nativeNeeded) throw new Shortfall(shortfallReason(chain, send));
  funds.native -= nativeNeeded;
  if (tokenKey !== undefined) funds.tokens.set(tokenKey, held - payment.units);
  const chainId = await chain.chainId();
  return inTransaction(client, async () => {
    const nonce = await allocateNonce(client, {
      reference: send.reference,
      chain: chain.settings.chain,
      from: hotAccount.address,
      nodeNext,
    });
    if (nonce === undefined) return undefined;
    const raw = await hotAccount.signTransaction({
      type: 'eip1559',
      chainId,
      nonce,
      to: payment.to,
      value: payment.value,
      ...(payment.data ? { data: payment.data } : {}),
      gas,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    });
    const stored = {
      hash: keccak256(raw),
      reference: send.reference,
      raw,
      gasLimit: gas,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    };
    await insertSignedTx(client, stored);
    return storedView(stored);
  });
}

function storedView(tx: {
  hash: Hex;
  raw: Hex;
  gasLimit: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}): StoredTx {
  return {
    hash: tx.hash,
    raw: tx.raw,
    gas_limit: tx.gasLimit.toString(),
    max_fee_per_gas: tx.maxFeePerGas.toString(),
    max_priority_fee_per_gas: tx.maxPriorityFeePerGas.toString(),
    signed_at_ms: Date.now(),
    broadcast: false,
  };
}

function shortfallReason(chain: EvmChainRuntime, send: UnsignedSend): string {
  return `The ${chain.settings.chain} hot wallet could not cover ${send.amount} ${send.currency} and its gas in time.`;
}

/** The transaction that pays `send`: a plain transfer of the native coin, or the token's transfer(to, amount). */
async function paymentOf(chain: EvmChainRuntime, send: UnsignedSend): Promise<Payment> {
  const to = send.address as `0x${string}`;
  if (send.currency === chain.settings.nativeCurrency) {
    const units = toBaseUnits(send.amount, 18);
    if (units === undefined) throw new Refusal(`${send.amount} ${send.currency} is finer than 18 decimals.`);
    if (!chain.sends.nativeToContracts) {
      const code = await chain.rpc.publicClient.getCode({ address: to });
      if (code !== undefined && code !== '0x')
        throw new Refusal(
          `${to} is a contract: ${send.currency} is not sent to contracts (RAMPART_EVM_NATIVE_TO_CONTRACTS).`,
        );
    }
    return { to, value: units, data: undefined, units, asset: 'native' };
  }
  const token = chain.settings.tokens.find((configured) => configured.currency === send.currency);
  if (!token) throw new Refusal(`${send.currency} is not configured on ${chain.settings.chain}.`);
  const decimals = await chain.tokenDecimals(token.contract);
  const units = toBaseUnits(send.amount, decimals);
  if (units === undefined)
    throw new Refusal(`${send.amount} ${send.currency} is finer than the token's ${decimals} decimals.`);
  const data = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, units] });
  return { to: token.contract, value: 0n, data, units, asset: token.contract };
}

/**
 * The node's gas estimate, with a margin for calls (a token's transfer may cost more once other
 * transfers land first). A call the node says reverts is refused: the token contract refuses it.
 */
async function estimateGas(chain: EvmChainRuntime, payment: Payment): Promise<bigint> {
  let estimate: bigint;
  try {
    estimate = await chain.rpc.publicClient.estimateGas({
      account: chain.rpc.hotAccount.address,
      to: payment.to,
      value: payment.value,
      ...(payment.data ? { data: payment.data } : {}),
    });
  } catch (error) {
    if (isUnreachable(error)) throw error;
    const text = errorText(error);
    if (/insufficient funds/i.test(text)) throw new Shortfall("The hot wallet cannot pay this send's gas.");
    if (/revert/i.test(text))
      throw new Refusal(
        `The ${payment.asset === 'native' ? 'recipient' : 'token contract'} refused the transfer.`,
      );
    throw error;
  }
  return payment.data ? estimate + estimate / 5n : estimate;
}

function errorText(error: unknown): string {
  if (error instanceof BaseError) {
    const texts: string[] = [];
    error.walk((inner) => {
      texts.push((inner as BaseError).details ?? '', (inner as Error).message);
      return false;
    });
    return texts.join(' ');
  }
  return String((error as Error)?.message ?? error);
}

/** The hot wallet's balances less what its sends not yet mined will spend. */
async function availableFunds(client: Tx, chain: EvmChainRuntime): Promise<Funds> {
  const { publicClient, hotAccount } = chain.rpc;
  const address = hotAccount.address;
  const [native, minedCount, pending] = await Promise.all([
    publicClient.getBalance({ address }),
    publicClient.getTransactionCount({ address, blockTag: 'latest' }),
    pendingSends(client, chain.settings.chain),
  ]);
  const tokens = new Map<string, bigint>();
  for (const token of chain.settings.tokens) {
    const balance = await publicClient.readContract({
      address: token.contract,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [address],
    });
    tokens.set(token.contract.toLowerCase(), balance);
  }
  const funds = { native, tokens };
  for (const send of pending.filter((unmined) => unmined.nonce >= minedCount)) {
    const latest = send.txs.at(-1);
    if (!latest) continue;
    const parsed = parseTransaction(latest.raw);
    funds.native -= (parsed.value ?? 0n) + BigInt(latest.gas_limit) * BigInt(latest.max_fee_per_gas);
    const token = parsed.to?.toLowerCase();
    if (token !== undefined && tokens.has(token)) {
      const units = toBaseUnits(send.amount, await chain.tokenDecimals(token as `0x${string}`)) ?? 0n;
      tokens.set(token, tokens.get(token)! - units);
    }
  }
  return funds;
}

/** A send refused before it had a nonce: FAILED (its module returns the funds), nothing on chain. */
async function failWithoutNonce(ctx: ChainsDeps, client: Tx, reference: string, reason: string) {
  await inTransaction(client, async () => {
    if ((await lockQueuedSends(client, [reference])).length === 0) return;
    const outcome: ChainOutcome = { reference, status: 'FAILED', failureReason: reason };
    await recordOutcomes(client, [
      { reference, status: 'FAILED', blockchainTx: null, failureReason: reason },
    ]);
    await deliverChainOutcomes(ctx, client, [outcome]);
  });
}

/** Answers of a node that already has this nonce's transaction (or this very one). */
const ALREADY_THERE = /already known|known transaction|nonce too low|underpriced|already imported/i;

async function broadcastOne(client: Tx, chain: EvmChainRuntime, tx: StoredTx): Promise<void> {
  try {
    await chain.rpc.publicClient.sendRawTransaction({ serializedTransaction: tx.raw });
  } catch (error) {
    if (isUnreachable(error) || !ALREADY_THERE.test(errorText(error))) throw error;
  }
  await markBroadcast(client, tx.hash);
}

async function broadcastStored(client: Tx, chain: EvmChainRuntime): Promise<void> {
  const unsent = (await pendingSends(client, chain.settings.chain)).flatMap((send) =>
    send.txs.filter((stored) => !stored.broadcast),
  );
  await eachAlone(unsent, (tx) => broadcastOne(client, chain, tx));
}

async function followPending(ctx: ChainsDeps, client: Tx, chain: EvmChainRuntime): Promise<void> {
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
