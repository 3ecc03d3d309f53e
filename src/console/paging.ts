/**
 * A keyset page: the rows read with one more than shown, so whether a next page exists is known
 * without counting; the cursor of the next page is the last shown row's id.
 */
export interface Page<T> {
  rows: T[];
  next: string | undefined;
}

export function pageOf<T extends { id: string }>(rows: T[], size: number): Page<T> {
  const shown = rows.slice(0, size);
  return { rows: shown, next: rows.length > size ? shown.at(-1)?.id : undefined };
}

/** Console lists show at most this many rows a page (the kit's page rule: ≤ 50). */
export const PAGE_SIZE = 50;
