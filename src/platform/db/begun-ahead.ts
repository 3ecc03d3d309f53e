import { type Db, finishTransaction, type Tx, withTransaction } from './pool.ts';

/**
 * A begun transaction left unused this long is rolled back and its connection returned: it holds
 * nothing, but it shows as "idle in transaction" and keeps a pooled connection out of the pool.
 */
export const BEGUN_AHEAD_IDLE_MS = 1000;

interface Begun {
  client: Promise<Tx | undefined>;
  begunAtMs: number;
}

/**
 * Transactions begun before they are needed, for a path whose speed is its latency: the groups
 * of GroupedTransactions (card orders placed together), where every round trip of a group's
 * transaction is time the group's members wait, and each is costly on a busy machine. The next
 * group's BEGIN is sent while the current one runs, so a group starts with its first real
 * statement.
 *
 * A begun transaction holds nothing until its first statement: under READ COMMITTED, BEGIN
 * takes no snapshot (each statement takes its own), no transaction id and no lock. What runs in
 * it sees exactly what it would see in a transaction begun at that moment.
 *
 * Up to `count` are kept ready (as many as groups may run at once). Any that goes unused for
 * BEGUN_AHEAD_IDLE_MS is rolled back; `close` rolls back the rest, so the pool can end.
 */
export class TransactionsBegunAhead {
  private ready: Begun[] = [];
  private closed = false;
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Db,
    private readonly count: number,
  ) {}

  /** withTransaction on a transaction begun ahead when there is one; then the next is begun. */
  async run<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    const begun = this.ready.shift();
    this.beginUpTo();
    const client = begun && (await begun.client);
    if (client === undefined) return withTransaction(this.db, fn);
    return finishTransaction(client, fn);
  }

  /** Rolls back the transactions waiting and begins no more. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.idleTimer);
    const waiting = this.ready;
    this.ready = [];
    await Promise.all(waiting.map(rollBack));
  }

  private beginUpTo(): void {
    if (this.closed) return;
    while (this.ready.length < this.count) this.ready.push({ client: begin(this.db), begunAtMs: Date.now() });
    this.scheduleIdleCheck();
  }

  /** Re-arms the one idle timer (made on first use; refresh() allocates nothing per group). */
  private scheduleIdleCheck(): void {
    if (this.idleTimer) {
      this.idleTimer.refresh();
      return;
    }
    this.idleTimer = setTimeout(() => this.dropIdle(), BEGUN_AHEAD_IDLE_MS);
    this.idleTimer.unref();
  }

  /** Unused since the last run: nothing is coming, so give the connections back. */
  private dropIdle(): void {
    const cutoff = Date.now() - BEGUN_AHEAD_IDLE_MS;
    const idle = this.ready.filter((begun) => begun.begunAtMs <= cutoff);
    this.ready = this.ready.filter((begun) => begun.begunAtMs > cutoff);
    for (const begun of idle) void rollBack(begun);
    if (this.ready.length > 0) this.scheduleIdleCheck();
  }
}

/** A pooled connection with BEGIN done, or undefined if that failed (the caller begins its own). */
async function begin(db: Db): Promise<Tx | undefined> {
  let client: Tx | undefined;
  try {
    client = await db.connect();
    await client.query('BEGIN');
    return client;
  } catch (error) {
    client?.release(error instanceof Error ? error : true);
    return undefined;
  }
}

async function rollBack(begun: Begun): Promise<void> {
  const client = await begun.client;
  if (client === undefined) return;
  try {
    await client.query('ROLLBACK');
    client.release();
  } catch (error) {
    client.release(error instanceof Error ? error : true);
  }
}
