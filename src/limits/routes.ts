import type { FastifyPluginAsync } from 'fastify';
import { scopeOf } from '../identity/index.ts';
import { operatorAct } from '../operator/index.ts';
import {
  errorResponses,
  OPERATOR_SECURITY,
  PARTNER_SECURITY,
  withExample,
} from '../platform/http/openapi.ts';
import { limitsOf } from './account-limits.ts';
import { calculateLimits } from './calculate.ts';
import { SUPPORTED_COUNTRIES } from './countries.ts';
import {
  calculateRequest,
  limitsAnswer,
  limitsByContextAnswer,
  overrideAnswer,
  overrideRequest,
  supportedCountriesAnswer,
} from './examples.ts';
import { getLimitOverride, setLimitOverride } from './overrides.ts';
import {
  AccountParams,
  CalculateBody,
  LimitsAnswer,
  LimitsByContextAnswer,
  LimitsQuery,
  OverrideAnswer,
  OverrideBody,
  SupportedCountriesAnswer,
} from './schemas.ts';
import type { LimitsDeps } from './service.ts';

const tags = ['Limits'];

export const limitsRoutes: FastifyPluginAsync<{ ctx: LimitsDeps }> = async (app, { ctx }) => {
  app.post<{ Body: CalculateBody }>(
    '/v3/widget/limits/calculate',
    {
      config: { auth: 'none' },
      schema: {
        tags,
        summary:
          'Card purchase limits of a billing address, in USD (docs/contract.md, Card limits); no credentials',
        description:
          'No credentials: a checkout form may call it. The limits and what is already spent in each rolling window (24 hours, 7 days, 365 days) for this billing address under the partner `accountId`, always in USD; with `userId` the user’s own spend counts too and an approved DEBIT_CARD_L2 scope gives the higher tables. An order above any `…Remaining` is refused (400 `limits.dailyLimitReached` and siblings). Unknown accountId or userId: 400.',
        body: withExample(CalculateBody, calculateRequest),
        response: { 200: withExample(LimitsAnswer, limitsAnswer), ...errorResponses(400, 429) },
      },
    },
    async (request) => calculateLimits(ctx, request.body),
  );

  app.get<{ Querystring: LimitsQuery }>(
    '/v3/limits',
    {
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'The limits Rampart enforces, by context, rolling window (hours) and currency',
        description:
          'A partner key, for its acting account, or with `srn=user:US_…` (or masquerading as the user) for one of its users. Wyre’s nesting: context (ACCOUNT, ACH, DEBIT_CARD) → rolling window in hours ("24", "168", "8760") → currency → `{in, out, availIn, availOut}`. Only card purchases are limited: DEBIT_CARD carries the USD tables (the user’s DEBIT_CARD_L2 tier once approved) and what is left after the user’s spend; `out` and `availOut` are null (a card only brings money in); ACCOUNT and ACH are empty. An account spends nothing itself (spend counts per billing address, card and user), so its windows show the table its buyers start from. Another partner’s user, or an srn other than the acting account or its users: 400.',
        querystring: LimitsQuery,
        response: {
          200: withExample(LimitsByContextAnswer, limitsByContextAnswer),
          ...errorResponses(400, 401, 403, 429),
        },
      },
    },
    async (request) => limitsOf(ctx, scopeOf(request), request.query.srn),
  );

  app.get(
    '/v3/widget/supportedCountries',
    {
      config: { auth: 'none' },
      schema: {
        tags,
        summary: 'Billing countries card purchases are sold to',
        description:
          'No credentials. Every country a card’s billing address may be in, by English name, with the phone prefix and what a form should call the region line. A billing address elsewhere is refused (400 `validation.unsupportedCountry`).',
        response: {
          200: withExample(SupportedCountriesAnswer, supportedCountriesAnswer),
          ...errorResponses(429),
        },
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
        description:
          'Operator token only. Replaces the partner’s daily, weekly and yearly USD limits for its buyers, per tier (STANDARD, DEBIT_CARD_L2); a tier left out, or `{}`, goes back to the defaults. Daily may not exceed weekly, nor weekly yearly; at most 2 decimals. Only master accounts (400 otherwise). Audited.',
        params: AccountParams,
        body: withExample(OverrideBody, overrideRequest),
        response: { 200: withExample(OverrideAnswer, overrideAnswer), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const act = operatorAct(request);
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
        description:
          'Operator token only. The tables set with PUT for this partner; a null tier means the default tables (by billing country) apply. Only master accounts (400 otherwise).',
        params: AccountParams,
        response: { 200: withExample(OverrideAnswer, overrideAnswer), ...errorResponses(400, 401) },
      },
    },
    async (request) => getLimitOverride(ctx, request.params.accountId),
  );
};
