import fc from 'fast-check';

/**
 * fast-check arbitraries from the JSON Schemas of /openapi.json: values that mostly satisfy a
 * route's request schema (so requests get past validation into the services), and hostile
 * variants of them. Only the keywords our TypeBox schemas use are understood; anything else
 * falls back to arbitrary JSON, which is a fine fuzz input too.
 */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  format?: string;
  $ref?: string;
}

/** Strings that have broken parsers, loggers, SQL and HTML before. */
export const HOSTILE_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\uD800',
  '\uDFFF\uD800',
  '\u202Eevil',
  '\u2028\u2029',
  '🚀💸',
  'e\u0301',
  '../../etc/passwd',
  '..%2F..%2Fetc%2Fpasswd',
  '%00',
  "' OR 1=1 --",
  '"; DROP TABLE accounts; --',
  '<script>alert(1)</script>',
  `$${'{'}jndi:ldap://x}`,
  '__proto__',
  'constructor',
  'NaN',
  '-0',
  '1e400',
  '0x10',
  'null',
  'x'.repeat(5000),
];

const HOSTILE_NUMBERS = [
  0,
  -1,
  -0.000001,
  1e21,
  Number.MAX_SAFE_INTEGER + 2,
  0.1 + 0.2,
  -1e308,
  123.45678912345679,
];

const stringArbitrary = (schema: JsonSchema): fc.Arbitrary<string> => {
  if (schema.pattern) {
    try {
      return fc
        .stringMatching(new RegExp(schema.pattern))
        .filter((value) => value.length <= (schema.maxLength ?? 200));
    } catch {
      // A pattern fast-check cannot generate from: plain strings below.
    }
  }
  if (schema.format === 'email') return fc.emailAddress();
  return fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 40, 40) });
};

const numberArbitrary = (schema: JsonSchema, integer: boolean): fc.Arbitrary<number> => {
  const min = schema.minimum ?? -1_000_000;
  const max = schema.maximum ?? 1_000_000;
  return integer
    ? fc.integer({ min: Math.max(min, -(2 ** 31)), max: Math.min(max, 2 ** 31) })
    : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
};

/** Values shaped by the schema (valid or nearly). */
export function arbitraryFor(schema: JsonSchema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 6) return fc.jsonValue({ maxDepth: 2 });
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const union = schema.anyOf ?? schema.oneOf;
  if (union?.length) return fc.oneof(...union.map((member) => arbitraryFor(member, depth + 1)));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
      return stringArbitrary(schema);
    case 'integer':
      return numberArbitrary(schema, true);
    case 'number':
      return numberArbitrary(schema, false);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(arbitraryFor(schema.items, depth + 1), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? 3, 3),
      });
    case 'object':
      return objectOf(schema, depth);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function objectOf(schema: JsonSchema, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties = schema.properties ?? {};
  const required = new Set(schema.required ?? []);
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, member] of Object.entries(properties)) record[name] = arbitraryFor(member, depth + 1);
  return fc.record(record, { requiredKeys: [...required].filter((name) => name in properties) });
}

/** A hostile value for one field: the wrong type, a poisonous string, an absurd number, a deep nest. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(...HOSTILE_STRINGS),
  fc.constantFrom(...HOSTILE_NUMBERS),
  fc.constantFrom(null, true, false, [], {}, [[[[]]]], { __proto__: { polluted: true } }),
  fc.jsonValue({ maxDepth: 3 }),
);

/** Replaces, removes or adds one field of an object body; anything else is replaced whole. */
export function mutate(value: unknown): fc.Arbitrary<unknown> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return hostileValue;
  const keys = Object.keys(value);
  const replaceOne =
    keys.length === 0
      ? hostileValue.map((bad) => ({ unexpected: bad }))
      : fc.tuple(fc.constantFrom(...keys), hostileValue).map(([key, bad]) => ({ ...value, [key]: bad }));
  const dropOne =
    keys.length === 0
      ? fc.constant(value)
      : fc.constantFrom(...keys).map((key) => {
          const copy: Record<string, unknown> = { ...value };
          delete copy[key];
          return copy;
        });
  const extra = fc
    .tuple(fc.constantFrom('__proto__', 'constructor', 'extraField', 'x'.repeat(300)), hostileValue)
    .map(([key, bad]) =>
      JSON.parse(
        `${JSON.stringify(value).slice(0, -1)}${keys.length ? ',' : ''}${JSON.stringify(key)}:${JSON.stringify(bad) ?? 'null'}}`,
      ),
    );
  return fc.oneof(replaceOne, dropOne, extra);
}

/** Raw bodies no schema describes: not JSON, deeply nested, huge, wrong encodings. */
export const rawHostileBody: fc.Arbitrary<string | Buffer> = fc.oneof(
  fc.constantFrom(
    '{',
    '{"a":}',
    'null',
    '[]',
    '"just a string"',
    '{"a":1,"a":2}',
    `${'['.repeat(20_000)}${']'.repeat(20_000)}`,
    `{"big":"${'x'.repeat(300_000)}"}`,
    '{"n": 1e400}',
    '{"n": 0.1000000000000000000000000000001}',
    '{"__proto__": {"admin": true}}',
  ),
  fc.uint8Array({ minLength: 1, maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
);
