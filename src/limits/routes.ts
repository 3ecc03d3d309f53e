import type { FastifyPluginAsync } from 'fastify';
import { operatorAction } from '../operator/auth.ts';
import type { AppContext } from '../platform/context.ts';
import { errorResponses, OPERATOR_SECURITY } from '../platform/http/openapi.ts';
import { calculateLimits } from './calculate.ts';
import { SUPPORTED_COUNTRIES } from './countries.ts';
import { getLimitOverride, setLimitOverride } from './overrides.ts';
import {
  AccountParams,
  CalculateBody,
  LimitsAnswer,
  OverrideAnswer,
  OverrideBody,
  SupportedCountriesAnswer,
} from './schemas.ts';

const tags = ['Limits'];

export const limitsRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post<{ Body: CalculateBody }>(
    '/v3/widget/limits/calculate',
    {
      config: { auth: 'none' },
      schema: {
        tags,
        summary: 'Card purchase limits of a billing address, in USD (spec §4.5); no credentials',
        body: CalculateBody,
        response: { 200: LimitsAnswer, ...errorResponses(400, 429) },
      },
    },
    async (request) => calculateLimits(ctx, request.body),
  );

  app.get(
    '/v3/widget/supportedCountries',
    {
      config: { auth: 'none' },
      schema: {
        tags,
        summary: 'Billing countries card purchases are sold to',
        response: { 200: SupportedCountriesAnswer, ...errorResponses(429) },
      },
    },
    async () => SUPPORTED_COUNTRIES,
  );

  app.put<{ Params: { accountId: string }; Body: OverrideBody }>(
    '/operator/v1/accounts/:accountId/card-limits',
    {
      schema: {
        tags: ['Operator'],
        security: OPERATOR_SECURITY,
        summary: 'Set a partner’s card limit tables (USD, per tier); {} restores the defaults. Audited',
        params: AccountParams,
        body: OverrideBody,
        response: { 200: OverrideAnswer, ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const act = { action: operatorAction(request), remoteIp: request.ip };
      const answer = await setLimitOverride(ctx, act, request.params.accountId, request.body);
      request.operatorAudited = true;
      return answer;
    },
  );

  app.get<{ Params: { accountId: string } }>(
    '/operator/v1/accounts/:accountId/card-limits',
    {
      schema: {
        tags: ['Operator'],
        security: OPERATOR_SECURITY,
        summary: 'A partner’s card limit override (null tiers use the defaults)',
        params: AccountParams,
        response: { 200: OverrideAnswer, ...errorResponses(400, 401) },
      },
    },
    async (request) => getLimitOverride(ctx, request.params.accountId),
  );
};
