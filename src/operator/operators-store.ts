/**
 * The SQL of named operators (migrations 082, 083): `operators`, `operator_sign_in_failures`
 * and `operator_api_tokens`. No rules here: operators.ts and sign-in.ts own them.
 */
import type { Queryable } from '../platform/db/pool.ts';
import type { OperatorRole } from '../web/sessions/index.ts';

export interface OperatorRow {
  id: string;
  email: string;
  name: string;
  role: OperatorRole;
  passwordHash: string;
  mustChangePassword: boolean;
  totpSealed: Buffer | null;
  totpEnabled: boolean;
  totpLastStep: string;
  disabled: boolean;
  createdAt: Date;
}

const COLUMNS = `id, email, name, role, password_hash AS "passwordHash", must_change_password AS "mustChangePassword",
  totp_sealed AS "totpSealed", totp_enabled AS "totpEnabled", totp_last_step::text AS "totpLastStep",
  disabled, created_at AS "createdAt"`;

export interface NewOperatorRow {
  id: string;
  email: string;
  name: string;
  role: OperatorRole;
  passwordHash: string;
  mustChangePassword: boolean;
  now: Date;
}

/** Inserts unless the e-mail is taken; `onlyIfNone` inserts only into an empty table (the bootstrap). */
export async function insertOperator(
  q: Queryable,
  row: NewOperatorRow,
  onlyIfNone = false,
): Promise<boolean> {
  const guard = onlyIfNone ? 'WHERE NOT EXISTS (SELECT 1 FROM operators)' : '';
  const { rowCount } = await q.query(
    `INSERT INTO operators (id, email, name, role, password_hash, must_change_password, created_at, updated_at)
     SELECT $1, $2, $3, $4, $5, $6, $7, $7 ${guard}
     ON CONFLICT (email) DO NOTHING`,
    [row.id, row.email, row.name, row.role, row.passwordHash, row.mustChangePassword, row.now],
  );
  return rowCount === 1;
}

/** Serialises bootstraps: two at once would otherwise both see an empty table. */
export async function lockOperatorsTable(q: Queryable): Promise<void> {
  await q.query('LOCK TABLE operators IN SHARE ROW EXCLUSIVE MODE');
}

export async function anyOperatorExists(q: Queryable): Promise<boolean> {
  const { rows } = await q.query('SELECT 1 FROM operators LIMIT 1');
  return rows.length > 0;
}

export async function otherEnabledAdminExists(q: Queryable, except: string): Promise<boolean> {
  const { rows } = await q.query(
    "SELECT 1 FROM operators WHERE role = 'admin' AND NOT disabled AND id <> $1 LIMIT 1",
    [except],
  );
  return rows.length > 0;
}

export async function findOperatorByEmail(q: Queryable, email: string): Promise<OperatorRow | undefined> {
  const { rows } = await q.query<OperatorRow>(`SELECT ${COLUMNS} FROM operators WHERE email = $1`, [email]);
  return rows[0];
}

export async function findOperator(q: Queryable, id: string): Promise<OperatorRow | undefined> {
  const { rows } = await q.query<OperatorRow>(`SELECT ${COLUMNS} FROM operators WHERE id = $1`, [id]);
  return rows[0];
}

/** One page of operators in id order, after the cursor. */
export async function listOperators(q: Queryable, after: string, limit: number): Promise<OperatorRow[]> {
  const { rows } = await q.query<OperatorRow>(
    `SELECT ${COLUMNS} FROM operators WHERE id > $1 ORDER BY id LIMIT $2`,
    [after, limit],
  );
  return rows;
}

export async function setOperatorRole(
  q: Queryable,
  id: string,
  role: OperatorRole,
  now: Date,
): Promise<boolean> {
  return setOperatorColumn(q, id, 'role', role, now);
}

export async function setOperatorDisabled(
  q: Queryable,
  id: string,
  disabled: boolean,
  now: Date,
): Promise<boolean> {
  return setOperatorColumn(q, id, 'disabled', disabled, now);
}

/** The column is one of a fixed few named in code, never text from a request. */
async function setOperatorColumn(
  q: Queryable,
  id: string,
  column: 'role' | 'disabled',
  value: OperatorRole | boolean,
  now: Date,
): Promise<boolean> {
  const { rowCount } = await q.query(`UPDATE operators SET ${column} = $2, updated_at = $3 WHERE id = $1`, [
    id,
    value,
    now,
  ]);
  return rowCount === 1;
}

export async function setOperatorPassword(
  q: Queryable,
  id: string,
  passwordHash: string,
  now: Date,
): Promise<void> {
  await q.query(
    'UPDATE operators SET password_hash = $2, must_change_password = false, updated_at = $3 WHERE id = $1',
    [id, passwordHash, now],
  );
}

/** A new seed waiting for its first code; clears an enabled one (a reset). */
export async function setPendingTotp(
  q: Queryable,
  id: string,
  sealed: Buffer | null,
  now: Date,
): Promise<void> {
  await q.query(
    'UPDATE operators SET totp_sealed = $2, totp_enabled = false, totp_last_step = 0, updated_at = $3 WHERE id = $1',
    [id, sealed, now],
  );
}

/**
 * Records `step` as used, only if it is later than every step used before: of two sign-ins
 * racing with one code, one wins. `enable` also turns the seed on (the enrolment's code).
 */
export async function useTotpStep(q: Queryable, id: string, step: number, enable: boolean): Promise<boolean> {
  const { rowCount } = await q.query(
    `UPDATE operators SET totp_last_step = $2, totp_enabled = totp_enabled OR $3
      WHERE id = $1 AND totp_last_step < $2 AND totp_sealed IS NOT NULL AND NOT disabled`,
    [id, step, enable],
  );
  return rowCount === 1;
}

export interface FailureState {
  failures: number;
  lockedUntil: Date | null;
}

export async function readSignInFailures(q: Queryable, keys: string[]): Promise<FailureState[]> {
  const { rows } = await q.query<FailureState>(
    'SELECT failures, locked_until AS "lockedUntil" FROM operator_sign_in_failures WHERE key = ANY($1)',
    [keys],
  );
  return rows;
}

/**
 * Counts one more failure for the key (the count restarts after `windowMs` of quiet) and locks
 * the key once it reaches `threshold`: 1 minute, doubling with each further failure, at most
 * `maxLockMs`.
 */
export async function recordSignInFailure(
  q: Queryable,
  key: string,
  now: Date,
  rule: { threshold: number; windowMs: number; maxLockMs: number },
): Promise<void> {
  await q.query(
    `INSERT INTO operator_sign_in_failures AS f (key, failures, locked_until, last_at)
     VALUES ($1, 1, NULL, $2)
     ON CONFLICT (key) DO UPDATE SET
       failures = CASE WHEN f.last_at < $2::timestamptz - make_interval(secs => $3::double precision / 1000) THEN 1 ELSE f.failures + 1 END,
       last_at = $2`,
    [key, now, rule.windowMs],
  );
  await q.query(
    `UPDATE operator_sign_in_failures
        SET locked_until = $2::timestamptz + make_interval(secs => LEAST($4::double precision, 60000 * power(2, failures - $3)) / 1000)
      WHERE key = $1 AND failures >= $3`,
    [key, now, rule.threshold, rule.maxLockMs],
  );
}

export async function clearSignInFailures(q: Queryable, key: string): Promise<void> {
  await q.query('DELETE FROM operator_sign_in_failures WHERE key = $1', [key]);
}

export interface ApiTokenRow {
  id: string;
  label: string;
  createdAt: Date;
  revokedAt: Date | null;
}

export async function insertApiToken(
  q: Queryable,
  row: { operatorId: string; tokenHash: string; label: string; now: Date },
): Promise<string> {
  const { rows } = await q.query<{ id: string }>(
    `INSERT INTO operator_api_tokens (operator_id, token_hash, label, created_at) VALUES ($1, $2, $3, $4)
     RETURNING id::text AS id`,
    [row.operatorId, row.tokenHash, row.label, row.now],
  );
  return rows[0]!.id;
}

export async function listApiTokens(q: Queryable, operatorId: string): Promise<ApiTokenRow[]> {
  const { rows } = await q.query<ApiTokenRow>(
    `SELECT id::text AS id, label, created_at AS "createdAt", revoked_at AS "revokedAt"
       FROM operator_api_tokens WHERE operator_id = $1 ORDER BY id DESC LIMIT 50`,
    [operatorId],
  );
  return rows;
}

export async function revokeApiToken(
  q: Queryable,
  operatorId: string,
  id: string,
  now: Date,
): Promise<boolean> {
  const { rowCount } = await q.query(
    'UPDATE operator_api_tokens SET revoked_at = $3 WHERE operator_id = $1 AND id = $2::bigint AND revoked_at IS NULL',
    [operatorId, id, now],
  );
  return rowCount === 1;
}

/** The enabled operator a live token belongs to. */
export async function findTokenOperator(
  q: Queryable,
  tokenHash: string,
): Promise<{ id: string; email: string; role: OperatorRole } | undefined> {
  const { rows } = await q.query<{ id: string; email: string; role: OperatorRole }>(
    `SELECT o.id, o.email, o.role FROM operator_api_tokens t JOIN operators o ON o.id = t.operator_id
      WHERE t.token_hash = $1 AND t.revoked_at IS NULL AND NOT o.disabled`,
    [tokenHash],
  );
  return rows[0];
}
