import {
  type CallbackUrlRules,
  PRODUCTION_CALLBACK_URLS,
  type SubscriptionsDeps,
  sandboxCallbackUrls,
  type TransferVisibility,
} from './callbacks/index.ts';
import { type CardProcessor, connectorProcessor, noCardProcessor, sandboxProcessor } from './cards/index.ts';
import {
  CHAINS,
  type Chain,
  type ChainBackend,
  type ChainOutcomeHandler,
  KnownDepositAddresses,
  type Network,
  networkFor,
  onSweepGasOutcome,
  SWEEP_GAS,
  sandboxChain,
} from './chains/index.ts';
import type { Config } from './config.ts';
import { accountExists, type IdentityDeps } from './identity/index.ts';
import type { LedgerDeps, OwnerLookups } from './ledger/index.ts';
import { LimitReads } from './limits/index.ts';
import type { OperatorDeps } from './operator/index.ts';
import { groupedReservationInserts } from './orders/index.ts';
import { Clock } from './platform/clock.ts';
import type { AppContext } from './platform/context.ts';
import type { Db } from './platform/db/pool.ts';
import { createPriceFeed, type PriceFeed } from './pricing/index.ts';
import {
  type BankRail,
  createSettledTransfers,
  getTransfer,
  onTransferOutcome,
  recordChainDeposits,
  sandboxBank,
  type TransfersDeps,
} from './transfers/index.ts';
import {
  type BankAccountVerifier,
  bankMethodFor,
  cachedOwnerLookup,
  type DocumentStorage,
  findUserOwner,
  groupedUserSnapshots,
  type IdentityCheck,
  operatorReview,
  postgresDocumentStorage,
  sandboxBankVerifier,
  sandboxIdentityCheck,
  type UsersDeps,
  userExists,
} from './users/index.ts';
import {
  type CodeSender,
  createOrderPlacement,
  onOrderDeliveries,
  onOrderDelivery,
  sandboxCodeSender,
  smsCodeSender,
  undeliveredCodes,
  type WalletOrdersDeps,
} from './wallet-orders/index.ts';
import { type WalletsDeps, walletExists } from './wallets/index.ts';
/**
 * The composition root. Configuration is read once (config.ts); here sandbox and production are
 * told apart, once, by the implementations wired: the ports to every outside system and the few
 * rules that differ between the two environments. Every domain function is given one value that
 * satisfies its domain's deps type (each domain's `deps.ts` or port file names what it uses);
 * nothing is registered in module state, so a test builds an app with its own implementations
 * (test/helpers/app.ts startTestApp({ ports })).
 */

/** The configuration with the secrets resolved at start (platform/bootstrap-secrets.ts). */
export type RuntimeConfig = AppContext['config'];

/** Each outside system behind its port, as the environment wires it. */
export interface Ports {
  clock: Clock;
  cardProcessor: CardProcessor;
  /** One backend per chain; a chain without one refuses payouts and deposit addresses. */
  chains: Partial<Record<Chain, ChainBackend>>;
  codeSender: CodeSender;
  /** None: payment methods stay PENDING until a provider is configured, and Plaid tokens are refused. */
  bankAccounts: BankAccountVerifier | undefined;
  /** None: transfers to and from payment methods (bank payouts, ACH pulls) are refused. */
  bankTransfers: BankRail | undefined;
  identityCheck: IdentityCheck;
  prices: PriceFeed & { close(): void };
  documents: DocumentStorage;
}

/** The rules that differ between sandbox and production beyond the ports. */
export interface Environment {
  network: Network;
  exceptionIdPrefix: string;
  callbackUrls: CallbackUrlRules;
  /** First start makes a demo partner and prints its credentials. */
  makesDemoPartner: boolean;
  /** The operator may move the clock forward (POST /operator/v1/sandbox/clock). */
  operatorMovesClock: boolean;
}

export function environmentOf(config: Config): Environment {
  const sandbox = config.env === 'sandbox';
  return {
    network: networkFor(config.env),
    exceptionIdPrefix: sandbox ? 'test_' : '',
    callbackUrls: sandbox ? sandboxCallbackUrls(config.callbackAllowLoopback) : PRODUCTION_CALLBACK_URLS,
    makesDemoPartner: sandbox,
    operatorMovesClock: sandbox,
  };
}

/**
 * The ports of this configuration. Sandbox: the simulated card processor, chains, SMS codes,
 * bank and identity checks. Production: the real systems
 * configured, and for those not integrated yet an implementation that refuses or waits
 * (card orders answer 503, payouts on a chain without an RPC URL and bank transfers are refused,
 * SMS codes go through Twilio when it is configured and otherwise refuse the orders that need
 * them, bank accounts stay PENDING, identity goes to operator review). A chain with an RPC URL
 * has its real backend in both. `db` serves the price feed's settings reads.
 */
export async function portsFor(config: Config, db: Db): Promise<Ports> {
  const realChains = await evmBackends(config);
  const clock = new Clock();
  const prices = createPriceFeed(config, db, clock, config.env === 'sandbox');
  const shared = {
    clock,
    prices,
    documents: postgresDocumentStorage,
    cardProcessor: await cardProcessorFor(config),
  };
  if (config.env === 'sandbox') {
    const chain = sandboxChain(config.sandboxChainDelayMs);
    return {
      ...shared,
      chains: { ...Object.fromEntries(CHAINS.map((name) => [name, chain])), ...realChains },
      codeSender: sandboxCodeSender,
      bankAccounts: sandboxBankVerifier,
      bankTransfers: sandboxBank(config.sandboxChainDelayMs),
      identityCheck: sandboxIdentityCheck,
    };
  }
  return {
    ...shared,
    chains: realChains,
    codeSender: await productionCodeSender(config),
    bankAccounts: undefined,
    bankTransfers: undefined,
    identityCheck: operatorReview,
  };
}

/** Twilio when configured; the SDK loads only then. */
async function productionCodeSender(config: Config): Promise<CodeSender> {
  if (!config.twilio) return undeliveredCodes;
  const { twilioSmsChannel } = await import('./wallet-orders/twilio-sms.ts');
  return smsCodeSender(twilioSmsChannel(config.twilio));
}

/**
 * The card processor `RAMPART_CARD_PROCESSOR` names: the sandbox's simulated one, none (card
 * orders answer 503), or a remote processor's connector behind connectorProcessor (its SDK
 * loads only when it is configured).
 */
async function cardProcessorFor(config: Config): Promise<CardProcessor> {
  const settings = config.cardProcessor;
  switch (settings.kind) {
    case 'sandbox':
      return sandboxProcessor;
    case 'none':
      return noCardProcessor;
    case 'stripe': {
      const { stripeConnector } = await import('./cards/stripe/connector.ts');
      const { secretKey, webhookSecret, apiUrl } = settings;
      const timeoutMs = config.cardProcessorTimeoutMs;
      return connectorProcessor(stripeConnector({ secretKey, webhookSecret, apiUrl, timeoutMs }));
    }
  }
}

/**
 * A real backend for every EVM chain with an RPC URL, in sandbox and production alike, all on
 * the keys of one custody seed (resolved at start: configured, or sandbox's sealed one). The EVM
 * modules (viem: a third of a second of start-up) load only when a chain is configured.
 */
async function evmBackends(config: Config): Promise<Partial<Record<Chain, ChainBackend>>> {
  const configured = Object.values(config.evmChains);
  if (configured.length === 0) return {};
  if (!config.custodySeed) throw new Error('RAMPART_CUSTODY_SEED is not resolved: chains need custody keys');
  const [{ evmChain }, { custodyKeys }] = await Promise.all([
    import('./chains/evm/backend.ts'),
    import('./chains/evm/custody-keys.ts'),
  ]);
  const keys = custodyKeys(config.custodySeed);
  return Object.fromEntries(
    configured.map((settings) => [settings.chain, evmChain(settings, keys, config.evmSends)]),
  );
}

/** The pools one set of services runs on: the API's, or the workers' own. */
export interface Databases {
  db: Db;
  asyncCommitDb: Db;
}

/** What every domain function may be given: the union of the domains' deps. */
export interface Rampart
  extends WalletOrdersDeps,
    TransfersDeps,
    UsersDeps,
    LedgerDeps,
    IdentityDeps,
    SubscriptionsDeps,
    OperatorDeps,
    WalletsDeps {}

/**
 * Wires the services of one set of pools from the ports: the base context, the lookups one
 * module answers for another (owners for the ledger, a user's owner for masquerading, a
 * transfer's visibility for callbacks, chain outcomes for the modules that asked for the sends)
 * and the grouped statements of these pools.
 */
export function compose(config: RuntimeConfig, databases: Databases, ports: Ports, environment: Environment) {
  const { db, asyncCommitDb } = databases;
  const owners: OwnerLookups = { account: accountExists, user: userExists, wallet: walletExists };
  const ctx: Rampart = {
    config,
    db,
    asyncCommitDb,
    clock: ports.clock,
    sandboxClock: environment.operatorMovesClock ? ports.clock : undefined,
    exceptionIdPrefix: environment.exceptionIdPrefix,
    callbackUrls: environment.callbackUrls,
    cardProcessor: ports.cardProcessor,
    codeSender: ports.codeSender,
    bankAccounts: ports.bankAccounts,
    bankTransfers: {
      rail: ports.bankTransfers,
      methods: (q, partnerId, id) => bankMethodFor(ctx, q, partnerId, id),
    },
    identityCheck: ports.identityCheck,
    documents: ports.documents,
    prices: ports.prices,
    chains: {
      network: environment.network,
      backends: ports.chains,
      knownAddresses: new KnownDepositAddresses(),
      outcomes: chainOutcomeHandlers(() => ctx),
      deposits: (tx, deposits) => recordChainDeposits(ctx, tx, deposits),
    },
    owners,
    userOwners: cachedOwnerLookup(findUserOwner),
    transferVisible: transferVisibility(db),
    limitReads: new LimitReads(db, ports.clock),
    userSnapshots: groupedUserSnapshots(db),
    reservationInserts: groupedReservationInserts(db),
    settledTransfers: createSettledTransfers(db, () => ctx),
    orderPlacement: createOrderPlacement(db, () => ctx),
  };
  return ctx;
}

/** Callbacks may subscribe to a transfer the scope can read (the transfers module answers). */
function transferVisibility(db: Db): TransferVisibility {
  return (scope, id) => getTransfer(db, scope, id).then(() => true);
}

/**
 * Who handles the outcome of a chain send, by its reference's type. The handlers run in a
 * settling transaction long after composition, so they reach the services through `services`.
 */
function chainOutcomeHandlers(services: () => Rampart): Record<string, ChainOutcomeHandler> {
  return {
    transfer: { one: (tx, outcome) => onTransferOutcome(services(), tx, outcome) },
    order: {
      one: (tx, outcome) => onOrderDelivery(services(), tx, outcome),
      many: (tx, outcomes) => onOrderDeliveries(services(), tx, outcomes),
    },
    [SWEEP_GAS]: { one: onSweepGasOutcome },
  };
}
