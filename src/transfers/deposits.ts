import { CHAINS, type Chain, chainsForCurrency, isChain } from '../chains/addresses.ts';
import { balancesOf, postEntry } from '../ledger/service.ts';
import { auditOperatorChange, type OperatorAct } from '../operator/audit.ts';
import type { Tx } from '../platform/db/pool.ts';
import { parsePositiveAmount } from '../platform/money.ts';
import { findDepositAddressOwner } from '../users/deposit-addresses.ts';
import type { TransferRulesDeps } from './deps.ts';
import { transferErrors } from './errors.ts';
import type { DepositBody } from './schemas.ts';

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
