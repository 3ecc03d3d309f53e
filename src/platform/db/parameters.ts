/**
 * Binds a value to the next placeholder of a statement built from parts (each part may come from
 * another domain's store) and answers the placeholder, cast when `cast` is given: `$3::numeric`.
 */
export type Param = (value: unknown, cast?: string) => string;

/** A Param appending to `values`: the statement numbers its placeholders in the order parts bind them. */
export function parameters(values: unknown[]): Param {
  return (value, cast = '') => `$${values.push(value)}${cast}`;
}
