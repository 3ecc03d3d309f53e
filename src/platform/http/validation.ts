import type { FastifySchemaValidationError } from 'fastify';
import { ApiError } from '../errors.ts';

type Part = string | undefined;

/** Dotted field name from an Ajv instance path: `/address/postalCode` → `address.postalCode`. */
function fieldName(part: Part, instancePath: string, child?: string): string {
  const segments = instancePath.split('/').filter(Boolean);
  if (child) segments.push(child);
  if (segments.length === 0) return part === 'body' ? 'body' : (part ?? 'request');
  return segments.join('.');
}

/**
 * Maps the first schema violation to the envelope: a missing field is a FieldRequiredException,
 * an unknown field or a wrong type a ValidationException; both name the field.
 */
export function validationFailure(errors: FastifySchemaValidationError[], part: Part): ApiError {
  const first = errors[0];
  if (!first) return new ApiError('ValidationException', 'validation.invalidValue', 'Invalid request.');
  const params = first.params as Record<string, unknown>;
  if (first.keyword === 'required') {
    const field = fieldName(part, first.instancePath, String(params.missingProperty));
    return new ApiError('FieldRequiredException', 'validation.fieldRequired', `Field ${field} is required.`, {
      problematicField: field,
    });
  }
  if (first.keyword === 'additionalProperties') {
    const field = fieldName(part, first.instancePath, String(params.additionalProperty));
    const where = part === 'querystring' ? 'query parameter' : 'field';
    return new ApiError('ValidationException', 'validation.unknownField', `Unknown ${where} ${field}.`, {
      problematicField: field,
    });
  }
  const field = fieldName(part, first.instancePath);
  if (field === 'body' && first.keyword === 'type') {
    return new ApiError(
      'ValidationException',
      'validation.invalidValue',
      'The request body must be a JSON object.',
      {
        problematicField: 'body',
      },
    );
  }
  return new ApiError(
    'ValidationException',
    'validation.invalidValue',
    `Field ${field} ${first.message ?? 'is invalid'}.`,
    {
      problematicField: field,
    },
  );
}
