/** One item's share of work done for several: its output, or the error that is its answer. */
export type Outcome<Output> = { output: Output } | { error: unknown };

export interface WorkForSeveral<Item, Output> {
  /** The work for all the items at once: an output per item, in their order. */
  together: (items: Item[]) => Promise<readonly Output[]>;
  /** The same work for one item. */
  alone: (item: Item) => Promise<Output>;
  /**
   * Whether `together`, failing with this error, certainly left nothing of its work done (the
   * database answered the statement with an error, a transaction rolled back), so that each item
   * may be tried again alone.
   */
  leftNothingDone: (error: unknown) => boolean;
  /** Items tried alone one after another (a job's), rather than all at once (waiting requests'). */
  oneAtATime?: boolean;
}

/**
 * Work done for several items at once (one statement, one transaction) fails for all of them
 * when one item is at fault: a row PostgreSQL refuses takes down every other row of the statement.
 * So when it fails having certainly done nothing, each item is tried alone and gets its own
 * outcome: only the item at fault gets an error, the others succeed as they would have alone.
 * When the failure leaves the outcome unknown (the connection was lost before the answer), nothing
 * is tried again, since that could do twice what was done once: every item gets the error, as a
 * lone item would. Every mechanism that groups work (GroupedCalls, GroupedWriter,
 * GroupedTransactions, a job's items) isolates failures here, by this one rule.
 */
export async function isolateFailures<Item, Output>(
  items: Item[],
  work: WorkForSeveral<Item, Output>,
): Promise<Outcome<Output>[]> {
  try {
    const outputs = await work.together(items);
    return items.map((_item, index) => ({ output: outputs[index] as Output }));
  } catch (error) {
    const failure = definedError(error);
    if (items.length === 1 || !work.leftNothingDone(failure)) return items.map(() => ({ error: failure }));
  }
  if (!work.oneAtATime) return Promise.all(items.map((item) => outcomeAlone(work, item)));
  const outcomes: Outcome<Output>[] = [];
  for (const item of items) outcomes.push(await outcomeAlone(work, item));
  return outcomes;
}

async function outcomeAlone<Item, Output>(
  work: WorkForSeveral<Item, Output>,
  item: Item,
): Promise<Outcome<Output>> {
  try {
    return { output: await work.alone(item) };
  } catch (error) {
    return { error: definedError(error) };
  }
}

/** `throw undefined` still fails: an item's answer is never an undefined error. */
function definedError(error: unknown): unknown {
  return error ?? new Error('work for several items failed');
}
