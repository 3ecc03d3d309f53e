/**
 * Text PostgreSQL cannot store, which JSON can still carry as escapes: U+0000 and unpaired
 * UTF-16 surrogates (`"\u0000"`, `"\ud800"`). Left alone they reach an INSERT and fail there as
 * an internal fault; refused up front they are the caller's error, naming the field.
 */
const ESCAPE_OF_CONCERN = /\\u(?:0000|d[89a-f][0-9a-f]{2})/i;
// U+0000 is matched as a string, not in the pattern: a control character in a regex is easy to misread.
const NUL = String.fromCharCode(0);
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const unstorable = (text: string) => text.includes(NUL) || UNPAIRED_SURROGATE.test(text);

/** The path of the first string (key or value) holding unstorable text, or undefined. */
export function unstorableTextPath(text: string, value: unknown): string | undefined {
  // Only bodies that spell such an escape can hold one: the common case costs one regex test.
  if (!ESCAPE_OF_CONCERN.test(text)) return undefined;
  return findUnstorable(value, '');
}

function findUnstorable(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return unstorable(value) ? path || 'body' : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, member] of Object.entries(value)) {
    const memberPath = Array.isArray(value) ? `${path}[${key}]` : path ? `${path}.${key}` : key;
    if (unstorable(key)) return memberPath;
    const found = findUnstorable(member, memberPath);
    if (found) return found;
  }
  return undefined;
}
