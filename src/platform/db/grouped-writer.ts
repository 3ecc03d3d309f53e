/**
 * Runs a statement that many concurrent requests each need, once per group of them: a request's
 * `call` waits for the statement that carries its input and gets its own answer from it. Inputs
 * that arrive while a group is running form the next group (group commit); an idle batcher runs
 * on the next turn of the event loop, adding no latency worth measuring. On this machine a round
 * trip to PostgreSQL costs more of both processes' CPU than most of our statements' work
 * (bench/FINDINGS.md), so N requests' rows in one statement cost far less than N statements.
 */
export class GroupedCalls<Input, Output> {
  private pending: { input: Input; settle: (error: unknown, output?: Output) => void }[] = [];
  private running = false;

  /**
   * `runGroup` answers one output per input, in the inputs' order; a group holds at most
   * `maxGroup` inputs (more wait for the next), which bounds a statement's size. One group runs
   * at a time: two or three in flight measured no faster (bench/FINDINGS.md).
   */
  constructor(
    private readonly runGroup: (inputs: Input[]) => Promise<Output[]>,
    private readonly maxGroup = 200,
  ) {}

  call(input: Input): Promise<Output> {
    return new Promise<Output>((resolve, reject) => {
      this.pending.push({
        input,
        settle: (error, output) => (error === undefined ? resolve(output as Output) : reject(error)),
      });
      if (!this.running) {
        this.running = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    while (this.pending.length > 0) {
      const group = this.pending.splice(0, this.maxGroup);
      let outputs: Output[] = [];
      let failure: unknown;
      try {
        outputs = await this.runGroup(group.map((entry) => entry.input));
      } catch (error) {
        failure = error ?? new Error('grouped statement failed');
      }
      group.forEach((entry, index) => {
        entry.settle(failure, outputs[index]);
      });
    }
    this.running = false;
  }
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
    this.calls = new GroupedCalls(async (rows) => {
      await writeRows(rows);
      return rows.map(() => undefined);
    }, maxGroup);
  }

  add(row: Row): Promise<void> {
    return this.calls.call(row);
  }
}

/**
 * One instance per app context, made on first use: a batcher runs its statements on its context's
 * pool, and tests run several apps (several contexts) in one process.
 */
export function perContext<Context extends object, T>(make: (ctx: Context) => T): (ctx: Context) => T {
  const made = new WeakMap<Context, T>();
  return (ctx) => {
    let instance = made.get(ctx);
    if (instance === undefined) {
      instance = make(ctx);
      made.set(ctx, instance);
    }
    return instance;
  };
}
