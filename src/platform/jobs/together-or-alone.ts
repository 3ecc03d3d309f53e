import { isDatabaseUnavailable } from '../db/errors.ts';
import { isolateFailures } from '../db/failure-isolation.ts';

/**
 * A job that names several items (orders placed together, sends of one batch): all of them at
 * once, and if that fails, each alone, one after another, so one item that cannot be handled
 * holds up none of the others (isolateFailures). A job's work is safe to repeat (`one` skips the
 * items already handled, as every handler safe to repeat does), so any failure sends the items
 * alone but a lost database: each item would fail the same way, so the job fails whole at once.
 * Throws the first failure, so the job is retried.
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
    leftNothingDone: (error) => !isDatabaseUnavailable(error),
    oneAtATime: true,
  });
  const failed = outcomes.find((outcome) => 'error' in outcome);
  if (failed) throw failed.error;
}
