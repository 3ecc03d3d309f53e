import { encodeFunctionData, erc20Abi, type Hex, keccak256, parseTransaction } from 'viem';
import { inTransaction, type Tx } from '../../platform/db/pool.ts';
import { type ChainOutcome, type ChainsDeps, deliverChainOutcomes } from '../port.ts';
import { lockQueuedSends, recordOutcomes } from '../store.ts';
import {
  broadcastOne,
  contractRefusal,
  type EvmChainRuntime,
  eachAlone,
  errorText,
  isUnreachable,
  Refusal,
  Shortfall,
  storedView,
} from './send-common.ts';
import {
  allocateNonce,
  insertSignedTx,
  pendingSends,
  type StoredTx,
  sendsWithoutNonce,
  type UnsignedSend,
} from './send-store.ts';
import { tokenBalance } from './token-reads.ts';
import { toBaseUnits } from './units.ts';

// The sender's first step: queued sends checked, priced, given their nonce and signed (decisions 72–77).

/** Sends given a nonce per round: bounds one round's work. */
const SIGN_BATCH = 50;

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

/**
 * The queued sends without a nonce, oldest first: each is refused (FAILED), left waiting for funds,
 * or signed, stored and broadcast. The funds are read once per round and drawn down send by send.
 */
export async function signQueued(ctx: ChainsDeps, client: Tx, chain: EvmChainRuntime): Promise<void> {
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
      // Checked again here: code may have been deployed at the address since the request.
      if (code !== undefined && code !== '0x') throw new Refusal(contractRefusal(to, send.currency));
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
    const balance = await tokenBalance(publicClient, token.contract, address);
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
