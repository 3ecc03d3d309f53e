import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { invalidValue } from '../platform/errors.ts';
import { errorResponses, withExample } from '../platform/http/openapi.ts';
import { ratesAnswer } from './examples.ts';
import type { RatesFormat, RatesView } from './rates.ts';
import { RatesAnswer, RatesQuery } from './schemas.ts';
import { type PricingDeps, ratesAs } from './service.ts';

const VIEWS = new Set<RatesView>(['DIVISOR', 'MULTIPLIER', 'PRICED']);

/**
 * Public prices: GET /v3/rates, and GET /v2/rates, which Wyre served the same (docs/contract.md,
 * decision 37): same parameters, same answer.
 */
export const pricingRoutes: FastifyPluginAsync<{ ctx: PricingDeps }> = async (app, { ctx }) => {
  for (const path of ['/v3/rates', '/v2/rates']) registerRates(app, ctx, path);
};

function registerRates(app: FastifyInstance, ctx: PricingDeps, path: string) {
  app.get<{ Querystring: { as?: string; format?: RatesFormat } }>(
    path,
    {
      config: { auth: 'none' },
      schema: {
        tags: ['Rates'],
        summary: 'Exchange rates keyed <FROM><TO> (as=DIVISOR|MULTIPLIER|PRICED)',
        description:
          'No credentials. Every pair the service can price, keyed `<FROM><TO>`: DIVISOR (default) means sourceAmount / rate = destAmount, MULTIPLIER sourceAmount × rate = destAmount, PRICED gives both sides as `{FROM: n, TO: n}`. Card quotes add fees on top of these. `format=json_numberstring` writes each rate as a decimal string. An unknown `as` answers 400; 503 `rates.stale` (transient) while no fresh price exists.',
        querystring: RatesQuery,
        response: { 200: withExample(RatesAnswer, ratesAnswer), ...errorResponses(400, 429, 503) },
      },
    },
    async (request, reply) => {
      const view = (request.query.as ?? 'DIVISOR').toUpperCase() as RatesView;
      if (!VIEWS.has(view)) throw invalidValue('as', 'as must be DIVISOR, MULTIPLIER or PRICED.');
      // Pre-rendered JSON bytes per price snapshot and format: sent as is.
      const bytes = await ratesAs(ctx, view, request.query.format);
      return reply.type('application/json; charset=utf-8').send(bytes);
    },
  );
}
