/**
 * An exact decimal amount as the server wrote it, e.g. `"0.000123456789012345"`. Answers carry
 * amounts as JSON numbers; the SDK reads them from the raw text so no digit is lost to a binary
 * double (see exact-json.ts). Feed them to decimal.js / big.js, or `Number()` them for display.
 */
export type Amount = string;

/**
 * An amount in a request: a decimal string (recommended: sent as is, exact) or a number (sent as
 * JavaScript prints it, which is exact only for values a double holds, e.g. `10.5`).
 */
export type AmountInput = string | number;

/** Epoch milliseconds. */
export type EpochMs = number;

/** `{data, position, recordsTotal, recordsFiltered}` (API.md "Lists"). */
export interface ListPage<T> {
  data: T[];
  position: number;
  recordsTotal: number;
  recordsFiltered: number;
}

export interface ListQuery {
  offset?: number;
  /** At most 100. */
  limit?: number;
}

/** Billing or residence address. */
export interface Address {
  street1: string;
  street2?: string;
  city: string;
  /** State code, e.g. `CA`. */
  state: string;
  postalCode: string;
  /** ISO 3166-1 alpha-2. */
  country: string;
}
