/**
 * Reads issued together, READS_AT_ONCE in flight at a time: on the deposit side's client
 * (rpc.ts watchClient) concurrent calls go out as one JSON-RPC batch, so reading thousands of
 * deposit addresses costs a few HTTP requests instead of one each.
 */
export const READS_AT_ONCE = 500;

/** `read` of every item, READS_AT_ONCE in flight at a time; answers in the items' order. */
export async function readAll<T, R>(items: readonly T[], read: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let start = 0; start < items.length; start += READS_AT_ONCE)
    results.push(...(await Promise.all(items.slice(start, start + READS_AT_ONCE).map(read))));
  return results;
}
