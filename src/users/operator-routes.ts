import type { FastifyPluginAsync } from 'fastify';
import { operatorAction } from '../operator/auth.ts';
import type { AppContext } from '../platform/context.ts';
import { errorResponses, OPERATOR_SECURITY } from '../platform/http/openapi.ts';
import { listReviews, reviewScope } from './review-service.ts';
import { ReviewAnswer, ReviewBody, ReviewList, ReviewParams, ReviewsQuery } from './schemas.ts';
import type { ScopeStatus } from './scope-rules.ts';

const tags = ['Operator'];

export const usersOperatorRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get<{ Querystring: { status?: ScopeStatus } }>(
    '/operator/v1/reviews',
    {
      schema: {
        tags,
        security: OPERATOR_SECURITY,
        summary: 'User scopes by status (default PENDING: awaiting review)',
        querystring: ReviewsQuery,
        response: { 200: ReviewList, ...errorResponses(400, 401) },
      },
    },
    async (request) => listReviews(ctx, request.query.status ?? 'PENDING'),
  );

  app.post<{ Params: { userId: string; scope: string }; Body: ReviewBody }>(
    '/operator/v1/users/:userId/scopes/:scope/review',
    {
      schema: {
        tags,
        security: OPERATOR_SECURITY,
        summary: 'Decide a pending scope: APPROVE, RETURN (with fieldErrors) or CLOSE',
        params: ReviewParams,
        body: ReviewBody,
        response: { 200: ReviewAnswer, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const act = { action: operatorAction(request), remoteIp: request.ip };
      const answer = await reviewScope(ctx, act, request.params.userId, request.params.scope, request.body);
      request.operatorAudited = true;
      return answer;
    },
  );
};
