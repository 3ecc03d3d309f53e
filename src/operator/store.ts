import type { Queryable } from '../platform/db/pool.ts';

export interface AuditEntry {
  actor: string;
  /** The named operator (OP_…) behind the call, when there is one. */
  operatorId?: string | undefined;
  action: string;
  target?: string | undefined;
  outcome: 'ok' | 'denied' | 'rejected';
  status: number;
  remoteIp?: string | undefined;
  detail?: Record<string, unknown>;
}

export async function insertAudit(q: Queryable, entry: AuditEntry): Promise<void> {
  await q.query(
    `INSERT INTO operator_audit (actor, action, target, outcome, status, remote_ip, detail, operator_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      entry.actor,
      entry.action,
      entry.target ?? null,
      entry.outcome,
      entry.status,
      entry.remoteIp ?? null,
      JSON.stringify(entry.detail ?? {}),
      entry.operatorId ?? null,
    ],
  );
}

const CLOCK_SETTING = 'sandbox_clock_offset_ms';

export async function readClockOffsetMs(q: Queryable): Promise<number> {
  const { rows } = await q.query<{ value: number }>('SELECT value FROM runtime_settings WHERE name = $1', [
    CLOCK_SETTING,
  ]);
  return rows[0]?.value ?? 0;
}

/** Adds to the stored offset atomically, so two operators advancing at once both count. */
export async function addClockOffsetMs(q: Queryable, deltaMs: number): Promise<number> {
  const { rows } = await q.query<{ value: number }>(
    `INSERT INTO runtime_settings (name, value) VALUES ($1, to_jsonb($2::bigint))
     ON CONFLICT (name) DO UPDATE SET value = to_jsonb(runtime_settings.value::bigint + $2::bigint), updated_at = now()
     RETURNING value`,
    [CLOCK_SETTING, deltaMs],
  );
  return Number(rows[0]?.value ?? 0);
}
