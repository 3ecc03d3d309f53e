import { isIP } from 'node:net';
import path from 'node:path';
import type { Chain } from './chains/addresses.ts';
import { parseCustodySeed } from './chains/evm/custody-seed.ts';
import {
  type EvmChainSettings,
  type EvmSendSettings,
  parseEvmChains,
  parseEvmSendSettings,
} from './chains/evm/settings.ts';
import { ConfigError } from './config-error.ts';
import { parseTwilioSettings, type TwilioSettings } from './wallet-orders/twilio-settings.ts';

export { ConfigError };

/**
 * Every setting Rampart reads from the environment, validated once at start.
 * A bad value stops the process with one line naming the variable (see ConfigError).
 * Keep this list and the README's env table in step.
 */
export interface Config {
  env: 'sandbox' | 'production';
  host: string;
  port: number;
  /** Public base URLs clients call us by, without trailing slash; signatures are checked against each. */
  publicUrls: string[];
  /** 32-byte AES-256-GCM key; undefined until the sandbox bootstrap fills it in. */
  masterKey: Buffer | undefined;
  operatorToken: string | undefined;
  databaseUrl: string | undefined;
  dataDir: string;
  embeddedPgPort: number;
  dbPoolSize: number;
  dbStatementTimeoutMs: number;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  bodyLimitBytes: number;
  shutdownTimeoutMs: number;
  workersEnabled: boolean;
  /**
   * `serve` runs its workers on a thread of their own (worker-thread-host.ts), off the event loop
   * that answers requests; false runs them on that event loop, as `rampart worker` does.
   */
  workerThread: boolean;
  workerPollMs: number;
  /** Connections of the workers' own pool, and how many jobs a process runs at once. */
  workerPoolSize: number;
  /**
   * How long a worker holds a claimed job before another process may take it over (its holder
   * is presumed dead). Callback deliveries use the shorter of this and their own 15 s lease.
   */
  jobLeaseSeconds: number;
  /** Signed requests' timestamps may differ from real time by at most this much. */
  signatureWindowMs: number;
  /** A console or dashboard session ends after this long without a request (src/web/sessions/). */
  webSessionIdleMinutes: number;
  /** Fastify trustProxy: false, or addresses/CIDRs of proxies whose X-Forwarded-For is believed. */
  trustProxy: false | string[];
  redisUrl: string | undefined;
  rateLimitPerKeyPerMinute: number;
  rateLimitPerIpPerMinute: number;
  /** Where prices come from: the operator's reference table, or a polled HTTP feed. */
  rateSource: 'reference' | 'feed';
  /** Set when rateSource is 'feed'. */
  rateFeed: { url: string; intervalMs: number; timeoutMs: number; staleAfterMs: number } | undefined;
  /** Base of the hosted checkout links answered by POST /v3/orders/reserve (docs/contract.md, decision 15). */
  checkoutUrl: string;
  /**
   * Block explorer transaction pages by network (the part of a destination SRN before the colon),
   * each with `{hash}` where the transaction hash goes: the checkout receipt links to it.
   */
  explorerTxUrls: Record<string, string>;
  /** Sandbox only: a user scope whose data is complete is approved at once (docs/contract.md, decision 8). */
  sandboxAutoApprove: boolean;
  /** How long a card authorisation may take before the order is refused as transient. */
  cardProcessorTimeoutMs: number;
  /**
   * Which card processor serves card orders (docs/contract.md, "Card processors"): the sandbox's
   * simulated one, Stripe, or none (card orders answer 503).
   */
  cardProcessor: CardProcessorSettings;
  /** When an order a remote processor approved asks the buyer for an SMS code (decision 105). */
  cardSmsCodes: 'never' | 'first-card-order' | 'always';
  /**
   * The hosted checkout's caps on card attempts the processor refused (card testing): per
   * reservation (then it is spent), and per card and per client IP over a rolling hour.
   */
  checkoutFailedAttempts: { perReservation: number; perCardPerHour: number; perIpPerHour: number };
  /** Automatic retries of a failed callback, with exponential backoff (docs/contract.md, Subscriptions and callbacks: one attempt by default). */
  callbackRetries: number;
  /**
   * Sandbox only: callbacks may go to this machine's loopback (a partner's receiver on its own
   * machine). A sandbox hosted for others turns it off; production never allows it.
   */
  callbackAllowLoopback: boolean;
  /** Sandbox: how long the simulated chain takes to settle an outgoing send. */
  sandboxChainDelayMs: number;
  /** The EVM chains with real custody (an RPC URL each); the others are simulated (sandbox) or refused. */
  evmChains: Partial<Record<Chain, EvmChainSettings>>;
  /** How sends behave on every EVM chain. */
  evmSends: EvmSendSettings;
  /**
   * The BIP-39 mnemonic every custody key derives from; undefined until the sandbox bootstrap
   * fills it in (production requires it when a chain is configured). Never logged.
   */
  custodySeed: string | undefined;
  /** Production's SMS provider of the orders' codes; undefined: none (sandbox never sends any). */
  twilio: TwilioSettings | undefined;
}

type Env = Record<string, string | undefined>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

function intSetting(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max)
    throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `must be one of ${allowed.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

function booleanSetting(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(name, `must be true or false, got "${raw}"`);
}

function publicUrls(env: Env, port: number): string[] {
  const raw = env.RAMPART_PUBLIC_URL;
  if (raw === undefined || raw.trim() === '') return [`http://localhost:${port}`];
  return raw.split(',').map((entry) => {
    const trimmed = entry.trim();
    let url: URL;
    try {
      url = new URL(trimmed);
    } catch {
      throw new ConfigError('RAMPART_PUBLIC_URL', `"${trimmed}" is not a URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new ConfigError('RAMPART_PUBLIC_URL', `"${trimmed}" must be http or https`);
    }
    if (url.search || url.hash)
      throw new ConfigError('RAMPART_PUBLIC_URL', `"${trimmed}" must not carry a query`);
    // Signatures are computed over base + path, so a trailing slash would double up.
    return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  });
}

/** Accepts the key as 64 hex characters or 44 base64 characters: both are exactly 32 bytes. */
export function parseMasterKey(raw: string, variable = 'RAMPART_MASTER_KEY'): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (key.length !== 32 || (!/^[0-9a-fA-F]{64}$/.test(raw) && key.toString('base64') !== raw)) {
    throw new ConfigError(variable, 'must be 32 bytes written as 64 hex or 44 base64 characters');
  }
  return key;
}

function operatorToken(env: Env): string | undefined {
  const raw = env.RAMPART_OPERATOR_TOKEN;
  if (raw === undefined || raw === '') return undefined;
  if (raw.length < 32 || raw.length > 256 || !/^[\x21-\x7e]+$/.test(raw)) {
    throw new ConfigError('RAMPART_OPERATOR_TOKEN', 'must be 32 to 256 printable characters without spaces');
  }
  return raw;
}

function trustProxy(env: Env): false | string[] {
  const raw = env.RAMPART_TRUST_PROXY;
  if (raw === undefined || raw.trim() === '') return false;
  const entries = raw.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    const [address = '', bits] = entry.split('/');
    if (isIP(address) === 0 || (bits !== undefined && !/^\d{1,3}$/.test(bits))) {
      throw new ConfigError('RAMPART_TRUST_PROXY', `"${entry}" is not an IP address or CIDR range`);
    }
  }
  return entries;
}

function redisUrl(env: Env): string | undefined {
  const raw = env.REDIS_URL;
  if (raw === undefined || raw === '') return undefined;
  if (!/^rediss?:\/\//.test(raw)) throw new ConfigError('REDIS_URL', 'must start with redis:// or rediss://');
  return raw;
}

function databaseUrl(env: Env): string | undefined {
  const raw = env.DATABASE_URL;
  if (raw === undefined || raw === '') return undefined;
  if (!/^postgres(ql)?:\/\//.test(raw))
    throw new ConfigError('DATABASE_URL', 'must start with postgres:// or postgresql://');
  return raw;
}

function httpUrl(env: Env, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new ConfigError(name, `"${raw}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ConfigError(name, 'must be http or https');
  return url.toString();
}

function rateFeed(env: Env, source: 'reference' | 'feed'): Config['rateFeed'] {
  const url = httpUrl(env, 'RAMPART_RATE_FEED_URL');
  if (source !== 'feed') return undefined;
  if (!url) throw new ConfigError('RAMPART_RATE_FEED_URL', 'is required when RAMPART_RATE_SOURCE=feed');
  const intervalMs = intSetting(env, 'RAMPART_RATE_FEED_INTERVAL_MS', 10_000, 100, 3_600_000);
  const timeoutMs = intSetting(env, 'RAMPART_RATE_FEED_TIMEOUT_MS', 3000, 50, 60_000);
  const staleAfterMs = intSetting(env, 'RAMPART_RATE_STALE_AFTER_MS', 60_000, 1000, 86_400_000);
  if (staleAfterMs <= intervalMs) {
    throw new ConfigError('RAMPART_RATE_STALE_AFTER_MS', 'must be longer than RAMPART_RATE_FEED_INTERVAL_MS');
  }
  return { url, intervalMs, timeoutMs, staleAfterMs };
}

function callbackAllowLoopback(env: Env, runEnv: Config['env']): boolean {
  const allowed = booleanSetting(env, 'RAMPART_CALLBACK_ALLOW_LOOPBACK', runEnv === 'sandbox');
  if (allowed && runEnv === 'production')
    throw new ConfigError('RAMPART_CALLBACK_ALLOW_LOOPBACK', 'cannot be true when RAMPART_ENV=production');
  return allowed;
}

/** `ethereum=https://etherscan.io/tx/{hash},polygon=https://polygonscan.com/tx/{hash}`. */
function explorerTxUrls(env: Env): Record<string, string> {
  const name = 'RAMPART_EXPLORER_TX_URLS';
  const raw = env[name]?.trim() ?? '';
  const out: Record<string, string> = {};
  if (raw === '') return out;
  for (const entry of raw.split(',')) {
    const eq = entry.indexOf('=');
    const network = entry.slice(0, eq).trim().toLowerCase();
    const template = entry.slice(eq + 1).trim();
    if (eq <= 0 || !/^[a-z0-9-]{1,32}$/.test(network))
      throw new ConfigError(name, `"${entry}" is not network=https://…/{hash}`);
    if (!template.startsWith('https://') || !template.includes('{hash}'))
      throw new ConfigError(name, `the URL of ${network} must be https and contain {hash}`);
    try {
      new URL(template.replace('{hash}', '0'));
    } catch {
      throw new ConfigError(name, `the URL of ${network} is not a URL`);
    }
    out[network] = template;
  }
  return out;
}

function checkoutUrl(env: Env, urls: string[]): string {
  const raw = httpUrl(env, 'RAMPART_CHECKOUT_URL');
  if (raw === undefined) return urls[0]!;
  const url = new URL(raw);
  if (url.search || url.hash) throw new ConfigError('RAMPART_CHECKOUT_URL', 'must not carry a query');
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

export type CardProcessorSettings =
  | { kind: 'sandbox' }
  | { kind: 'none' }
  | { kind: 'stripe'; secretKey: string; webhookSecret: string; apiUrl: string };

const STRIPE_API_URL = 'https://api.stripe.com/';

/** RAMPART_CARD_PROCESSOR and, for Stripe, its keys (both required) and API URL. */
function cardProcessor(env: Env, runEnv: Config['env']): CardProcessorSettings {
  const fallback = runEnv === 'sandbox' ? 'sandbox' : 'none';
  const kind = oneOf(env, 'RAMPART_CARD_PROCESSOR', ['sandbox', 'stripe', 'none'] as const, fallback);
  if (kind === 'sandbox' && runEnv === 'production') {
    throw new ConfigError('RAMPART_CARD_PROCESSOR', 'cannot be sandbox when RAMPART_ENV=production');
  }
  if (kind !== 'stripe') return { kind };
  const secretKey = env.RAMPART_STRIPE_SECRET_KEY;
  if (!secretKey)
    throw new ConfigError('RAMPART_STRIPE_SECRET_KEY', 'is required when RAMPART_CARD_PROCESSOR=stripe');
  const webhookSecret = env.RAMPART_STRIPE_WEBHOOK_SECRET;
  if (!webhookSecret) {
    throw new ConfigError('RAMPART_STRIPE_WEBHOOK_SECRET', 'is required when RAMPART_CARD_PROCESSOR=stripe');
  }
  const apiUrl = httpUrl(env, 'RAMPART_STRIPE_API_URL') ?? STRIPE_API_URL;
  return { kind, secretKey, webhookSecret, apiUrl };
}

export function loadConfig(env: Env = process.env): Config {
  const runEnv = oneOf(env, 'RAMPART_ENV', ['sandbox', 'production'] as const, 'sandbox');
  const port = intSetting(env, 'PORT', 3000, 0, 65535);
  const masterKey = env.RAMPART_MASTER_KEY ? parseMasterKey(env.RAMPART_MASTER_KEY) : undefined;
  const token = operatorToken(env);
  if (runEnv === 'production' && !masterKey) {
    throw new ConfigError('RAMPART_MASTER_KEY', 'is required when RAMPART_ENV=production');
  }
  if (runEnv === 'production' && !token) {
    throw new ConfigError('RAMPART_OPERATOR_TOKEN', 'is required when RAMPART_ENV=production');
  }
  const evmChains = parseEvmChains(env);
  const custodySeed = env.RAMPART_CUSTODY_SEED ? parseCustodySeed(env.RAMPART_CUSTODY_SEED) : undefined;
  if (runEnv === 'production' && !custodySeed && Object.keys(evmChains).length > 0) {
    throw new ConfigError(
      'RAMPART_CUSTODY_SEED',
      'is required when RAMPART_ENV=production and a chain is configured',
    );
  }
  return {
    env: runEnv,
    host: env.HOST || '0.0.0.0',
    port,
    publicUrls: publicUrls(env, port),
    masterKey,
    operatorToken: token,
    databaseUrl: databaseUrl(env),
    dataDir: path.resolve(env.RAMPART_DATA_DIR || 'data'),
    embeddedPgPort: intSetting(env, 'RAMPART_EMBEDDED_PG_PORT', 54329, 1024, 65535),
    dbPoolSize: intSetting(env, 'RAMPART_DB_POOL_SIZE', 10, 1, 500),
    dbStatementTimeoutMs: intSetting(env, 'RAMPART_DB_STATEMENT_TIMEOUT_MS', 5000, 100, 600_000),
    logLevel: oneOf(env, 'LOG_LEVEL', LOG_LEVELS, 'info'),
    bodyLimitBytes: intSetting(env, 'RAMPART_BODY_LIMIT_BYTES', 1_048_576, 1024, 64 * 1_048_576),
    shutdownTimeoutMs: intSetting(env, 'RAMPART_SHUTDOWN_TIMEOUT_MS', 10_000, 100, 600_000),
    workersEnabled: booleanSetting(env, 'RAMPART_WORKERS', true),
    workerThread: booleanSetting(env, 'RAMPART_WORKER_THREAD', true),
    workerPollMs: intSetting(env, 'RAMPART_WORKER_POLL_MS', 1000, 10, 60_000),
    workerPoolSize: intSetting(env, 'RAMPART_WORKER_POOL_SIZE', 4, 1, 100),
    jobLeaseSeconds: intSetting(env, 'RAMPART_JOB_LEASE_SECONDS', 60, 3, 3600),
    signatureWindowMs: intSetting(env, 'RAMPART_SIGNATURE_WINDOW_MS', 300_000, 1000, 3_600_000),
    webSessionIdleMinutes: intSetting(env, 'RAMPART_WEB_SESSION_IDLE_MINUTES', 30, 1, 720),
    trustProxy: trustProxy(env),
    redisUrl: redisUrl(env),
    rateLimitPerKeyPerMinute: intSetting(env, 'RAMPART_RATE_LIMIT_PER_KEY', 1200, 1, 10_000_000),
    rateLimitPerIpPerMinute: intSetting(env, 'RAMPART_RATE_LIMIT_PER_IP', 2400, 1, 10_000_000),
    rateSource: oneOf(env, 'RAMPART_RATE_SOURCE', ['reference', 'feed'] as const, 'reference'),
    rateFeed: rateFeed(env, oneOf(env, 'RAMPART_RATE_SOURCE', ['reference', 'feed'] as const, 'reference')),
    checkoutUrl: checkoutUrl(env, publicUrls(env, port)),
    explorerTxUrls: explorerTxUrls(env),
    // Production always waits for the operator's review, whatever this says.
    sandboxAutoApprove: runEnv === 'sandbox' && booleanSetting(env, 'RAMPART_SANDBOX_AUTO_APPROVE', true),
    cardProcessorTimeoutMs: intSetting(env, 'RAMPART_CARD_PROCESSOR_TIMEOUT_MS', 10_000, 100, 120_000),
    cardProcessor: cardProcessor(env, runEnv),
    cardSmsCodes: oneOf(
      env,
      'RAMPART_CARD_SMS_CODES',
      ['never', 'first-card-order', 'always'] as const,
      'first-card-order',
    ),
    checkoutFailedAttempts: {
      perReservation: intSetting(env, 'RAMPART_CHECKOUT_MAX_FAILED_ATTEMPTS_PER_RESERVATION', 3, 1, 100),
      perCardPerHour: intSetting(env, 'RAMPART_CHECKOUT_MAX_FAILED_ATTEMPTS_PER_CARD_HOUR', 5, 1, 1000),
      perIpPerHour: intSetting(env, 'RAMPART_CHECKOUT_MAX_FAILED_ATTEMPTS_PER_IP_HOUR', 20, 1, 1_000_000),
    },
    callbackRetries: intSetting(env, 'RAMPART_CALLBACK_RETRIES', 0, 0, 10),
    callbackAllowLoopback: callbackAllowLoopback(env, runEnv),
    sandboxChainDelayMs: intSetting(env, 'RAMPART_SANDBOX_CHAIN_DELAY_MS', 2000, 0, 600_000),
    evmChains,
    evmSends: parseEvmSendSettings(env),
    custodySeed,
    twilio: parseTwilioSettings(env, runEnv === 'production'),
  };
}
