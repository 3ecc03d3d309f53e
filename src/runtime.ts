import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { buildApp } from './app.ts';
import { type DeliveryWorker, startCallbackWorker } from './callbacks/index.ts';
import {
  checkChainIds,
  closeChainBackends,
  registerChainSettlers,
  registerChainWatchers,
} from './chains/index.ts';
import { purgeOldAttempts } from './checkout/index.ts';
import { compose, environmentOf, portsFor, type Rampart } from './compose.ts';
import type { Config } from './config.ts';
import { type CreatedMaster, ensureSandboxDemo, purgeExpiredReplays } from './identity/index.ts';
import { rekeyAddressSpend } from './limits/index.ts';
import { syncSandboxClock } from './operator/index.ts';
import { resolveSecrets } from './platform/bootstrap-secrets.ts';
import { sleep } from './platform/clock.ts';
import { migrate, readMigrations } from './platform/db/migrate.ts';
import { closeDatabase, type OpenedDatabase, openDatabase } from './platform/db/open.ts';
import {
  registerFrequentPurges,
  registerGrowthAnalyze,
  registerHousekeeping,
  registerVacuum,
} from './platform/jobs/housekeeping.ts';
import { JobRunner } from './platform/jobs/runner.ts';
import { loggerOptions } from './platform/logger.ts';
import { registerTransferJobs } from './transfers/index.ts';
import { registerUserJobs } from './users/index.ts';
import {
  orderBillingAddresses,
  registerCaptureSweep,
  registerWalletOrderJobs,
} from './wallet-orders/index.ts';
import { startWorkerThread, type WorkerThreadHost } from './worker-thread-host.ts';

export type Mode = 'serve' | 'worker';

export interface Running {
  ctx: Rampart;
  app: FastifyInstance | undefined;
  jobs: JobRunner | undefined;
  /** First start in sandbox: the generated operator token, for the banner. */
  generatedOperatorToken: string | undefined;
  /** First start in sandbox: the demo partner's credentials, printed once. */
  demoAccount: CreatedMaster | undefined;
  secretsFile: string;
  /** The operator token is read from `secretsFile` (none was configured). */
  operatorTokenInFile: boolean;
  stop(): Promise<void>;
}

/**
 * Tables whose rows are updated or deleted all the time (queues, balances, holds, order and
 * transfer states, the chain watchers' cursors, signature-replay records, hosted-checkout card
 * attempts), vacuumed every
 * minute by registerVacuum whatever the server's autovacuum does.
 */
const HOT_TABLES = [
  'jobs',
  'callback_deliveries',
  'ledger_balances',
  'ledger_holds',
  'wallet_orders',
  'sandbox_card_authorizations',
  'transfers',
  'chain_sends',
  'evm_watch_cursors',
  'signature_replays',
  'checkout_card_attempts',
];

/**
 * Tables kept on growth analyses at every size (registerGrowthAnalyze stops the others at 5,000
 * rows of statistics). The signature replays: capped, the signed reads (GET /v3/transfers/{id})
 * slow down as the table grows, the one table a read-only load grows, for a reason not yet
 * found; a table of short rows, it is cheap to analyze.
 */
const GROWTH_ANALYZED_AT_ANY_SIZE = ['signature_replays'];

/**
 * Every table the migrations create (and migrate.ts's own): housekeeping analyzes these and no
 * others, as a database may hold another application's tables. A test compares this list with a
 * freshly migrated database, so a migration that adds or renames a table updates it.
 */
export const RAMPART_TABLES = [
  'access_audit',
  'accounts',
  'api_keys',
  'callback_attempts',
  'callback_deliveries',
  'callback_subscriptions',
  'card_disputes',
  'card_fee_bookings',
  'card_limit_overrides',
  'card_payment_operations',
  'card_payments',
  'card_processor_events',
  'card_refunds',
  'card_spend',
  'card_spend_address_rekeys',
  'chain_sends',
  'checkout_branding',
  'checkout_card_attempts',
  'dashboard_sign_ins',
  'deposit_addresses',
  'evm_deposit_keys',
  'evm_deposits',
  'evm_nonces',
  'evm_send_txs',
  'evm_sends',
  'evm_sweeps',
  'evm_watch_cursors',
  'fee_schedule',
  'idempotency_keys',
  'jobs',
  'ledger_balances',
  'ledger_entries',
  'ledger_holds',
  'ledger_postings',
  'operator_api_tokens',
  'operator_audit',
  'operator_sign_in_failures',
  'operators',
  'payment_methods',
  'pricing_generation',
  'reference_prices',
  'reservation_uses',
  'reservations',
  'runtime_settings',
  'sandbox_card_authorizations',
  'sandbox_card_disputes',
  'sandbox_card_refunds',
  'schema_migrations',
  'signature_replays',
  'signature_replays_legacy',
  'transfers',
  'user_documents',
  'user_scope_events',
  'user_scopes',
  'users',
  'wallet_order_authorizations',
  'wallet_order_code_deliveries',
  'wallet_order_webhooks',
  'wallet_orders',
  'wallets',
  'web_sessions',
];

const CLOCK_SYNC_MS = 1000;

/**
 * The sandbox clock's offset lives in PostgreSQL so every process agrees: read at start, then
 * every second. Production's clock is the real one (no timer).
 */
async function startClockSync(ctx: Rampart): Promise<NodeJS.Timeout | undefined> {
  if (!ctx.sandboxClock) return undefined;
  await syncSandboxClock(ctx);
  const timer = setInterval(() => void syncSandboxClock(ctx).catch(() => undefined), CLOCK_SYNC_MS);
  timer.unref();
  return timer;
}

/**
 * Brings Rampart up: secrets, database (embedded or external), migrations, clock, HTTP app
 * and workers. `stop()` drains in reverse order: stop accepting, finish in-flight requests
 * (bounded by the shutdown timeout), stop workers, close the pool, stop the embedded server.
 */
export async function startRampart(
  config: Config,
  mode: Mode,
  opening: Promise<OpenedDatabase> = openDatabase(config),
): Promise<Running> {
  try {
    return await startOn(config, mode, await opening);
  } catch (error) {
    // A start that failed half way (secrets, migrations, a port in use) must not leave the
    // embedded PostgreSQL running behind the process.
    const opened = await opening.catch(() => undefined);
    if (opened) await closeDatabase(opened);
    throw error;
  }
}

/**
 * Where this process runs the background workers: `rampart worker` on its event loop; `serve` on
 * a thread of its own (RAMPART_WORKER_THREAD), on its event loop, or not at all (RAMPART_WORKERS).
 */
function workersPlace(config: Config, mode: Mode): 'here' | 'thread' | 'none' {
  if (mode === 'worker') return 'here';
  if (!config.workersEnabled) return 'none';
  return config.workerThread ? 'thread' : 'here';
}

/**
 * Waits for every one of `steps` to settle, then throws the first failure: a start that failed
 * half way closes what it started, and must not close something still starting.
 */
async function allOrFirstError(steps: readonly (PromiseLike<unknown> | undefined)[]): Promise<void> {
  const outcomes = await Promise.allSettled(steps);
  const failed = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failed) throw failed.reason;
}

async function startOn(config: Config, mode: Mode, opened: OpenedDatabase): Promise<Running> {
  const { db, asyncCommitDb, workerDb } = opened;
  const log = pino(loggerOptions(config.logLevel) as pino.LoggerOptions);
  const secrets = await resolveSecrets(config);
  const applied = await migrate(db);
  if (applied.length > 0) log.info({ applied }, 'migrations applied');
  // Before anything serves: past card spend must count under the current address keys.
  const rekeyed = await rekeyAddressSpend(db, orderBillingAddresses);
  if (rekeyed > 0) log.info({ rekeyed }, 'card spend moved to the current billing-address keys');
  const migrations = await readMigrations();
  const { masterKey, operatorToken, custodySeed } = secrets;
  const runtimeConfig = { ...config, masterKey, operatorToken, custodySeed };
  const ports = await portsFor(runtimeConfig, db);
  // A node of another chain stops the start here (one line); an unreachable one does not.
  try {
    await checkChainIds(ports.chains, log);
  } catch (error) {
    ports.prices.close();
    closeChainBackends(ports.chains);
    throw error;
  }
  const environment = environmentOf(config);
  const ctx = compose(runtimeConfig, { db, asyncCommitDb }, ports, environment);
  const clockSync = await startClockSync(ctx);
  const demoAccount =
    mode === 'serve' && environment.makesDemoPartner ? await ensureSandboxDemo(ctx) : undefined;

  const workers = workersPlace(config, mode);
  // serve's workers start on their thread while the app is built; /readyz answers once both are up.
  let thread: WorkerThreadHost | undefined;
  if (workers === 'thread') {
    thread = startWorkerThread(
      { ...config, databaseUrl: opened.connectionString, masterKey, operatorToken, custodySeed },
      log,
    );
  }
  let app: FastifyInstance | undefined;
  if (mode === 'serve') {
    try {
      app = await buildApp(ctx, { latestMigration: migrations.at(-1)?.version ?? '' });
      // Fastify compiles every route's schemas when it gets ready (the longest step of the main
      // thread's start): done while the worker thread starts on the other core, not after it.
      await allOrFirstError([app.ready(), thread?.ready]);
      await app.listen({ host: config.host, port: config.port });
    } catch (error) {
      clearInterval(clockSync);
      ports.prices.close();
      closeChainBackends(ports.chains);
      await Promise.all([app?.close(), thread?.stop()]);
      throw error;
    }
  }
  let jobs: JobRunner | undefined;
  let callbacks: DeliveryWorker | undefined;
  if (workers === 'here') {
    // The workers' own connections: a busy HTTP server's requests queue for the main pool, and a
    // job queued behind them for every statement would fall ever further behind.
    const workerCtx = compose(runtimeConfig, { db: workerDb, asyncCommitDb }, ports, environment);
    jobs = new JobRunner(workerDb, log, config.workerPollMs, config.jobLeaseSeconds, config.workerPoolSize);
    await registerHousekeeping(jobs, workerDb, [purgeOldAttempts]);
    await registerFrequentPurges(jobs, workerDb, [purgeExpiredReplays(config.signatureWindowMs)]);
    await registerVacuum(jobs, workerDb, HOT_TABLES, RAMPART_TABLES);
    await registerGrowthAnalyze(jobs, workerDb, RAMPART_TABLES, GROWTH_ANALYZED_AT_ANY_SIZE);
    registerUserJobs(jobs, workerCtx);
    registerWalletOrderJobs(jobs, workerCtx);
    await registerCaptureSweep(jobs, workerCtx);
    await registerChainSettlers(jobs, workerCtx);
    await registerChainWatchers(jobs, workerCtx);
    await registerTransferJobs(jobs, workerCtx);
    jobs.start();
    callbacks = startCallbackWorker(workerCtx, log);
  }

  const stop = async () => {
    clearInterval(clockSync);
    ports.prices.close();
    closeChainBackends(ports.chains);
    const drained = await Promise.race([
      Promise.all([app?.close(), jobs?.stop(), callbacks?.stop(), thread?.stop()]).then(() => true),
      sleep(config.shutdownTimeoutMs).then(() => false),
    ]);
    // Past the bound: cut the connections still open. The pool's end() waits for every client
    // checked out by a stuck request, so it is bounded too; the process exits after this anyway.
    if (!drained) app?.server.closeAllConnections();
    await closeDatabase(opened);
  };
  return {
    ctx,
    app,
    jobs,
    stop,
    demoAccount,
    generatedOperatorToken: secrets.generated ? secrets.operatorToken : undefined,
    secretsFile: secrets.file,
    operatorTokenInFile: secrets.tokenInFile,
  };
}
