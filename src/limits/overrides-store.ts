import type { Queryable } from '../platform/db/pool.ts';

export type StoredLimits = Partial<
  Record<'STANDARD' | 'DEBIT_CARD_L2', { daily: string; weekly: string; yearly: string }>
>;

export async function findOverride(q: Queryable, partnerId: string): Promise<StoredLimits | undefined> {
  const { rows } = await q.query<{ limits: StoredLimits }>(
    'SELECT limits FROM card_limit_overrides WHERE partner_id = $1',
    [partnerId],
  );
  return rows[0]?.limits;
}

export async function saveOverride(q: Queryable, partnerId: string, limits: StoredLimits, nowMs: number) {
  await q.query(
    `INSERT INTO card_limit_overrides (partner_id, limits, updated_at) VALUES ($1, $2, to_timestamp($3 / 1000.0))
     ON CONFLICT (partner_id) DO UPDATE SET limits = EXCLUDED.limits, updated_at = EXCLUDED.updated_at`,
    [partnerId, JSON.stringify(limits), nowMs],
  );
}

export async function deleteOverride(q: Queryable, partnerId: string): Promise<void> {
  await q.query('DELETE FROM card_limit_overrides WHERE partner_id = $1', [partnerId]);
}
