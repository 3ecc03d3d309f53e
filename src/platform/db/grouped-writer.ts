import { refusedByDatabase } from './errors.ts';
import { isolateFailures, type Outcome, type WorkForSeveral } from './failure-isolation.ts';

/**
 * Runs a statement that many concurrent requests each need, once per group of them: a request's
 * `call` waits for the statement that carries its input and gets its own answer from it. Inputs
 * that arrive while a group is running form the next group (group commit); an idle batcher runs
 * on the next turn of the event loop, adding no latency worth measuring. A round trip to
 * PostgreSQL costs more of both processes' CPU than most of our statements' work, so N requests' rows in one statement cost far less than N statements.
 *
 * One request's input must not fail the others': when PostgreSQL refuses a group's statement
 * (nothing of it was done), each input of the group is run again as a group of its own, and only
 * the one at fault gets the error (isolateFailures). When the outcome is unknown (the connection
 * was lost), every input of the group gets the error, as a lone input would.
 */
export class GroupedCalls<Input, Output> {
  private pending: Pending<Input, Output>[] = [];
  private scheduled = false;
  private running = 0;
  /** Keys of the inputs in running groups (options.keysOf). */
  private readonly busyKeys = new Set<string>();
  private readonly maxGroup: number;
  private readonly inFlight: number;
  private readonly keysOf: ((input: Input) => readonly string[]) | undefined;
  private readonly groupWork: WorkForSeveral<Input, Output>;

  /**
   * `runGroup` answers one output per input, in the inputs' order. When PostgreSQL refuses it,
   * it is called again for each input alone, so it must leave nothing done when it throws such a
   * refusal (one statement, or one transaction). Options:
   * - `maxGroup` (200): a group holds at most that many inputs (more wait for the next), which
   *   bounds a statement's size;
   * - `inFlight` (1): how many groups may run at once. For one statement, more groups in flight
   *   gain nothing (the database is the bottleneck); a group that is a transaction of several
   *   statements leaves both processes idle between them, which a second group fills;
   * - `keysOf`: what an input touches. An input sharing a key with one in the group being formed,
   *   or in a running group, waits for a later group, in arrival order: no two inputs that share
   *   a key are ever in one group or in groups running at the same time.
   */
  constructor(
    runGroup: (inputs: Input[]) => Promise<Output[]>,
    options: { maxGroup?: number; inFlight?: number; keysOf?: (input: Input) => readonly string[] } = {},
  ) {
    this.maxGroup = options.maxGroup ?? 200;
    this.inFlight = options.inFlight ?? 1;
    this.keysOf = options.keysOf;
    this.groupWork = {
      together: runGroup,
      alone: async (input) => (await runGroup([input]))[0] as Output,
      leftNothingDone: refusedByDatabase,
    };
  }

  call(input: Input): Promise<Output> {
    return new Promise<Output>((resolve, reject) => {
      this.pending.push({
        input,
        keys: this.keysOf?.(input) ?? [],
        settle: (outcome) => ('error' in outcome ? reject(outcome.error) : resolve(outcome.output)),
      });
      this.schedule();
    });
  }

  /** Groups start on the next turn of the event loop, so the inputs of this turn go together. */
  private schedule(): void {
    if (this.scheduled || this.running >= this.inFlight) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.startGroups();
    });
  }

  private startGroups(): void {
    while (this.running < this.inFlight && this.pending.length > 0) {
      const group = this.nextGroup();
      if (group.length === 0) return; // every input waits for a key a running group holds
      void this.run(group);
    }
  }

  /**
   * A group's keys stay taken until every input of it has its answer, those tried again alone
   * after a refusal too: no input runs at the same time as another that shares one of its keys.
   */
  private async run(group: Pending<Input, Output>[]): Promise<void> {
    this.running += 1;
    const keys = group.flatMap((entry) => entry.keys);
    for (const key of keys) this.busyKeys.add(key);
    const outcomes = await isolateFailures(
      group.map((entry) => entry.input),
      this.groupWork,
    );
    for (const key of keys) this.busyKeys.delete(key);
    this.running -= 1;
    group.forEach((entry, index) => {
      entry.settle(outcomes[index]!);
    });
    if (this.pending.length > 0) this.schedule();
  }

  private nextGroup(): Pending<Input, Output>[] {
    if (this.keysOf === undefined) return this.pending.splice(0, this.maxGroup);
    const taken = new Set<string>();
    const group: Pending<Input, Output>[] = [];
    const waiting: Pending<Input, Output>[] = [];
    for (const entry of this.pending) {
      const clashes = entry.keys.some((key) => taken.has(key) || this.busyKeys.has(key));
      if (group.length >= this.maxGroup || clashes) {
        waiting.push(entry);
        continue;
      }
      for (const key of entry.keys) taken.add(key);
      group.push(entry);
    }
    this.pending = waiting;
    return group;
  }
}

interface Pending<Input, Output> {
  input: Input;
  /** keysOf(input), taken once. */
  keys: readonly string[];
  settle: (outcome: Outcome<Output>) => void;
}

/**
 * A grouped statement's rows back in input order: each row carries `ord`, its input's 1-based
 * position (`unnest(…) WITH ORDINALITY`); an input without a row gets undefined.
 */
export function rowsInInputOrder<Row extends { ord: number }>(
  rows: readonly Row[],
  inputs: number,
): (Row | undefined)[] {
  const ordered: (Row | undefined)[] = new Array(inputs).fill(undefined);
  for (const row of rows) ordered[row.ord - 1] = row;
  return ordered;
}

/**
 * Rows that concurrent requests each need written before they answer (audit rows), written as
 * one multi-row statement per group: a request's `add` resolves once its row is written.
 */
export class GroupedWriter<Row> {
  private readonly calls: GroupedCalls<Row, undefined>;

  constructor(writeRows: (rows: Row[]) => Promise<void>, maxGroup?: number) {
    this.calls = new GroupedCalls(
      async (rows) => {
        await writeRows(rows);
        return rows.map(() => undefined);
      },
      { maxGroup },
    );
  }

  add(row: Row): Promise<void> {
    return this.calls.call(row);
  }
}
