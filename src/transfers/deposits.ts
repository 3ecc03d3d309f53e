import { transferCreatedArguments } from '../callbacks/index.ts';
import {
  CHAINS,
  type Chain,
  type ChainDeposit,
  chainsForCurrency,
  findDepositAddressOwner,
  isChain,
} from '../chains/index.ts';
import { balancesOf, combinedEntries, entryArguments, type NewEntry, postEntry } from '../ledger/index.ts';
import { auditOperatorChange, type OperatorAct } from '../operator/index.ts';
import type { Tx } from '../platform/db/pool.ts';
import { newId } from '../platform/ids.ts';
import { parsePositiveAmount } from '../platform/money.ts';
import type { TransferRulesDeps } from './deps.ts';
import { transferErrors } from './errors.ts';
import type { DepositBody } from './schemas.ts';
import { historyEntry } from './status-history.ts';
import {
  insertSettledTransfers,
  type NewTransfer,
  type SettledTransfer,
  updateStatusesFrom,
} from './store.ts';

/** `ethereum:0x…` names its chain; a bare address may be on any chain whose format it has. */
function candidates(dest: string): { chains: readonly Chain[]; address: string } {
  const colon = dest.indexOf(':');
  if (colon > 0) {
    const chain = dest.slice(0, colon).toLowerCase();
    if (!isChain(chain)) throw transferErrors.depositAddressUnknown();
    return { chains: [chain], address: dest.slice(colon + 1) };
  }
  return { chains: CHAINS, address: dest };
}

async function depositTarget(tx: Tx, dest: string) {
  const { chains, address } = candidates(dest);
  for (const chain of chains) {
    const found = await findDepositAddressOwner(tx, chain, address);
    if (found) return { ...found, chain, address };
  }
  throw transferErrors.depositAddressUnknown();
}

/**
 * POST /operator/v1/sandbox/deposits: what the sandbox chain would see as an incoming payment
 * to a deposit address. The owner is credited from external:chain:<chain> in one entry; any
 * currency that chain carries is accepted (USDC to an ethereum address). Audited with the change.
 */
export async function simulateDeposit(ctx: TransferRulesDeps, tx: Tx, act: OperatorAct, body: DepositBody) {
  if (!Object.values(ctx.chains.backends).some((backend) => backend?.simulatesDeposits))
    throw transferErrors.sandboxOnly();
  const amount = parsePositiveAmount(body.amount, 'amount', body.currency);
  const target = await depositTarget(tx, body.dest);
  if (!ctx.chains.backends[target.chain]?.simulatesDeposits) throw transferErrors.sandboxOnly();
  if (!chainsForCurrency(body.currency).includes(target.chain)) {
    throw transferErrors.depositCurrency(target.chain, body.currency);
  }
  const entryId = await postEntry(tx, {
    kind: 'chain.deposit',
    reference: `${target.chain}:${target.address}`,
    postings: [
      { owner: `external:chain:${target.chain}`, currency: body.currency, amount: amount.negated() },
      { owner: target.owner, currency: body.currency, amount },
    ],
  });
  await auditOperatorChange(tx, act, target.owner, {
    chain: target.chain,
    address: target.address,
    currency: body.currency,
    amount: amount.toFixed(),
    entryId,
  });
  return {
    entryId,
    owner: target.owner,
    chain: target.chain,
    address: target.address,
    currency: body.currency,
    amount,
    ...(await balancesOf(tx, target.owner)),
  };
}

const CHAIN_SOURCE = 'external:chain:';

/** The ledger entry of a deposit: from the outside world of its chain to its owner. */
function depositEntry(deposit: ChainDeposit, reference: string): NewEntry {
  return {
    kind: 'chain.deposit',
    reference,
    postings: [
      {
        owner: `${CHAIN_SOURCE}${deposit.chain}`,
        currency: deposit.currency,
        amount: deposit.amount.negated(),
      },
      { owner: deposit.owner, currency: deposit.currency, amount: deposit.amount },
    ],
  };
}

/** A deposit's transfer (the Transfer shape of docs/contract.md, Transfers): COMPLETED from `external:chain:<chain>` to its owner. */
function depositTransferRow(
  deposit: ChainDeposit,
  partnerId: string,
  id: string,
  nowMs: number,
): NewTransfer {
  const amount = deposit.amount.toFixed();
  const owner = deposit.owner;
  return {
    id,
    partner_id: partnerId,
    account_id: owner.startsWith('account:') ? owner.slice('account:'.length) : partnerId,
    owner,
    source: `${CHAIN_SOURCE}${deposit.chain}`,
    dest: owner,
    source_currency: deposit.currency,
    dest_currency: deposit.currency,
    source_amount: amount,
    source_amount_without_fees: amount,
    dest_amount: amount,
    network_fee: '0',
    exchange_rate: null,
    fees: {},
    total_fees: '0',
    message: null,
    custom_id: null,
    status: 'COMPLETED',
    hold_id: null,
    status_history: [
      historyEntry('INITIATED', nowMs),
      historyEntry('PENDING', nowMs),
      historyEntry('COMPLETED', nowMs),
    ],
    created_at: new Date(nowMs),
    completed_at: new Date(nowMs),
    expires_at: new Date(nowMs),
  };
}

/**
 * Credits deposits a chain watcher found with their confirmations, in the watcher's transaction
 * (which records each deposit under a unique key first, so each comes here once): a customer's
 * deposit becomes a COMPLETED transfer from `external:chain:<chain>` with its `blockchainTx`, its
 * ledger entry and its callbacks; the house's own (its inventory, contract decision 84) is a
 * ledger entry only.
 */
export async function recordChainDeposits(
  ctx: TransferRulesDeps,
  tx: Tx,
  deposits: readonly ChainDeposit[],
): Promise<void> {
  const nowMs = ctx.clock.nowMs();
  const transfers: SettledTransfer[] = [];
  const entries: ReturnType<typeof entryArguments>[] = [];
  const chainTxs: { id: string; blockchainTx: Record<string, unknown> }[] = [];
  for (const deposit of deposits) {
    const found = deposit.owner.startsWith('house:')
      ? undefined
      : await findDepositAddressOwner(tx, deposit.chain, deposit.address);
    if (!found) {
      await postEntry(tx, depositEntry(deposit, `${deposit.chain}:${deposit.address}`));
      continue;
    }
    const row = depositTransferRow(deposit, found.partnerId, newId('TF'), nowMs);
    const callbacks = transferCreatedArguments(ctx, {
      accountId: row.account_id,
      partnerId: row.partner_id,
      transferId: row.id,
      owner: row.owner,
      parties: [row.dest],
    });
    transfers.push({ row, callbacks });
    entries.push(entryArguments(depositEntry(deposit, `transfer:${row.id}`)));
    chainTxs.push({ id: row.id, blockchainTx: deposit.blockchainTx });
  }
  if (transfers.length === 0) return;
  await insertSettledTransfers(tx, transfers, combinedEntries(entries));
  const at = new Date(nowMs);
  await updateStatusesFrom(
    tx,
    chainTxs.map(({ id, blockchainTx }) => ({
      id,
      change: { status: 'COMPLETED', history: [], at, blockchainTx },
    })),
    'COMPLETED',
    CHAIN_SOURCE,
  );
}
