import { CHAINS, type Chain, isChain } from './addresses.ts';
import { chainErrors } from './errors.ts';
import type { ChainReconciliation, ChainsDeps } from './port.ts';

/**
 * A chain's custody against the ledger (contract decision 85), as its backend computes it: only
 * a chain with real custody (an RPC URL) has one. A node that does not answer is 503, transient.
 */
export async function reconcileChain(ctx: ChainsDeps, name: string): Promise<ChainReconciliation> {
  const backend = isChain(name) ? ctx.chains.backends[name] : undefined;
  if (!backend?.reconcile) throw chainErrors.noCustody();
  try {
    return await backend.reconcile(ctx);
  } catch (error) {
    if (isRpcFailure(error)) throw chainErrors.nodeUnreachable(name);
    throw error;
  }
}

/** The chains whose custody can be reconciled (those with an RPC URL), in the order CHAINS lists them. */
export function chainsWithCustody(ctx: ChainsDeps): Chain[] {
  return CHAINS.filter((chain) => ctx.chains.backends[chain]?.reconcile !== undefined);
}

/** viem's errors of a node that cannot be reached or answers garbage (not the database's). */
function isRpcFailure(error: unknown): boolean {
  const name = (error as { name?: string } | undefined)?.name ?? '';
  return (
    /^(HttpRequest|Timeout|RpcRequest|InternalRpc|UnknownRpc|WebSocketRequest)Error$/.test(name) ||
    /Rpc|Http/.test(name)
  );
}
