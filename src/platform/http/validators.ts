import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { COERCE_KEYWORD, type Coercion, coerced, isWyreApiRoute } from './wyre-types.ts';

// ajv-formats ships CommonJS; under NodeNext its default export is the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const shared: Options = { allErrors: false, useDefaults: true, strict: false };

/** Rewrites a value the schema accepted in one of Wyre's alternative types into its canonical type. */
function withCoercions(ajv: Ajv): Ajv {
  ajv.addKeyword({
    keyword: COERCE_KEYWORD,
    modifying: true,
    schemaType: 'string',
    validate: (
      kind: Coercion,
      value: unknown,
      _schema: unknown,
      context?: { parentData?: unknown; parentDataProperty?: string | number },
    ) => {
      const parent = context?.parentData as Record<string | number, unknown> | undefined;
      if (parent && context?.parentDataProperty !== undefined) {
        parent[context.parentDataProperty] = coerced(kind, value);
      }
      return true;
    },
  });
  return ajv;
}

function validator(options: Options): Ajv {
  return withCoercions(addFormats(new Ajv({ ...shared, ...options })));
}

/**
 * Bodies are validated without general type coercion (a string where a number belongs is an
 * error the partner should hear about) except the coercions a schema names (wyre-types.ts);
 * query strings and path parameters are text by nature and are coerced. On the Wyre API, fields
 * and query parameters Rampart does not know are dropped before the handler sees them, as Wyre
 * ignored them (docs/contract.md, decision 60); Rampart's own routes refuse them.
 */
export function installValidators(app: FastifyInstance) {
  const lenient = { removeAdditional: true } as const;
  const strict = { removeAdditional: false } as const;
  const bodies = {
    lenient: validator({ ...lenient, coerceTypes: false }),
    strict: validator({ ...strict, coerceTypes: false }),
  };
  const texts = {
    lenient: validator({ ...lenient, coerceTypes: true }),
    strict: validator({ ...strict, coerceTypes: true }),
  };
  app.setValidatorCompiler(({ schema, httpPart, url }) => {
    const family = httpPart === 'body' ? bodies : texts;
    const ajv = isWyreApiRoute(url) ? family.lenient : family.strict;
    return ajv.compile(schema);
  });
}
