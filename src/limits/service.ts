import { partnerIdOf } from '../identity/index.ts';
import type { Clock } from '../platform/clock.ts';
import type { AppContext } from '../platform/context.ts';
import { batched } from '../platform/db/grouped-transactions.ts';
import { GroupedCalls } from '../platform/db/grouped-writer.ts';
import type { Db, Queryable, Tx } from '../platform/db/pool.ts';
import type { ApiError } from '../platform/errors.ts';
import { Money } from '../platform/money.ts';
import { approvedScopesOf } from '../users/index.ts';
import { limitErrors } from './errors.ts';
import { findOverride, type StoredLimits } from './overrides-store.ts';
import {
  deleteSpends,
  largestSpentOf,
  lockSpendKeysReadingOverrides,
  recordSpendsWithin,
  type SpentRead,
} from './spend-store.ts';
import { defaultLimits, type LimitTable, type LimitTier, WINDOWS, type WindowName } from './tables.ts';

/** The limits of docs/contract.md (Card limits), all in USD. */
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

/** The instants the windows start at, for a read at `nowMs`. */
function windowStarts(nowMs: number): number[] {
  return WINDOWS.map((window) => nowMs - window.ms);
}

/** Sums in WINDOWS order, as the spend store answers them. */
function spentOf(sums: readonly string[]): Record<WindowName, Money> {
  const spent = {} as Record<WindowName, Money>;
  WINDOWS.forEach((window, index) => {
    spent[window.name] = new Money(sums[index]!);
  });
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
 * Reads for the public limits endpoint, one set per app (made by the composition root): an
 * account's partner never changes, so it is cached for good; overrides are re-read at most once
 * a second per process (at once after this process's own PUT); concurrent spend reads share one
 * statement per group (GroupedCalls). Orders never use these: they read the override in their
 * transaction.
 */
export class LimitReads {
  private readonly partners = new Map<string, string>();
  private readonly overrides = new Map<string, { limits: StoredLimits | undefined; loadedAtMs: number }>();
  readonly spent: GroupedCalls<SpentRead, Awaited<ReturnType<typeof largestSpentOf>>[number]>;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {
    this.spent = new GroupedCalls((reads: SpentRead[]) => largestSpentOf(db, reads));
  }

  async partnerOf(accountId: string): Promise<string | undefined> {
    const cached = this.partners.get(accountId);
    if (cached) return cached;
    const partnerId = await partnerIdOf(this.db, accountId);
    if (partnerId) {
      if (this.partners.size >= PARTNER_CACHE_MAX) this.partners.clear();
      this.partners.set(accountId, partnerId);
    }
    return partnerId;
  }

  async override(partnerId: string): Promise<StoredLimits | undefined> {
    const nowMs = this.clock.realNow();
    const cached = this.overrides.get(partnerId);
    if (cached && nowMs - cached.loadedAtMs < OVERRIDE_TTL_MS) return cached.limits;
    const limits = await findOverride(this.db, partnerId);
    if (this.overrides.size >= PARTNER_CACHE_MAX) this.overrides.clear();
    this.overrides.set(partnerId, { limits, loadedAtMs: nowMs });
    return limits;
  }

  forgetOverride(partnerId: string): void {
    this.overrides.delete(partnerId);
  }
}

const PARTNER_CACHE_MAX = 10_000;
const OVERRIDE_TTL_MS = 1000;

/** What the limits functions are given besides the base context. */
export interface LimitsDeps extends AppContext {
  limitReads: LimitReads;
}

export async function currentLimits(
  ctx: LimitsDeps,
  subject: LimitsSubject,
  keys: string[],
): Promise<LimitsView> {
  const override = subject.partnerId ? await ctx.limitReads.override(subject.partnerId) : undefined;
  const sums = await ctx.limitReads.spent.call({ keys, startsMs: windowStarts(ctx.clock.nowMs()) });
  return view(tableOf(override, subject), spentOf(sums));
}

/**
 * Checks an order's USD amount against every window of every key and records the spend, in the
 * order's transaction: recordSpendsTogether for one order, throwing what refused it. The keys are
 * locked first, so orders sharing a key (address, user or card) run this one at a time and cannot
 * together pass a limit; the lock is held until the order commits or rolls back (a rollback takes
 * the spend with it).
 */
export async function recordSpend(ctx: AppContext, tx: Tx, order: OrderSpend): Promise<void> {
  const [refusal] = await recordSpendsTogether(ctx, tx, [{ ...order, keys: [...new Set(order.keys)] }]);
  if (refusal) throw refusal;
}

/** The error of the first window the amount does not fit, or undefined when it fits them all. */
function limitRefusal(table: LimitTable, spent: Record<WindowName, Money>, amountUsd: Money) {
  const limits = view(table, spent);
  for (const window of WINDOWS) {
    const remaining = limits[`${window.name}Remaining`];
    if (amountUsd.gt(remaining)) return limitErrors.reached(window.name, remaining.toFixed(2));
  }
  return undefined;
}

export interface OrderSpend {
  orderId: string;
  amountUsd: Money;
  subject: LimitsSubject;
  keys: string[];
}

/**
 * Checks orders' USD amounts against every window of their keys and records the spend of those
 * that fit, in the caller's transaction (one order's, or a group's, no two of whose orders share a
 * key): all their keys locked in one statement (which also reads the partners' overrides), then
 * every order checked and, when it fits, its spend recorded, in one more. Answers each order's
 * limit error (undefined when its spend was recorded). An order that does not go ahead rolls its
 * spend back with its transaction.
 */
async function recordSpendsTogether(
  ctx: AppContext,
  q: Queryable,
  orders: readonly OrderSpend[],
): Promise<(ApiError | Error | undefined)[]> {
  const keys = orders.flatMap((order) => order.keys);
  if (new Set(keys).size !== keys.length)
    throw new Error('orders placed together must not share a spend key');
  const partners = [...new Set(orders.flatMap((order) => order.subject.partnerId ?? []))];
  const overrides = await lockSpendKeysReadingOverrides(q, keys, partners);
  // Read after the locks: a group that waited measures its windows from when it got them.
  const atMs = ctx.clock.nowMs();
  const tables = orders.map((order) =>
    tableOf(order.subject.partnerId ? overrides.get(order.subject.partnerId) : undefined, order.subject),
  );
  const results = await recordSpendsWithin(
    q,
    orders.map((order, index) => ({
      orderId: order.orderId,
      keys: order.keys,
      amountUsd: order.amountUsd.toFixed(),
      limitsUsd: WINDOWS.map((window) => tables[index]![window.name].toFixed()),
    })),
    windowStarts(atMs),
    atMs,
  );
  return results.map(({ recorded, spent }, index) => {
    if (recorded) return undefined;
    const { orderId, amountUsd } = orders[index]!;
    return (
      limitRefusal(tables[index]!, spentOf(spent), amountUsd) ??
      new Error(`spend of order ${orderId} refused though it fits every window`)
    );
  });
}

/** A card order's spend, as a step of the order's write path. */
export interface SpendInContext {
  ctx: AppContext;
  spend: OrderSpend;
}

/** recordSpendsTogether as a step of a card order's write path (one context per group). */
export const recordSpends = batched('limits.recordSpends', (q, spends: SpendInContext[]) =>
  recordSpendsTogether(
    spends[0]!.ctx,
    q,
    spends.map(({ spend }) => spend),
  ),
);

/** A failed order's spend no longer counts. Safe to repeat. */
export async function releaseSpend(tx: Tx, orderId: string): Promise<void> {
  await deleteSpends(tx, [orderId]);
}
