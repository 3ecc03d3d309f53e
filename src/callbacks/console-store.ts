import type { Queryable } from '../platform/db/pool.ts';
import { type DeliveryRow, type DeliveryStatus, deliveryColumns } from './deliveries-store.ts';

/**
 * The operator console's reads of callback deliveries (docs/contract.md, decision 150): the
 * deliveries of one order or transfer (callback_deliveries_trigger) with their attempts, and the
 * deliveries list in two keyset runs, FAILED first and then the others, each newest first
 * (callback_deliveries_by_status, _partner, _newest). A cursor is the last delivery's id.
 */

export interface ConsoleAttempt {
  delivery_id: string;
  started_at: Date;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
}

export async function deliveriesOfTrigger(q: Queryable, trigger: string, limit: number) {
  const { rows } = await q.query<DeliveryRow>(
    `SELECT ${deliveryColumns} FROM callback_deliveries WHERE trigger = $1 ORDER BY created_at, id LIMIT $2`,
    [trigger, limit],
  );
  return rows;
}

/** The attempts of these deliveries, in order (callback_attempts_delivery). */
export async function attemptsOfDeliveries(q: Queryable, deliveryIds: readonly string[]) {
  if (deliveryIds.length === 0) return [];
  const { rows } = await q.query<ConsoleAttempt>(
    `SELECT delivery_id, started_at, status_code, latency_ms, error FROM callback_attempts
     WHERE delivery_id = ANY($1::text[]) ORDER BY delivery_id, id`,
    [deliveryIds],
  );
  return rows;
}

export interface DeliveryPageQuery {
  /** The deliveries of one partner (its account id), or of all. */
  partnerId: string | undefined;
  /** Only this status; `notFailed` is the second run of the failed-first list. */
  status: DeliveryStatus | 'notFailed' | undefined;
  after: string | undefined;
  limit: number;
}

export async function pageConsoleDeliveries(q: Queryable, query: DeliveryPageQuery) {
  const params: unknown[] = [query.limit];
  const where: string[] = [];
  if (query.partnerId !== undefined) {
    params.push(query.partnerId);
    where.push(`partner_id = $${params.length}`);
  }
  if (query.status === 'notFailed') where.push(`status <> 'FAILED'`);
  else if (query.status !== undefined) {
    params.push(query.status);
    where.push(`status = $${params.length}`);
  }
  if (query.after !== undefined) {
    params.push(query.after);
    where.push(
      `(created_at, id) < (SELECT created_at, id FROM callback_deliveries WHERE id = $${params.length})`,
    );
  }
  const { rows } = await q.query<DeliveryRow>(
    `SELECT ${deliveryColumns} FROM callback_deliveries ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
     ORDER BY created_at DESC, id DESC LIMIT $1`,
    params,
  );
  return rows;
}

export async function consoleDelivery(q: Queryable, id: string): Promise<DeliveryRow | undefined> {
  const { rows } = await q.query<DeliveryRow>(
    `SELECT ${deliveryColumns} FROM callback_deliveries WHERE id = $1`,
    [id],
  );
  return rows[0];
}
