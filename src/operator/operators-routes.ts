import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../platform/context.ts';
import { errorResponses, OPERATOR_SECURITY, withExample } from '../platform/http/openapi.ts';
import { operatorAct } from './auth.ts';
import { bootstrapAnswer, bootstrapRequest } from './examples.ts';
import { bootstrapFirstAdmin } from './operators.ts';
import { BootstrapAnswer, BootstrapBody } from './schemas.ts';

/** The one operator API route about named operators: the first admin (docs/contract.md, decision 138). */
export const operatorsApiRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post<{ Body: { email: string; name: string; password: string } }>(
    '/operator/v1/operators/bootstrap',
    {
      schema: {
        tags: ['Operator'],
        security: OPERATOR_SECURITY,
        summary: 'Create the first admin of the console',
        description:
          'Operator token only. Creates the first named operator, an admin, who then signs in at /console/sign-in and enrols a TOTP second factor. 409 `operator.alreadyBootstrapped` once any operator exists: admins create the others in the console. Audited.',
        body: withExample(BootstrapBody, bootstrapRequest),
        response: {
          201: withExample(BootstrapAnswer, bootstrapAnswer),
          ...errorResponses(400, 401, 403, 409),
        },
      },
    },
    async (request, reply) => {
      const made = await bootstrapFirstAdmin(ctx, operatorAct(request), request.body);
      request.operatorAudited = true;
      const base = ctx.config.publicUrls[0] ?? '';
      return reply.code(201).send({ ...made, signInUrl: `${base}/console/sign-in` });
    },
  );
};
