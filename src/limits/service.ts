import { partnerIdOf } from '../identity/webhook-secret.ts';
import type { AppContext } from '../platform/context.ts';
import type { Queryable, Tx } from '../platform/db/pool.ts';
import { Money } from '../platform/money.ts';
import { approvedScopesOf } from '../users/scopes-service.ts';
import { limitErrors } from './errors.ts';
import { findOverride, type StoredLimits } from './overrides-store.ts';
import { deleteSpend, insertSpend, lockSpendKey, spentSince } from './spend-store.ts';
import { defaultLimits, type LimitTable, type LimitTier, WINDOWS, type WindowName } from './tables.ts';

/** Spec §2.4, all in USD. */
export interface LimitsView {
  dailyTotalSpent: Money;
  weeklyTotalSpent: Money;
  yearlyTotalSpent: Money;
  dailyTotal: Money;
  weeklyTotal: Money;
  yearlyTotal: Money;
  dailyRemaining: Money;
  weeklyRemaining: Money;
  yearlyRemaining: Money;
}

/** Whose limits: the partner (for overrides), the billing country and the tier. */
export interface LimitsSubject {
  partnerId: string | undefined;
  country: string;
  tier: LimitTier;
}

/** The partner's override for the tier when the operator set one, else the country's default. */
async function limitTable(q: Queryable, subject: LimitsSubject): Promise<LimitTable> {
  const override = subject.partnerId ? await findOverride(q, subject.partnerId) : undefined;
  return tableOf(override, subject);
}

function tableOf(override: StoredLimits | undefined, subject: LimitsSubject): LimitTable {
  const tier = override?.[subject.tier];
  if (tier)
    return { daily: new Money(tier.daily), weekly: new Money(tier.weekly), yearly: new Money(tier.yearly) };
  return defaultLimits(subject.country, subject.tier);
}

/** DEBIT_CARD_L2 when the user has that scope APPROVED; throws for a user the partner does not have. */
export async function tierOfUser(
  q: Queryable,
  partnerId: string,
  userId: string | undefined,
  field: string,
): Promise<LimitTier> {
  if (userId === undefined) return 'STANDARD';
  const approved = await approvedScopesOf(q, partnerId, userId);
  if (!approved) throw limitErrors.unknownUser(field);
  return approved.includes('DEBIT_CARD_L2') ? 'DEBIT_CARD_L2' : 'STANDARD';
}

/** Spent per window: the largest over the keys, since each key must stay within the limit. */
async function spentPerWindow(
  q: Queryable,
  keys: string[],
  nowMs: number,
): Promise<Record<WindowName, Money>> {
  const spent: Record<WindowName, Money> = {
    daily: new Money(0),
    weekly: new Money(0),
    yearly: new Money(0),
  };
  const perKey = await spentSince(
    q,
    keys,
    WINDOWS.map((window) => nowMs - window.ms),
  );
  for (const sums of perKey) {
    WINDOWS.forEach((window, index) => {
      const value = new Money(sums[index]!);
      if (value.gt(spent[window.name])) spent[window.name] = value;
    });
  }
  return spent;
}

function view(table: LimitTable, spent: Record<WindowName, Money>): LimitsView {
  const remaining = (window: WindowName) => Money.max(0, table[window].minus(spent[window]));
  return {
    dailyTotalSpent: spent.daily,
    weeklyTotalSpent: spent.weekly,
    yearlyTotalSpent: spent.yearly,
    dailyTotal: table.daily,
    weeklyTotal: table.weekly,
    yearlyTotal: table.yearly,
    dailyRemaining: remaining('daily'),
    weeklyRemaining: remaining('weekly'),
    yearlyRemaining: remaining('yearly'),
  };
}

/**
 * Reads for the public limits endpoint: an account's partner never changes, so it is cached for
 * good; overrides are re-read at most once a second per process (at once after this process's
 * own PUT). Orders never use these caches: they read the override in their transaction.
 */
const PARTNER_CACHE_MAX = 10_000;
const OVERRIDE_TTL_MS = 1000;
const partnerCache = new Map<string, string>();
const overrideCache = new Map<string, { limits: StoredLimits | undefined; loadedAtMs: number }>();

export async function cachedPartnerOf(ctx: AppContext, accountId: string): Promise<string | undefined> {
  const cached = partnerCache.get(accountId);
  if (cached) return cached;
  const partnerId = await partnerIdOf(ctx.db, accountId);
  if (partnerId) {
    if (partnerCache.size >= PARTNER_CACHE_MAX) partnerCache.clear();
    partnerCache.set(accountId, partnerId);
  }
  return partnerId;
}

async function cachedOverride(ctx: AppContext, partnerId: string): Promise<StoredLimits | undefined> {
  const nowMs = ctx.clock.realNow();
  const cached = overrideCache.get(partnerId);
  if (cached && nowMs - cached.loadedAtMs < OVERRIDE_TTL_MS) return cached.limits;
  const limits = await findOverride(ctx.db, partnerId);
  if (overrideCache.size >= PARTNER_CACHE_MAX) overrideCache.clear();
  overrideCache.set(partnerId, { limits, loadedAtMs: nowMs });
  return limits;
}

export function forgetCachedOverride(partnerId: string): void {
  overrideCache.delete(partnerId);
}

export async function currentLimits(
  ctx: AppContext,
  subject: LimitsSubject,
  keys: string[],
): Promise<LimitsView> {
  const override = subject.partnerId ? await cachedOverride(ctx, subject.partnerId) : undefined;
  return view(tableOf(override, subject), await spentPerWindow(ctx.db, keys, ctx.clock.nowMs()));
}

/**
 * Checks an order's USD amount against every window of every key and records the spend, in the
 * order's transaction. The keys are locked first, in sorted order, so orders sharing a key
 * (address, user or card) run this one at a time and cannot together pass a limit; the lock
 * is held until the order commits or rolls back (a rollback takes the spend with it).
 */
export async function recordSpend(
  ctx: AppContext,
  tx: Tx,
  order: { orderId: string; amountUsd: Money; subject: LimitsSubject; keys: string[] },
): Promise<void> {
  const keys = [...new Set(order.keys)].sort();
  for (const key of keys) await lockSpendKey(tx, key);
  const nowMs = ctx.clock.nowMs();
  const table = await limitTable(tx, order.subject);
  const limits = view(table, await spentPerWindow(tx, keys, nowMs));
  for (const window of WINDOWS) {
    const remaining = limits[`${window.name}Remaining`];
    if (order.amountUsd.gt(remaining)) throw limitErrors.reached(window.name, remaining.toFixed(2));
  }
  await insertSpend(tx, order.orderId, keys, order.amountUsd.toFixed(), nowMs);
}

/** A failed order's spend no longer counts. Safe to repeat. */
export async function releaseSpend(tx: Tx, orderId: string): Promise<void> {
  await deleteSpend(tx, orderId);
}
