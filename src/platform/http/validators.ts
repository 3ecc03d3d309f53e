import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

// ajv-formats ships CommonJS; under NodeNext its default export is the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const shared: Options = { allErrors: false, removeAdditional: false, useDefaults: true, strict: false };

/**
 * Bodies are validated without type coercion (a string where a number belongs is an error the
 * partner should hear about); query strings and path parameters are text by nature and are coerced.
 */
export function installValidators(app: FastifyInstance) {
  const bodyAjv = addFormats(new Ajv({ ...shared, coerceTypes: false }));
  const textAjv = addFormats(new Ajv({ ...shared, coerceTypes: true }));
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? bodyAjv : textAjv;
    return ajv.compile(schema);
  });
}
