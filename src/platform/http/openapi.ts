import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { type Static, type TSchema, Type } from 'typebox';
import { EXAMPLE_ERROR } from './examples.ts';

/** OpenAPI security requirements: partner routes take a signature (key + signature) or a bearer secret. */
export const PARTNER_SECURITY: Record<string, string[]>[] = [
  { apiKey: [], apiSignature: [] },
  { bearer: [] },
];
export const OPERATOR_SECURITY: Record<string, string[]>[] = [{ operatorToken: [] }];

export const ErrorEnvelopeSchema = Type.Object(
  {
    language: Type.Literal('en'),
    exceptionId: Type.String({
      description: 'Support reference; logged with the fault. `test_` prefix in sandbox.',
    }),
    compositeType: Type.String(),
    subType: Type.String(),
    errorCode: Type.String({ examples: ['validation.invalidValue'] }),
    message: Type.String(),
    type: Type.String({ examples: ['ValidationException'] }),
    transient: Type.Boolean({ description: 'True when retrying the same request may succeed' }),
    problematicField: Type.Optional(Type.String()),
    errors: Type.Optional(
      Type.Array(
        Type.Object({
          index: Type.Integer(),
          problematicField: Type.String(),
          errorCode: Type.String(),
          message: Type.String(),
        }),
        { description: 'A refused batch: every refused item, by its index in the request' },
      ),
    ),
  },
  { $id: 'ErrorEnvelope', title: 'Wyre error envelope', examples: [EXAMPLE_ERROR] },
);

/**
 * `schema` with one example of a request or answer (JSON Schema `examples`; @fastify/swagger
 * moves a top-level one onto the media type, where /docs shows it). `Static<T>` makes the
 * compiler hold the example to the schema; test/ops/openapi-completeness.test.ts validates it
 * again against the published document. A copy, with TypeBox's hidden kind kept, so a schema
 * shared by several routes is never changed; `examples` is an annotation: validation is the same.
 */
export function withExample<T extends TSchema>(schema: T, example: Static<T>): T {
  const copy = Object.defineProperties({}, Object.getOwnPropertyDescriptors(schema)) as T;
  return Object.assign(copy, { examples: [example] });
}

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request (ValidationException, FieldRequiredException, JsonFormatException, …)',
  401: 'Missing or invalid credentials (AccessDeniedException)',
  403: 'Authenticated but not allowed (AccessDeniedException, accessDenied.forbidden)',
  404: 'Not found (NotFoundException)',
  409: 'Same Idempotency-Key still in flight (IdempotencyConflictException)',
  413: 'Body too large (PayloadTooLargeException)',
  415: 'Unsupported Content-Type (UnsupportedMediaTypeException)',
  422: 'Idempotency-Key reused with another request (IdempotencyConflictException)',
  429: 'Too many requests (RateLimitException, Retry-After header)',
  500: 'Unexpected fault (UnknownException, transient)',
  503: 'Not ready or dependency unavailable (ServiceUnavailableException, transient)',
};

/** Response schemas for the envelope at the given statuses (500 is always added: any route can fault). */
export function errorResponses(...statuses: number[]) {
  const out: Record<number, unknown> = {};
  for (const status of [...statuses, 500]) {
    out[status] = { ...Type.Ref('ErrorEnvelope'), description: ERROR_DESCRIPTIONS[status] ?? 'Error' };
  }
  return out;
}

export async function installOpenApi(app: FastifyInstance, publicUrls: string[]) {
  app.addSchema(ErrorEnvelopeSchema);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Rampart API',
        version: '0.1.0',
        description:
          'Payments and custody service speaking the Wyre v2/v3 API. Errors use the Wyre envelope.',
      },
      servers: publicUrls.map((url) => ({ url })),
      components: {
        securitySchemes: {
          operatorToken: { type: 'http', scheme: 'bearer', description: 'RAMPART_OPERATOR_TOKEN' },
          apiKey: {
            type: 'apiKey',
            in: 'header',
            name: 'X-Api-Key',
            description: 'With X-Api-Signature and ?timestamp=',
          },
          apiSignature: {
            type: 'apiKey',
            in: 'header',
            name: 'X-Api-Signature',
            description:
              'hex HMAC-SHA256(secret, URL as sent + raw body); the URL carries timestamp (epoch ms)',
          },
          bearer: {
            type: 'http',
            scheme: 'bearer',
            description: 'Secret key or decentralized session token',
          },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  // The page would fetch its own copy at /docs/json; `urls` makes it load /openapi.json, the one
  // address the guides and the SDK's drift test name (its top bar then lists that one document).
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { deepLinking: true, urls: [{ url: '/openapi.json', name: 'Rampart API' }] },
  });
}
