import type { Queryable } from '../platform/db/pool.ts';

/** The SQL of the dashboard's own table: dashboard_sign_ins (migration 092). */

export interface SignInRecord {
  apiKey: string;
  accountId: string | null;
  address: string;
  outcome: 'allowed' | 'refused' | 'throttled';
}

export async function insertSignIn(q: Queryable, record: SignInRecord): Promise<void> {
  await q.query(
    'INSERT INTO dashboard_sign_ins (api_key, account_id, address, outcome) VALUES ($1, $2, $3, $4)',
    [record.apiKey, record.accountId, record.address, record.outcome],
  );
}

/** Refused sign-ins within the last `windowSeconds`, from this address and for this key. */
export async function recentRefusals(
  q: Queryable,
  given: { apiKey: string; address: string; windowSeconds: number },
): Promise<{ byAddress: number; byKey: number }> {
  const { rows } = await q.query<{ by_address: number; by_key: number }>(
    `SELECT
       (SELECT count(*)::int FROM dashboard_sign_ins WHERE outcome = 'refused' AND address = $1
          AND at > now() - make_interval(secs => $3)) AS by_address,
       (SELECT count(*)::int FROM dashboard_sign_ins WHERE outcome = 'refused' AND api_key = $2
          AND at > now() - make_interval(secs => $3)) AS by_key`,
    [given.address, given.apiKey, given.windowSeconds],
  );
  return { byAddress: rows[0]!.by_address, byKey: rows[0]!.by_key };
}

/** An account's sign-ins, newest first (its own record of who came in). */
export async function latestSignIns(q: Queryable, accountId: string, limit: number) {
  const { rows } = await q.query<{ at: Date; api_key: string; address: string; outcome: string }>(
    `SELECT at, api_key, address, outcome FROM dashboard_sign_ins WHERE account_id = $1
     ORDER BY at DESC, id DESC LIMIT $2`,
    [accountId, limit],
  );
  return rows;
}
