import { auditOperatorChange, type OperatorAct } from '../operator/index.ts';
import { withTransaction } from '../platform/db/pool.ts';
import { invalidValue } from '../platform/errors.ts';
import { parseAmount } from '../platform/money.ts';
import { deleteOverride, findOverride, type StoredLimits, saveOverride } from './overrides-store.ts';
import type { OverrideBody } from './schemas.ts';
import type { LimitsDeps } from './service.ts';

const TIERS = ['STANDARD', 'DEBIT_CARD_L2'] as const;

function overrideView(accountId: string, limits: StoredLimits | undefined) {
  const tier = (name: (typeof TIERS)[number]) => {
    const table = limits?.[name];
    if (!table) return null;
    return {
      daily: parseAmount(table.daily, 'daily'),
      weekly: parseAmount(table.weekly, 'weekly'),
      yearly: parseAmount(table.yearly, 'yearly'),
    };
  };
  return { accountId, STANDARD: tier('STANDARD'), DEBIT_CARD_L2: tier('DEBIT_CARD_L2') };
}

/** Non-negative USD with cents at most; daily ≤ weekly ≤ yearly, or the windows contradict each other. */
function checkTable(name: string, table: { daily: unknown; weekly: unknown; yearly: unknown }) {
  const values = (['daily', 'weekly', 'yearly'] as const).map((window) => {
    const field = `${name}.${window}`;
    const amount = parseAmount(table[window], field);
    if (amount.lt(0) || amount.decimalPlaces() > 2 || amount.gt(1e12)) {
      throw invalidValue(field, `${field} must be a USD amount from 0 with at most 2 decimals.`);
    }
    return amount;
  });
  if (values[0]!.gt(values[1]!) || values[1]!.gt(values[2]!)) {
    throw invalidValue(name, `${name}: daily must not exceed weekly, nor weekly yearly.`);
  }
  return { daily: values[0]!.toFixed(), weekly: values[1]!.toFixed(), yearly: values[2]!.toFixed() };
}

async function partnerAccount(ctx: LimitsDeps, accountId: string): Promise<string> {
  const partnerId = await ctx.limitReads.partnerOf(accountId);
  if (partnerId !== accountId) {
    throw invalidValue('accountId', 'accountId must be a partner (master) account.');
  }
  return partnerId;
}

/**
 * PUT /operator/v1/accounts/{accountId}/card-limits: the partner's own tables replace the
 * defaults for every country; a tier left out keeps the defaults, `{}` removes the override.
 * Audited in the same transaction.
 */
export async function setLimitOverride(
  ctx: LimitsDeps,
  act: OperatorAct,
  accountId: string,
  body: OverrideBody,
) {
  const partnerId = await partnerAccount(ctx, accountId);
  const limits: StoredLimits = {};
  for (const tier of TIERS) {
    const table = body[tier];
    if (table) limits[tier] = checkTable(tier, table);
  }
  await withTransaction(ctx.db, async (tx) => {
    if (Object.keys(limits).length === 0) await deleteOverride(tx, partnerId);
    else await saveOverride(tx, partnerId, limits, ctx.clock.nowMs());
    await auditOperatorChange(tx, act, `account:${partnerId}`, { cardLimits: limits });
  });
  ctx.limitReads.forgetOverride(partnerId);
  return overrideView(partnerId, Object.keys(limits).length > 0 ? limits : undefined);
}

export async function getLimitOverride(ctx: LimitsDeps, accountId: string) {
  const partnerId = await partnerAccount(ctx, accountId);
  return overrideView(partnerId, await findOverride(ctx.db, partnerId));
}
