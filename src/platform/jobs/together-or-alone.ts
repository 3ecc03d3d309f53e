import { isDatabaseUnavailable } from '../db/errors.ts';
import { isolateFailures } from '../db/failure-isolation.ts';

/**
 * A job's work is safe to repeat (its handler skips what was already done), so a failed group of
 * it may always be tried again item by item, but for a lost database: each item would fail the
 * same way, so the items fail at once, whole, and are retried later as jobs are.
 */
export const jobWorkLeftNothingDone = (error: unknown) => !isDatabaseUnavailable(error);

/**
 * A job that names several items (orders placed together, sends of one batch): all of them at
 * once, and if that fails, each alone, one after another, so one item that cannot be handled
 * holds up none of the others (isolateFailures, by jobWorkLeftNothingDone; `one` skips the items
 * already handled). Throws the first failure, so the job is retried.
 */
export async function togetherOrEachAlone<T>(
  items: readonly T[],
  all: (items: readonly T[]) => Promise<void>,
  one: (item: T) => Promise<void>,
): Promise<void> {
  const outcomes = await isolateFailures([...items], {
    together: async (together) => {
      await all(together);
      return [];
    },
    alone: one,
    leftNothingDone: jobWorkLeftNothingDone,
    oneAtATime: true,
  });
  const failed = outcomes.find((outcome) => 'error' in outcome);
  if (failed) throw failed.error;
}
