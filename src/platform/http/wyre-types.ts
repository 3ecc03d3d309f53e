import { Type } from 'typebox';

/**
 * Schema keyword naming a coercion Wyre performed on a field it took in two JSON types
 * (docs/contract.md, "Tolerance"). The validator rewrites the value in place, so services only
 * ever see the canonical type; any other type is still refused by the schema.
 */
export const COERCE_KEYWORD = 'x-wyre-coerce';

export type Coercion = 'boolean' | 'phone';

/**
 * Routes of the Wyre API (`/v2`, `/v3`), where Rampart is as lenient as Wyre was; its own routes
 * (operator, hosted pages' scripts, ops) report what they do not understand.
 */
export function isWyreApiRoute(routeUrl: string): boolean {
  return routeUrl.startsWith('/v2/') || routeUrl.startsWith('/v3/');
}

/** A boolean that may also arrive as the string "true" or "false"; services see a boolean. */
export const WyreBoolean = (description?: string) =>
  Type.Unsafe<boolean>({
    anyOf: [{ type: 'boolean' }, { type: 'string', enum: ['true', 'false'] }],
    [COERCE_KEYWORD]: 'boolean' satisfies Coercion,
    ...(description ? { description } : {}),
  });

/** A phone number as text, or as a JSON integer (its digits, read as E.164 with a leading +). */
export const WyrePhone = (maxLength: number, description?: string) =>
  Type.Unsafe<string>({
    anyOf: [
      { type: 'string', maxLength },
      { type: 'integer', minimum: 0, maximum: 999_999_999_999_999 },
    ],
    [COERCE_KEYWORD]: 'phone' satisfies Coercion,
    ...(description ? { description } : {}),
  });

/** The canonical value for a value the schema already accepted. */
export function coerced(kind: Coercion, value: unknown): unknown {
  if (kind === 'boolean' && typeof value === 'string') return value === 'true';
  if (kind === 'phone' && typeof value === 'number') return `+${value}`;
  return value;
}
