import type { Config } from '../config.ts';
import type { Clock } from './clock.ts';
import type { Db } from './db/pool.ts';

/** What every domain module is given: settings, the database and the clock. Nothing global. */
export interface AppContext {
  config: Config & { masterKey: Buffer; operatorToken: string };
  db: Db;
  clock: Clock;
}
