/**
 * The SQL of web_sessions (migration 081): browser sessions of the console and the dashboard.
 * Rows are found by the SHA-256 of the cookie's token; the token itself is never stored.
 */
import type { Queryable } from '../../platform/db/pool.ts';

export type SessionStage = 'active' | 'second-factor' | 'enrol';

export interface SessionRow {
  id: string;
  kind: 'console' | 'dashboard';
  stage: SessionStage;
  subject: string;
  label: string;
  role: 'support' | 'reviewer' | 'admin' | null;
  apiKey: string | null;
  csrfSealed: Buffer;
  createdAt: Date;
  lastSeenAt: Date;
}

export interface NewSessionRow {
  tokenHash: string;
  kind: 'console' | 'dashboard';
  stage: SessionStage;
  subject: string;
  label: string;
  role: string | null;
  apiKey: string | null;
  csrfSealed: Buffer;
  now: Date;
}

export async function insertSession(q: Queryable, row: NewSessionRow): Promise<string> {
  const { rows } = await q.query<{ id: string }>(
    `INSERT INTO web_sessions (token_hash, kind, stage, subject, label, role, api_key, csrf_sealed, created_at, last_seen_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9) RETURNING id::text AS id`,
    [
      row.tokenHash,
      row.kind,
      row.stage,
      row.subject,
      row.label,
      row.role,
      row.apiKey,
      row.csrfSealed,
      row.now,
    ],
  );
  return rows[0]!.id;
}

export async function findOpenSession(
  q: Queryable,
  tokenHash: string,
  kind: string,
): Promise<SessionRow | undefined> {
  const { rows } = await q.query<SessionRow>(
    `SELECT id::text AS id, kind, stage, subject, label, role, api_key AS "apiKey", csrf_sealed AS "csrfSealed",
            created_at AS "createdAt", last_seen_at AS "lastSeenAt"
       FROM web_sessions WHERE token_hash = $1 AND kind = $2 AND ended_at IS NULL`,
    [tokenHash, kind],
  );
  return rows[0];
}

export async function touchSession(q: Queryable, id: string, now: Date): Promise<void> {
  await q.query('UPDATE web_sessions SET last_seen_at = $2 WHERE id = $1 AND ended_at IS NULL', [id, now]);
}

export async function endSessionRow(q: Queryable, id: string, now: Date): Promise<void> {
  await q.query('UPDATE web_sessions SET ended_at = $2 WHERE id = $1 AND ended_at IS NULL', [id, now]);
}

export async function endSessionsBySubject(
  q: Queryable,
  kind: string,
  subject: string,
  now: Date,
): Promise<number> {
  const { rowCount } = await q.query(
    'UPDATE web_sessions SET ended_at = $3 WHERE kind = $1 AND subject = $2 AND ended_at IS NULL',
    [kind, subject, now],
  );
  return rowCount ?? 0;
}
