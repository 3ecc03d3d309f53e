import type { AppContext } from '../platform/context.ts';
import type { Tx } from '../platform/db/pool.ts';
import type { Money } from '../platform/money.ts';
import type { Chain } from './addresses.ts';
import { insertSends } from './store.ts';

/**
 * The chains port: how other modules pay out on a chain without knowing which chain backend
 * runs. A send is queued in the caller's transaction (so it exists exactly when the change that
 * asked for it commits); the backend settles it later and reports the outcome to the handler
 * registered for the reference's type, in one transaction, exactly once. Sandbox has the
 * simulated chain of sandbox-chain.ts; production has no custody backend yet, so its sends stay
 * QUEUED and callers refuse chain payouts there (chainSendsAvailable).
 */

/** An outgoing on-chain payment some module asked for; `reference` names it, e.g. `transfer:TF_…`, `order:WO_…`. */
export interface ChainSend {
  reference: string;
  chain: Chain;
  address: string;
  currency: string;
  amount: Money;
  /** What the sender pays the network on top of `amount` (shown in the BlockchainTx); 0 when omitted. */
  networkFee?: Money;
}

export interface ChainOutcome {
  reference: string;
  status: 'CONFIRMED' | 'FAILED';
  /** The BlockchainTx of the facts (§1.5) when confirmed. */
  blockchainTx?: Record<string, unknown>;
  failureReason?: string;
}

export type ChainOutcomeHandler = (ctx: AppContext, tx: Tx, outcome: ChainOutcome) => Promise<void>;
export type ChainOutcomesHandler = (ctx: AppContext, tx: Tx, outcomes: ChainOutcome[]) => Promise<void>;

export const SANDBOX_SETTLE_JOB = 'chains.sandboxSettle';
/** A handler that throws (a lock timeout, a deadlock) gets the job retried with backoff. */
const SETTLE_ATTEMPTS = 5;
const REFERENCE = /^([a-z]+):[A-Za-z0-9_-]{1,64}$/;

const handlers = new Map<string, ChainOutcomeHandler>();
const groupHandlers = new Map<string, ChainOutcomesHandler>();

export function chainSendsAvailable(ctx: AppContext): boolean {
  return ctx.config.env === 'sandbox';
}

/** Queues the send in the caller's transaction; the chain reports back through onChainOutcome. */
export function requestChainSend(ctx: AppContext, tx: Tx, send: ChainSend): Promise<void> {
  return requestChainSends(ctx, tx, [send]);
}

/** requestChainSend for many sends (card orders processed together): one statement. */
export async function requestChainSends(ctx: AppContext, tx: Tx, sends: readonly ChainSend[]): Promise<void> {
  for (const send of sends) {
    if (!REFERENCE.test(send.reference)) throw new Error(`bad chain send reference ${send.reference}`);
    if (send.amount.lte(0)) throw new Error(`chain send ${send.reference} of ${send.amount.toFixed()}`);
  }
  const settle = chainSendsAvailable(ctx)
    ? {
        kind: SANDBOX_SETTLE_JOB,
        // Job times are real (database) time: the simulated chain's delay is not business time.
        runAtMs: Date.now() + ctx.config.sandboxChainDelayMs,
        maxAttempts: SETTLE_ATTEMPTS,
      }
    : undefined;
  await insertSends(
    tx,
    sends.map((send) => ({
      reference: send.reference,
      chain: send.chain,
      address: send.address,
      currency: send.currency,
      amount: send.amount.toFixed(),
      networkFee: send.networkFee?.toFixed() ?? '0',
    })),
    settle,
  );
}

/** Registers the handler for outcomes whose reference starts with `<type>:`; runs in a transaction. */
export function onChainOutcome(referenceType: string, handler: ChainOutcomeHandler): void {
  handlers.set(referenceType, handler);
}

/**
 * Optionally, for outcomes settled together: `handler` takes all of one batch's outcomes of its
 * type at once (in the settling transaction); without it each goes to onChainOutcome's handler.
 */
export function onChainOutcomes(referenceType: string, handler: ChainOutcomesHandler): void {
  groupHandlers.set(referenceType, handler);
}

/**
 * Hands outcomes to their modules, inside the backend's settling transaction: each type's
 * outcomes together when the module takes them so, else one by one. A reference type nobody
 * registered is a deployment error: throwing rolls the settlement back so it is retried.
 */
export async function deliverChainOutcomes(
  ctx: AppContext,
  tx: Tx,
  outcomes: readonly ChainOutcome[],
): Promise<void> {
  const byType = new Map<string, ChainOutcome[]>();
  for (const outcome of outcomes) {
    const type = REFERENCE.exec(outcome.reference)?.[1];
    if (!type || !handlers.has(type)) throw new Error(`no chain outcome handler for ${outcome.reference}`);
    if (byType.has(type)) byType.get(type)!.push(outcome);
    else byType.set(type, [outcome]);
  }
  for (const [type, ofType] of byType) {
    const together = groupHandlers.get(type);
    if (together && ofType.length > 1) {
      await together(ctx, tx, ofType);
      continue;
    }
    for (const outcome of ofType) await handlers.get(type)!(ctx, tx, outcome);
  }
}
