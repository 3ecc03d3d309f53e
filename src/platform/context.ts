import type { Config } from '../config.ts';
import type { Clock } from './clock.ts';
import type { Db } from './db/pool.ts';

/**
 * What every domain function is given: settings, the database and the clock. Each domain's deps
 * type extends it with the ports and services that domain uses; the composition root
 * (src/compose.ts) builds one value that satisfies them all. Nothing global.
 */
export interface AppContext {
  config: Config & { masterKey: Buffer; operatorToken: string };
  db: Db;
  /**
   * The same database through connections whose commits return before the WAL flush. Used for
   * high-rate security records whose loss in a database crash is harmless or covered: signature
   * replay records (signatures timestamped before the database's last start are refused anyway)
   * and masquerade access audit rows of reads. Never for money or state changes.
   */
  asyncCommitDb: Db;
  clock: Clock;
  /** Put before every exception id: `test_` in sandbox, as Wyre's, nothing in production. */
  exceptionIdPrefix: string;
}
