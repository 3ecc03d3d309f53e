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

/** What the console's audit log may be narrowed to; every field is optional. */
export interface AuditFilter {
  /** The readable actor exactly (`operator-token`, `anonymous`), or a named operator's OP_ id. */
  actor?: string | undefined;
  /** A prefix of the action (`PUT /operator/v1/` finds every change to the operator API). */
  action?: string | undefined;
  outcome?: 'ok' | 'denied' | 'rejected' | undefined;
  target?: string | undefined;
  fromMs?: number | undefined;
  toMs?: number | undefined;
}

export interface AuditRow {
  id: string;
  at: Date;
  /** `at` as PostgreSQL prints it, to the microsecond: the keyset cursor (a Date keeps milliseconds). */
  at_key: string;
  actor: string;
  action: string;
  target: string | null;
  outcome: string;
  status: number;
  remote_ip: string | null;
  detail: Record<string, unknown>;
}

const OPERATOR_ID = /^OP_[0-9A-Z]{1,40}$/;

/** Escapes LIKE's wildcards so a prefix typed by an operator matches itself only. */
function likePrefix(text: string): string {
  return `${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

/**
 * A page of the audit log, newest first, after the cursor `[at_key, id]` of the last row shown.
 * The statement's text follows the filter's shape (one condition per field given) and never its
 * values, so each shape gets a plan that uses its index (migration 088).
 */
export async function pageAudit(
  q: Queryable,
  filter: AuditFilter,
  after: readonly [string, string] | undefined,
  limit: number,
): Promise<AuditRow[]> {
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (condition: (param: string) => string, value: unknown) => {
    params.push(value);
    where.push(condition(`$${params.length}`));
  };
  if (filter.actor !== undefined) {
    // A named operator's rows carry its id apart (migration 084): the readable actor adds the e-mail.
    const column = OPERATOR_ID.test(filter.actor) ? 'operator_id' : 'actor';
    add((p) => `${column} = ${p}`, filter.actor);
  }
  if (filter.action !== undefined) add((p) => `action LIKE ${p}`, likePrefix(filter.action));
  if (filter.outcome !== undefined) add((p) => `outcome = ${p}`, filter.outcome);
  if (filter.target !== undefined) add((p) => `target = ${p}`, filter.target);
  if (filter.fromMs !== undefined) add((p) => `at >= to_timestamp(${p}::bigint / 1000.0)`, filter.fromMs);
  if (filter.toMs !== undefined) add((p) => `at < to_timestamp(${p}::bigint / 1000.0)`, filter.toMs);
  if (after !== undefined) {
    params.push(after[0], after[1]);
    where.push(`(at, id) < ($${params.length - 1}::timestamptz, $${params.length}::bigint)`);
  }
  params.push(limit);
  const { rows } = await q.query<AuditRow>(
    `SELECT id::text AS id, at, at::text AS at_key, actor, action, target, outcome, status, remote_ip, detail
     FROM operator_audit ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
     ORDER BY at DESC, id DESC LIMIT $${params.length}`,
    params,
  );
  return rows;
}
