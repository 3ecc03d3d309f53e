import type { Tx } from './pool.ts';

/**
 * The SQL of table maintenance (VACUUM, ANALYZE, the statistics views they are chosen by);
 * when it runs lives in platform/jobs/housekeeping.ts. Every function takes a connection of its
 * own (not a pool): VACUUM cannot run in a transaction, and the settings below are SET on the
 * connection around the statement. Owns no tables and no database functions.
 */

/**
 * Maintenance runs at the pace of PostgreSQL's own autovacuum: a sleep of
 * autovacuum_vacuum_cost_delay's 2 ms each time the pages it touched cost vacuum_cost_limit
 * (200). A VACUUM or ANALYZE someone types runs unthrottled: after heavy writes the minute's
 * ANALYZE would take a whole core for seconds, and on a small machine every request in flight
 * would wait behind it.
 */
const MAINTENANCE_COST_DELAY_MS = 2;

/**
 * Throttled, a VACUUM or ANALYZE of a large table takes longer than the pool's statement timeout
 * (5 s by default, sized for requests) would allow; cancelled there, it would start over every
 * minute and never finish. Its own bound instead (also the hourly purge's, a pass over the jobs).
 */
const MAINTENANCE_TIMEOUT_MS = 10 * 60 * 1000;

/**
 * `statement` under the maintenance settings above. VACUUM cannot run in a transaction, so they
 * are SET on the connection around it and RESET after (the caller closes a connection whose
 * RESET may not have run).
 */
export async function underMaintenanceSettings(
  client: Tx,
  statement: string,
  params: unknown[] = [],
): Promise<void> {
  await client.query(
    `SET vacuum_cost_delay = ${MAINTENANCE_COST_DELAY_MS}; SET statement_timeout = ${MAINTENANCE_TIMEOUT_MS}`,
  );
  await client.query(statement, params);
  await client.query('RESET vacuum_cost_delay; RESET statement_timeout');
}

/**
 * Runs `command` (VACUUM or ANALYZE) on the public tables whose pg_stat_user_tables row meets
 * `condition`, in one statement, under the maintenance settings; nothing when none does. A table
 * another maintenance statement has in hand is skipped, not waited for (SKIP_LOCKED; the next run
 * takes it): the job runner goes on while a long VACUUM runs, and a growth ANALYZE every two
 * seconds waiting behind it would take one more of its lanes each time.
 */
async function maintainTables(
  client: Tx,
  command: 'VACUUM' | 'ANALYZE',
  condition: string,
  params: unknown[] = [],
): Promise<void> {
  const { rows } = await client.query<{ name: string }>(
    `SELECT quote_ident(relname) AS name FROM pg_stat_user_tables WHERE schemaname = 'public' AND ${condition}`,
    params,
  );
  if (rows.length === 0) return;
  await underMaintenanceSettings(
    client,
    `${command} (SKIP_LOCKED) ${rows.map((row) => row.name).join(', ')}`,
  );
}

/**
 * VACUUM of the `tables` holding more dead row versions than 50 plus a twentieth of their live
 * rows (autovacuum's rule, twice as eager).
 */
export function vacuumDeadTables(client: Tx, tables: readonly string[]): Promise<void> {
  return maintainTables(
    client,
    'VACUUM',
    'relname = ANY($1::text[]) AND n_dead_tup > 50 + 0.05 * GREATEST(n_live_tup, 0)',
    [tables],
  );
}

/** ANALYZE of the `tables` that changed by a tenth since their statistics were taken (autovacuum's rule). */
export function analyzeChangedTables(client: Tx, tables: readonly string[]): Promise<void> {
  return maintainTables(
    client,
    'ANALYZE',
    'relname = ANY($1::text[]) AND n_mod_since_analyze > 50 + 0.1 * GREATEST(n_live_tup, 0)',
    [tables],
  );
}

/**
 * ANALYZE of the `tables` whose live rows more than doubled (plus 50) since their statistics,
 * while those statistics cover fewer than `belowRows` rows (`uncapped` ones at any size).
 */
export function analyzeGrownTables(
  client: Tx,
  tables: readonly string[],
  belowRows: number,
  uncapped: readonly string[],
): Promise<void> {
  return maintainTables(
    client,
    'ANALYZE',
    `relname = ANY($1::text[]) AND EXISTS (
       SELECT 1 FROM pg_class AS c WHERE c.oid = relid
         AND n_live_tup > 50 + 2 * GREATEST(c.reltuples, 0)
         AND (c.reltuples < $2 OR relname = ANY($3::text[])))`,
    [tables, belowRows, uncapped],
  );
}
