import { createHash } from 'node:crypto';
import pg from 'pg';
import { withArrayLiterals } from './array-literal.ts';

/**
 * Distinct statements one connection keeps prepared. Our statements are fixed texts, a few hundred
 * in all; a text built from data (it should not be) stops being prepared past this bound instead of
 * growing the server's memory without end.
 */
const MAX_PREPARED_PER_CONNECTION = 1000;

/**
 * Names remembered process-wide (hashing a text is the cost they save). Larger than one
 * connection's bound: the process holds every connection's statements, and a text past this is
 * only hashed again, never refused.
 */
const MAX_REMEMBERED_NAMES = 4 * MAX_PREPARED_PER_CONNECTION;
const statementNames = new Map<string, string>();

/** A stable name for a statement text: the same on every connection, so it is parsed once per connection. */
function statementName(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `r${createHash('sha1').update(text).digest('base64url').slice(0, 20)}`;
    if (statementNames.size < MAX_REMEMBERED_NAMES) statementNames.set(text, name);
  }
  return name;
}

/**
 * A pg client that runs every parameterised statement as a named prepared statement. Without it
 * PostgreSQL parses and plans each statement on every call, which for statements like the
 * authentication CTE costs more than running them. Prepared, PostgreSQL parses
 * each statement once per connection and, with the pool's plan_cache_mode (pool.ts), plans it
 * once too.
 * Statements without parameters (BEGIN, COMMIT, DDL) keep the simple protocol. Array
 * parameters are written as array literals here (array-literal.ts), not by pg.
 */
export class PreparingClient extends pg.Client {
  private readonly prepared = new Set<string>();

  // biome-ignore lint/suspicious/noExplicitAny: mirrors pg.Client.query's overloads
  override query(config: any, values?: any, callback?: any): any {
    if (typeof config === 'string' && Array.isArray(values) && values.length > 0) {
      const name = statementName(config);
      const written = withArrayLiterals(values);
      if (this.prepared.has(name) || this.prepared.size < MAX_PREPARED_PER_CONNECTION) {
        this.prepared.add(name);
        return super.query({ name, text: config, values: written }, callback);
      }
      return super.query(config, written, callback);
    }
    return super.query(config, values, callback);
  }
}
