import { isMoney } from './money.ts';

/**
 * Response serializer: like JSON.stringify, but Decimal values are written as JSON numbers
 * straight from their exact text (`toFixed`, never exponent form), so no amount is ever
 * squeezed through a binary float on its way out.
 *
 * It runs for every answer, so it is written for speed and little garbage: string concatenation,
 * object keys quoted once, and strings that need no escaping (ids, codes, most values) written
 * without a JSON.stringify call.
 */
export function serializeJson(value: unknown): string {
  return write(value) ?? 'null';
}

/**
 * Set only for the duration of one synchronous serializeJsonNumberStrings call: the writers
 * below read it where they meet a Decimal, so the default path pays one flag test per amount
 * instead of a second copy of every writer.
 */
let decimalsAsStrings = false;

/**
 * The same, with every Decimal written as a JSON string of the same exact text: what
 * `format=json_numberstring` asks for (docs/contract.md, Amounts). Amounts are Decimal values
 * wherever they are, so this is exactly "every amount"; timestamps and counts stay numbers.
 */
export function serializeJsonNumberStrings(value: unknown): string {
  decimalsAsStrings = true;
  try {
    return write(value) ?? 'null';
  } finally {
    decimalsAsStrings = false;
  }
}

/** The query value that asks for amounts as strings (Wyre's `format` parameter). */
export const NUMBER_STRING_FORMAT = 'json_numberstring';

/** The serializer a request's `format` asks for. */
export function serializerFor(format: unknown): (value: unknown) => string {
  return format === NUMBER_STRING_FORMAT ? serializeJsonNumberStrings : serializeJson;
}

/** What JSON.stringify would escape: quote, backslash, control characters, surrogate halves. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

function writeString(text: string): string {
  return NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : `"${text}"`;
}

function write(value: unknown): string | undefined {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return writeString(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return value.toString();
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
  }
  if (Array.isArray(value)) return writeArray(value);
  if (isMoney(value)) return decimalsAsStrings ? `"${value.toFixed()}"` : value.toFixed();
  if (value instanceof Date) return write(value.getTime());
  return writeObject(value as Record<string, unknown>);
}

function writeArray(items: unknown[]): string {
  let out = '[';
  for (let index = 0; index < items.length; index++) {
    if (index > 0) out += ',';
    out += write(items[index]) ?? 'null';
  }
  return `${out}]`;
}

/**
 * `"key":` and `,"key":` for the keys answers use (field names, currency codes), made once: a
 * key would otherwise cost new strings in every answer. Bounded, as a key can come from stored data.
 */
interface KeyPrefix {
  first: string;
  next: string;
}
const keyPrefixes = new Map<string, KeyPrefix>();
const MAX_KEY_PREFIXES = 4096;

function keyPrefix(key: string): KeyPrefix {
  let prefix = keyPrefixes.get(key);
  if (prefix === undefined) {
    const first = `${writeString(key)}:`;
    prefix = { first, next: `,${first}` };
    if (keyPrefixes.size < MAX_KEY_PREFIXES) keyPrefixes.set(key, prefix);
  }
  return prefix;
}

function writeObject(object: Record<string, unknown>): string {
  let out = '{';
  for (const key in object) {
    if (!Object.hasOwn(object, key)) continue;
    const written = write(object[key]);
    if (written === undefined) continue;
    const prefix = keyPrefix(key);
    out += out.length > 1 ? prefix.next : prefix.first;
    out += written;
  }
  return `${out}}`;
}
