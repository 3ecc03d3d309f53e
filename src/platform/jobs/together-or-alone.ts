/**
 * A job that names several items (orders placed together, sends of one batch): all of them at
 * once, and if that throws, each alone, so one item that cannot be handled holds up none of the
 * others. Throws the first failure, so the job is retried; `one` must skip the items already
 * handled meanwhile, as every handler safe to repeat does.
 */
export async function togetherOrEachAlone<T>(
  items: readonly T[],
  all: (items: readonly T[]) => Promise<void>,
  one: (item: T) => Promise<void>,
): Promise<void> {
  try {
    await all(items);
    return;
  } catch (error) {
    if (items.length === 1) throw error;
  }
  let failure: { error: unknown } | undefined;
  for (const item of items) {
    try {
      await one(item);
    } catch (error) {
      failure ??= { error };
    }
  }
  if (failure) throw failure.error;
}
