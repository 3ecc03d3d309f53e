import { ApiError } from '../errors.ts';

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
  return findUnstorable(value);
}

/** A value met in the walk: its key in its parent (an object's key or an array's index). */
interface Visit {
  value: unknown;
  key: string;
  inArray: boolean;
  parent: Visit | undefined;
}

/**
 * Walks the value depth-first, in document order, with a stack of its own rather than the call
 * stack: a body nested as deep as its size allows must be answered, not overflow the stack.
 */
function findUnstorable(root: unknown): string | undefined {
  const stack: Visit[] = [{ value: root, key: '', inArray: false, parent: undefined }];
  for (let visit = stack.pop(); visit !== undefined; visit = stack.pop()) {
    const { value } = visit;
    if (!visit.inArray && unstorable(visit.key)) return pathOf(visit);
    if (typeof value === 'string') {
      if (unstorable(value)) return pathOf(visit);
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    const inArray = Array.isArray(value);
    const members = Object.entries(value);
    // Pushed last to first, so the first member is visited first.
    for (let index = members.length - 1; index >= 0; index -= 1) {
      const [key, member] = members[index]!;
      stack.push({ value: member, key, inArray, parent: visit });
    }
  }
  return undefined;
}

/** `a.b[1]`; `body` for the whole body. */
function pathOf(visit: Visit): string {
  const chain: Visit[] = [];
  for (let at: Visit | undefined = visit; at?.parent !== undefined; at = at.parent) chain.push(at);
  let path = '';
  for (let index = chain.length - 1; index >= 0; index -= 1) {
    const { key, inArray } = chain[index]!;
    path = inArray ? `${path}[${key}]` : path ? `${path}.${key}` : key;
  }
  return path || 'body';
}

/**
 * The refusal of a URL whose query parameters or path parameters, percent-decoded, hold unstorable
 * text (`%00`), or whose query is not valid percent-encoded UTF-8 (`%FF`, `%ED%A0%80`, a lone
 * `%`); undefined for a URL without either. Such text would reach a lookup or an INSERT and fail
 * there as an internal fault (and fail every request grouped with it). The router has decoded the
 * path parameters already, refusing a path that is not valid percent-encoded UTF-8; the query
 * parser leaves what it cannot decode as it came, so the query is decoded here once more.
 * Only a URL with a `%` can hold any of this: callers test for one first.
 */
export function urlTextRefusal(url: string, params: unknown): ApiError | undefined {
  const queryStart = url.indexOf('?');
  const pathEnd = queryStart === -1 ? url.length : queryStart;
  const percent = url.indexOf('%');
  if (percent !== -1 && percent < pathEnd) {
    const refusal = pathParameterRefusal(params);
    if (refusal) return refusal;
  }
  if (queryStart === -1 || url.indexOf('%', queryStart) === -1) return undefined;
  return queryRefusal(url.slice(queryStart + 1));
}

function pathParameterRefusal(params: unknown): ApiError | undefined {
  if (params === null || typeof params !== 'object') return undefined;
  for (const [name, value] of Object.entries(params)) {
    if (typeof value !== 'string' || !unstorable(value)) continue;
    // The not-found route holds the whole path as `*`.
    return name === '*'
      ? invalidCharacter('The path', 'path')
      : invalidCharacter(`Path parameter ${name}`, name);
  }
  return undefined;
}

function queryRefusal(query: string): ApiError | undefined {
  for (const pair of query.split('&')) {
    if (!pair.includes('%')) continue;
    const equals = pair.indexOf('=');
    const name = decoded(equals === -1 ? pair : pair.slice(0, equals));
    const value = equals === -1 ? '' : decoded(pair.slice(equals + 1));
    // A parameter whose own name cannot be decoded or stored is named by where it is instead.
    const field = name === undefined || unstorable(name) ? 'query' : name.slice(0, 100);
    if (name === undefined || value === undefined) {
      return new ApiError(
        'ValidationException',
        'validation.badUrl',
        `Query parameter ${field} is not valid percent-encoded UTF-8.`,
        { problematicField: field },
      );
    }
    if (unstorable(name) || unstorable(value)) return invalidCharacter(`Query parameter ${field}`, field);
  }
  return undefined;
}

/** The percent-decoded text, or undefined when it is not valid percent-encoded UTF-8. */
function decoded(raw: string): string | undefined {
  if (!raw.includes('%')) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}

function invalidCharacter(subject: string, field: string): ApiError {
  return new ApiError(
    'ValidationException',
    'validation.invalidCharacter',
    `${subject} holds U+0000 or an unpaired surrogate, which no parameter accepts.`,
    { problematicField: field },
  );
}
