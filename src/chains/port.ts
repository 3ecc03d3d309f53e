import type { AppContext } from '../platform/context.ts';
import type { Queryable, Tx } from '../platform/db/pool.ts';
import type { JobRunner } from '../platform/jobs/runner.ts';
import type { Money } from '../platform/money.ts';
import { type Chain, chainsForCurrency, type Network } from './addresses.ts';
import type { KnownDepositAddresses } from './known-addresses.ts';
import { cancelQueuedSend, chainOfSend, insertSends } from './store.ts';

/**
 * The chains port: how other modules pay out on a chain without knowing which chain backend
 * runs. A send is queued in the caller's transaction (so it exists exactly when the change that
 * asked for it commits); the backend settles it later and reports the outcome to the handler
 * given for the reference's type, in one transaction, exactly once. The composition root
 * chooses a backend per chain: sandbox has the simulated chain of sandbox-chain.ts for every
 * chain; a chain without a backend keeps its sends QUEUED and callers refuse payouts on it
 * (chainSendsAvailable).
 */

/** One chain's custody: what settles the sends queued on it and where deposits to it go. */
export interface ChainBackend {
  /** The job that settles a send, queued with the send in the caller's transaction. */
  settleJob(): { kind: string; runAtMs: number; maxAttempts: number };
  /**
   * Where `owner` (any SRN) deposits `currency` on `chain`, and every currency that address
   * receives (an EVM address takes the native coin and each configured token: the users' view
   * lists it under each). `q` is the caller's transaction: a backend that records the address
   * (an EVM derivation index) does so with the caller's change.
   */
  depositAddress(
    q: Queryable,
    chain: Chain,
    owner: string,
    currency: string,
  ): Promise<{ address: string; currencies: string[] }>;
  /** Whether the operator may report a deposit by hand (POST /operator/v1/sandbox/deposits). */
  readonly simulatesDeposits: boolean;
  /** Registers the worker's handler of this backend's settle jobs. */
  registerSettler(runner: JobRunner, ctx: ChainsDeps): Promise<void> | void;
  /**
   * The ledger currencies this chain carries, when the backend is configured with them (a real
   * chain's native coin and tokens); undefined: the fixed list of addresses.ts decides.
   */
  readonly currencies?: readonly string[];
  /**
   * Why this backend would not pay `currency` to `address` (a real chain asks its node: native
   * coin to a contract), or undefined. Throws when the node cannot be asked.
   */
  destinationRefusal?(address: string, currency: string): Promise<string | undefined>;
  /**
   * True when the backend books the gas each of its sends actually paid (from house:fees to
   * external:chain:<chain>): a payout's quoted network fee is then the house's, not the chain's
   * (contract decision 73). The simulated chain pays exactly the quoted fee and books nothing.
   */
  readonly booksGas?: boolean;
  /** False while the chain's node cannot be reached: new sends are refused as transient (503). */
  reachable?(): boolean;
  /** The start check (a real chain: the node's chain id); throws to stop the start. */
  checkAtStart?(log: StartLog): Promise<void>;
  /**
   * True when a send still QUEUED has not left for the chain and may be cancelled (the simulated
   * chain). A real chain's sender picks queued sends up and signs them outside the caller's
   * locks, so its sends are never cancelled.
   */
  readonly cancelsQueuedSends?: boolean;
  /** Stops the backend's timers. */
  close?(): void;
  /** Registers the worker's deposit watcher and sweeper (a real chain's; the simulated one has none). */
  registerWatcher?(runner: JobRunner, ctx: ChainsDeps): Promise<void>;
  /** Custody on chain against the ledger (GET /operator/v1/chains/{name}/reconciliation); real chains only. */
  reconcile?(ctx: ChainsDeps): Promise<ChainReconciliation>;
}

/** Where a backend's start check reports what does not stop the start (an unreachable node). */
export interface StartLog {
  warn(fields: Record<string, unknown>, message: string): void;
}

/** One currency of a chain's reconciliation: amounts in currency units. */
export interface CurrencyReconciliation {
  currency: string;
  /** What customers hold on the ledger (every owner but `house:` and `external:` ones). */
  liabilities: Money;
  /** house:inventory's balance: the operator's own coin for card-order deliveries. */
  houseInventory: Money;
  /** Every other house balance in this currency (fees, fx, gas paid for sweeps: may be negative). */
  houseOther: Money;
  /** Sends the ledger paid out already that the chain has not confirmed yet (still in custody). */
  pendingWithdrawals: Money;
  /** liabilities + houseInventory + houseOther + pendingWithdrawals: what custody should hold. */
  expectedOnChain: Money;
  hotWallet: Money;
  depositAddresses: Money;
  /** hotWallet + depositAddresses. */
  onChain: Money;
  /** onChain − expectedOnChain: zero when custody balances. */
  difference: Money;
  balanced: boolean;
  /** Every send on this chain not settled yet (withdrawals, card deliveries, gas top-ups). */
  queuedSends: Money;
  /** What the hot wallet lacks to pay them (0 when it can): the operator funds the inventory. */
  shortfall: Money;
}

export interface ChainReconciliation {
  chain: Chain;
  /** The block the chain's balances were read at. */
  blockNumber: number;
  houseDepositAddress: string;
  hotWalletAddress: string;
  currencies: CurrencyReconciliation[];
  balanced: boolean;
}

/**
 * What a module does with the outcomes of the sends it asked for, by reference type (`transfer`,
 * `order`): `one` for a single outcome, `many` (optional) for a batch's outcomes of that type at
 * once. Both run in the backend's settling transaction.
 */
export interface ChainOutcomeHandler {
  one: (tx: Tx, outcome: ChainOutcome) => Promise<void>;
  many?: (tx: Tx, outcomes: ChainOutcome[]) => Promise<void>;
}

export interface ChainWiring {
  /** Testnet addresses in sandbox, mainnet in production. */
  network: Network;
  backends: Partial<Record<Chain, ChainBackend>>;
  outcomes: Readonly<Record<string, ChainOutcomeHandler>>;
  /** Owners' deposit addresses read complete before (account reads need no query for them). */
  knownAddresses: KnownDepositAddresses;
  /** Credits deposits a chain watcher found, in the watcher's transaction (transfers module). */
  deposits: ChainDepositHandler;
}

/** A deposit seen on a chain with its confirmations, to credit to `owner` exactly once. */
export interface ChainDeposit {
  chain: Chain;
  owner: string;
  address: string;
  currency: string;
  amount: Money;
  /** The BlockchainTx of docs/contract.md (Transfers), direction INCOMING. */
  blockchainTx: Record<string, unknown>;
}

export type ChainDepositHandler = (tx: Tx, deposits: readonly ChainDeposit[]) => Promise<void>;

/** What the chain functions are given: the chains the composition root wired. */
export interface ChainsDeps extends AppContext {
  chains: ChainWiring;
}

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
  /** The BlockchainTx of docs/contract.md (Transfers) when confirmed. */
  blockchainTx?: Record<string, unknown>;
  failureReason?: string;
}

const REFERENCE = /^([a-z]+):[A-Za-z0-9_-]{1,64}$/;

/** Whether sends on `chain` are settled by a backend (else they would wait QUEUED for ever). */
export function chainSendsAvailable(ctx: ChainsDeps, chain: Chain): boolean {
  return ctx.chains.backends[chain] !== undefined;
}

/** Whether `chain` carries `currency`: the backend's configured currencies, else addresses.ts's list. */
export function chainCarries(ctx: ChainsDeps, chain: Chain, currency: string): boolean {
  const configured = ctx.chains.backends[chain]?.currencies;
  return configured ? configured.includes(currency) : chainsForCurrency(currency).includes(chain);
}

/** Whether `chain`'s backend books the gas its sends pay (see ChainBackend.booksGas). */
export function chainBooksGas(ctx: Pick<ChainsDeps, 'chains'>, chain: Chain): boolean {
  return ctx.chains.backends[chain]?.booksGas === true;
}

/** Whether `chain`'s node answers now (a backend without a node always does). */
export function chainReachable(ctx: ChainsDeps, chain: Chain): boolean {
  return ctx.chains.backends[chain]?.reachable?.() ?? true;
}

/** The backend's refusal of a destination before anything is written (see ChainBackend). */
export function chainDestinationRefusal(
  ctx: ChainsDeps,
  chain: Chain,
  address: string,
  currency: string,
): Promise<string | undefined> {
  return ctx.chains.backends[chain]?.destinationRefusal?.(address, currency) ?? Promise.resolve(undefined);
}

/** Runs every backend's start check once (one backend may serve several chains). */
export async function checkChainIds(
  backends: Partial<Record<Chain, ChainBackend>>,
  log: StartLog,
): Promise<void> {
  for (const backend of new Set(Object.values(backends))) await backend?.checkAtStart?.(log);
}

/** Stops every backend's timers. */
export function closeChainBackends(backends: Partial<Record<Chain, ChainBackend>>): void {
  for (const backend of new Set(Object.values(backends))) backend?.close?.();
}

/** Queues the send in the caller's transaction; the chain reports back to its outcome handler. */
export function requestChainSend(ctx: ChainsDeps, tx: Tx, send: ChainSend): Promise<void> {
  return requestChainSends(ctx, tx, [send]);
}

/**
 * requestChainSend for many sends (card orders processed together): one statement per backend,
 * each send with its backend's settle job.
 */
export async function requestChainSends(ctx: ChainsDeps, tx: Tx, sends: readonly ChainSend[]): Promise<void> {
  for (const send of sends) {
    if (!REFERENCE.test(send.reference)) throw new Error(`bad chain send reference ${send.reference}`);
    if (send.amount.lte(0)) throw new Error(`chain send ${send.reference} of ${send.amount.toFixed()}`);
  }
  const byBackend = new Map<ChainBackend | undefined, ChainSend[]>();
  for (const send of sends) {
    const backend = ctx.chains.backends[send.chain];
    const same = byBackend.get(backend);
    if (same) same.push(send);
    else byBackend.set(backend, [send]);
  }
  for (const [backend, ofBackend] of byBackend) await insertBackendSends(tx, ofBackend, backend);
}

function insertBackendSends(tx: Tx, sends: readonly ChainSend[], backend: ChainBackend | undefined) {
  return insertSends(
    tx,
    sends.map((send) => ({
      reference: send.reference,
      chain: send.chain,
      address: send.address,
      currency: send.currency,
      amount: send.amount.toFixed(),
      networkFee: send.networkFee?.toFixed() ?? '0',
    })),
    backend?.settleJob(),
  );
}

/**
 * Stops the send of `reference` before it reaches the chain, in the caller's transaction (a card
 * refund before delivery): true when it is stopped now, or when no send exists; false when the
 * send may already be on its way (or was settled), and the caller must not act as if it were not.
 * A cancelled send's outcome is never delivered.
 */
export async function stopChainSend(ctx: ChainsDeps, tx: Tx, reference: string): Promise<boolean> {
  const chain = await chainOfSend(tx, reference);
  if (chain === undefined) return true;
  if (!ctx.chains.backends[chain as Chain]?.cancelsQueuedSends) return false;
  return cancelQueuedSend(tx, reference, 'cancelled');
}

/**
 * Hands outcomes to their modules, inside the backend's settling transaction: each type's
 * outcomes together when the module takes them so, else one by one. A reference type without a
 * handler is a deployment error: throwing rolls the settlement back so it is retried.
 */
export async function deliverChainOutcomes(
  ctx: ChainsDeps,
  tx: Tx,
  outcomes: readonly ChainOutcome[],
): Promise<void> {
  const handlers = ctx.chains.outcomes;
  const byType = new Map<string, ChainOutcome[]>();
  for (const outcome of outcomes) {
    const type = REFERENCE.exec(outcome.reference)?.[1];
    if (!type || !Object.hasOwn(handlers, type))
      throw new Error(`no chain outcome handler for ${outcome.reference}`);
    if (byType.has(type)) byType.get(type)!.push(outcome);
    else byType.set(type, [outcome]);
  }
  for (const [type, ofType] of byType) {
    const handler = handlers[type]!;
    if (handler.many && ofType.length > 1) {
      await handler.many(tx, ofType);
      continue;
    }
    for (const outcome of ofType) await handler.one(tx, outcome);
  }
}

/** Registers the deposit watchers of every backend that has one (once each). */
export async function registerChainWatchers(runner: JobRunner, ctx: ChainsDeps): Promise<void> {
  for (const backend of new Set(Object.values(ctx.chains.backends)))
    await backend?.registerWatcher?.(runner, ctx);
}

/** Registers the settle jobs of every backend wired (once each: one backend may serve several chains). */
export async function registerChainSettlers(runner: JobRunner, ctx: ChainsDeps): Promise<void> {
  for (const backend of new Set(Object.values(ctx.chains.backends)))
    await backend?.registerSettler(runner, ctx);
}
