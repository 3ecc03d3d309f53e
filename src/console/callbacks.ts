import {
  attemptsOfDeliveries,
  consoleDelivery,
  type DeliveryRow,
  type DeliveryStatus,
  deliveriesOfTrigger,
  pageConsoleDeliveries,
} from '../callbacks/index.ts';
import type { Queryable } from '../platform/db/pool.ts';
import { isId } from '../platform/ids.ts';
import { PAGE_SIZE } from './paging.ts';

/**
 * Callback deliveries for the console (docs/contract.md, decision 150): a timeline's callbacks
 * with their answers, and the deliveries list, FAILED first and then the newest.
 */

export interface AttemptView {
  startedAt: Date;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
}

export interface CallbackView {
  id: string;
  partnerId: string;
  trigger: string;
  url: string;
  status: DeliveryStatus;
  attempts: number;
  maxAttempts: number;
  lastError: string | null;
  lastStatusCode: number | null;
  createdAt: Date;
  body: string;
  attemptLog: AttemptView[];
}

function callbackView(row: DeliveryRow, attempts: AttemptView[]): CallbackView {
  return {
    id: row.id,
    partnerId: row.partner_id,
    trigger: row.trigger,
    url: row.url,
    status: row.status,
    attempts: row.attempts,
    maxAttempts: row.max_attempts,
    lastError: row.last_error,
    lastStatusCode: row.last_status_code,
    createdAt: row.created_at,
    body: row.body,
    attemptLog: attempts,
  };
}

async function withAttempts(q: Queryable, rows: DeliveryRow[]): Promise<CallbackView[]> {
  const attempts = await attemptsOfDeliveries(
    q,
    rows.map((row) => row.id),
  );
  return rows.map((row) =>
    callbackView(
      row,
      attempts
        .filter((a) => a.delivery_id === row.id)
        .map((a) => ({
          startedAt: a.started_at,
          statusCode: a.status_code,
          latencyMs: a.latency_ms,
          error: a.error,
        })),
    ),
  );
}

/** The callbacks sent about one order or transfer (`order:WO_…`), each with its attempts. */
export async function callbacksOf(q: Queryable, trigger: string, limit: number) {
  return withAttempts(q, await deliveriesOfTrigger(q, trigger, limit));
}

export async function callbackDetail(q: Queryable, id: string) {
  const row = isId(id, 'CB') ? await consoleDelivery(q, id) : undefined;
  return row ? (await withAttempts(q, [row]))[0] : undefined;
}

export interface CallbackFilter {
  partnerId: string | undefined;
  status: DeliveryStatus | undefined;
}

/**
 * One page of the list. Unfiltered by status, FAILED deliveries come first (cursor `F.CB_…`), then
 * every other (`N.CB_…`), each run newest first; with a status, one run (`S.CB_…`).
 */
export async function callbackPage(q: Queryable, filter: CallbackFilter, cursor: string | undefined) {
  const [phase, after] = parseCursor(cursor);
  const read = (status: DeliveryStatus | 'notFailed' | undefined, from: string | undefined, limit: number) =>
    pageConsoleDeliveries(q, { partnerId: filter.partnerId, status, after: from, limit });
  if (filter.status !== undefined || phase === 'S') {
    const rows = await read(filter.status, phase === 'S' ? after : undefined, PAGE_SIZE + 1);
    return finish(q, rows, 'S');
  }
  if (phase === 'N') return finish(q, await read('notFailed', after, PAGE_SIZE + 1), 'N');
  const failed = await read('FAILED', after, PAGE_SIZE + 1);
  if (failed.length > PAGE_SIZE) return finish(q, failed, 'F');
  const others = await read('notFailed', undefined, PAGE_SIZE - failed.length + 1);
  // A page that is exactly the rest of the failed run starts the other run on the next page.
  if (failed.length === PAGE_SIZE)
    return { rows: await withAttempts(q, failed), next: others.length > 0 ? 'N.start' : undefined };
  return finish(q, [...failed, ...others], 'N');
}

async function finish(q: Queryable, rows: DeliveryRow[], phase: 'F' | 'N' | 'S') {
  const shown = rows.slice(0, PAGE_SIZE);
  const last = shown.at(-1);
  const next = rows.length > PAGE_SIZE && last ? `${phase}.${last.id}` : undefined;
  return { rows: await withAttempts(q, shown), next };
}

function parseCursor(cursor: string | undefined): ['F' | 'N' | 'S', string | undefined] {
  const match = /^([FNS])\.(CB_[0-9A-Z]{11}|start)$/.exec(cursor ?? '');
  if (!match) return ['F', undefined];
  return [match[1] as 'F' | 'N' | 'S', match[2] === 'start' ? undefined : match[2]];
}
