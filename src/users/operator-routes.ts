import type { FastifyPluginAsync } from 'fastify';
import { operatorAct } from '../operator/index.ts';
import { errorResponses, OPERATOR_SECURITY, withExample } from '../platform/http/openapi.ts';
import type { UsersDeps } from './deps.ts';
import { reviewAnswer, reviewListAnswer, reviewRequest } from './examples.ts';
import { listReviews, reviewScope } from './review-service.ts';
import { ReviewAnswer, ReviewBody, ReviewList, ReviewParams, ReviewsQuery } from './schemas.ts';
import type { ScopeStatus } from './scope-rules.ts';

const tags = ['Operator'];

export const usersOperatorRoutes: FastifyPluginAsync<{ ctx: UsersDeps }> = async (app, { ctx }) => {
  app.get<{ Querystring: { status?: ScopeStatus } }>(
    '/operator/v1/reviews',
    {
      schema: {
        tags,
        security: OPERATOR_SECURITY,
        summary: 'User scopes by status (default PENDING: awaiting review)',
        description:
          'Operator token only. The KYC review queue across all partners: user scopes in the given status (default PENDING), oldest submission first, with the fields the scope requires as submitted.',
        querystring: ReviewsQuery,
        response: { 200: withExample(ReviewList, reviewListAnswer), ...errorResponses(400, 401) },
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
        description:
          'Operator token only. APPROVE a PENDING scope (ACH and DEBIT_CARD_L2 need TRANSFER approved first), RETURN it to the user with an error per field, or CLOSE the user for good (every scope). A scope not PENDING answers 400 `validation.scopeNotPending`. Audited.',
        params: ReviewParams,
        body: withExample(ReviewBody, reviewRequest),
        response: { 200: withExample(ReviewAnswer, reviewAnswer), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const act = operatorAct(request);
      const answer = await reviewScope(ctx, act, request.params.userId, request.params.scope, request.body);
      request.operatorAudited = true;
      return answer;
    },
  );
};
