import { type Address, formatUnits } from 'viem';
import { totalsByCurrency } from '../../ledger/index.ts';
import { withTransaction } from '../../platform/db/pool.ts';
import { Money } from '../../platform/money.ts';
import type { ChainReconciliation, ChainsDeps, CurrencyReconciliation } from '../port.ts';
import { unsettledSendTotals } from '../store.ts';
import { evmDepositAddress, HOUSE_INVENTORY } from './deposit-addresses.ts';
import { depositKeysOf, readCursor } from './deposit-store.ts';
import type { SweptChain } from './sweeper.ts';
import { tokenBalance, tokenDecimals } from './token-reads.ts';

const NATIVE_DECIMALS = 18;

/**
 * Custody on chain against the ledger, per currency of the chain (contract decision 85): what
 * the hot wallet and every deposit address hold, against what the ledger says custody holds:
 * customers' balances, the house inventory, the other house balances (fees, fx, sweep gas) and
 * the sends paid out on the ledger that the chain has not confirmed yet. The chain is read at the
 * last block the watcher credited, so a deposit counts on both sides or on neither.
 */
export async function reconcileEvmChain(ctx: ChainsDeps, chain: SweptChain): Promise<ChainReconciliation> {
  const houseDepositAddress = await withTransaction(ctx.db, (tx) =>
    evmDepositAddress(tx, chain.keys, chain.chain, HOUSE_INVENTORY),
  );
  const cursor = await readCursor(ctx.db, chain.chain);
  const blockNumber = cursor !== undefined && cursor > 0n ? cursor - 1n : await chain.client.getBlockNumber();
  const addresses = (await depositKeysOf(ctx.db, chain.chain)).map((key) => key.address as Address);
  const hot = chain.hotWallet;
  const currencies = [chain.nativeCurrency, ...chain.tokens.map((token) => token.currency)];
  const [totals, pending, queued] = await Promise.all([
    totalsByCurrency(ctx.db, currencies),
    // Withdrawals are paid on the ledger when created; card deliveries and gas top-ups only when
    // their send confirms, so only the withdrawals not settled yet are custody's still.
    unsettledSendTotals(ctx.db, chain.chain, 'transfer'),
    unsettledSendTotals(ctx.db, chain.chain, null),
  ]);
  const held = async (currency: string, address: Address): Promise<Money> => {
    if (currency === chain.nativeCurrency)
      return new Money(formatUnits(await chain.client.getBalance({ address, blockNumber }), NATIVE_DECIMALS));
    const token = chain.tokens.find((t) => t.currency === currency)!;
    const [units, decimals] = await Promise.all([
      tokenBalance(chain.client, token.contract, address, blockNumber),
      tokenDecimals(chain.client, token.contract),
    ]);
    return new Money(formatUnits(units, decimals));
  };
  const lines: CurrencyReconciliation[] = [];
  for (const ledger of totals) {
    const hotWallet = await held(ledger.currency, hot);
    let depositAddresses = new Money(0);
    for (const address of addresses)
      depositAddresses = depositAddresses.plus(await held(ledger.currency, address));
    const pendingWithdrawals = new Money(pending.get(ledger.currency) ?? 0);
    const expected = ledger.customers.plus(ledger.inventory).plus(ledger.house).plus(pendingWithdrawals);
    const onChain = hotWallet.plus(depositAddresses);
    const difference = onChain.minus(expected);
    const queuedSends = new Money(queued.get(ledger.currency) ?? 0);
    const short = queuedSends.minus(hotWallet);
    lines.push({
      currency: ledger.currency,
      liabilities: ledger.customers,
      houseInventory: ledger.inventory,
      houseOther: ledger.house,
      pendingWithdrawals,
      expectedOnChain: expected,
      hotWallet,
      depositAddresses,
      onChain,
      difference,
      balanced: difference.isZero(),
      queuedSends,
      shortfall: short.gt(0) ? short : new Money(0),
    });
  }
  return {
    chain: chain.chain,
    blockNumber: Number(blockNumber),
    houseDepositAddress,
    hotWalletAddress: hot,
    currencies: lines,
    balanced: lines.every((line) => line.balanced),
  };
}
