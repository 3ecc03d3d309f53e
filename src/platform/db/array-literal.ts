/**
 * Array parameters written as PostgreSQL array literals in one pass. pg's own writer builds the
 * literal by appending to a string element by element, each element through two regular-expression
 * replacements and two more appends: for the statements that carry a group's or a worker batch's
 * rows as arrays (hundreds of elements per array, a dozen arrays per statement) that is a large
 * share of the worker thread's allocations and CPU.
 *
 * Written here: strings, finite and non-finite numbers, booleans, null and undefined (NULL), and
 * arrays of those (multi-dimensional). Anything else (a Date, a Buffer, an object) answers
 * undefined and the array goes to pg as it is, so the text is always what pg would have sent.
 */

/** An element that needs no quotes: no character the array syntax gives a meaning, no space. */
const BARE = /^[^\s{}",\\]+$/;
const NULL_WORD = /^null$/i;

function element(value: unknown): string | undefined {
  if (value === null || value === undefined) return 'NULL';
  switch (typeof value) {
    case 'string':
      return quoted(value);
    case 'number':
    case 'boolean':
      // As pg: the value's own text (a number's shortest round-trip form), here never needing quotes.
      return String(value);
    case 'object':
      return Array.isArray(value) ? arrayLiteral(value) : undefined;
    default:
      return undefined;
  }
}

/** A string element: bare when it can be, else quoted with its quotes and backslashes escaped. */
function quoted(value: string): string {
  if (BARE.test(value) && !NULL_WORD.test(value)) return value;
  const escaped = value.includes('\\') || value.includes('"') ? value.replace(/[\\"]/g, '\\$&') : value;
  return `"${escaped}"`;
}

/** `{a,"b c",NULL}` for ['a', 'b c', null]; undefined when an element is of a kind not written here. */
export function arrayLiteral(values: readonly unknown[]): string | undefined {
  const parts = new Array<string>(values.length);
  for (let index = 0; index < values.length; index += 1) {
    const part = element(values[index]);
    if (part === undefined) return undefined;
    parts[index] = part;
  }
  return `{${parts.join(',')}}`;
}

/**
 * A statement's parameters with every array this module can write replaced by its literal; the
 * same array when it holds none (most statements: no copy for them on every call).
 */
export function withArrayLiterals(values: unknown[]): unknown[] {
  if (!values.some(Array.isArray)) return values;
  return values.map((value) => (Array.isArray(value) ? (arrayLiteral(value) ?? value) : value));
}
