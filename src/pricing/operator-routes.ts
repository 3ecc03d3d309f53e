import type { FastifyPluginAsync } from 'fastify';
import { operatorAct } from '../operator/index.ts';
import { errorResponses, OPERATOR_SECURITY, withExample } from '../platform/http/openapi.ts';
import { feeScheduleExample, referencePricesAnswer, referencePricesRequest } from './examples.ts';
import type { FeeScheduleJson } from './fees.ts';
import { FeeScheduleAnswer, FeeScheduleBody, ReferencePricesAnswer, ReferencePricesBody } from './schemas.ts';
import {
  feeScheduleView,
  type PricingDeps,
  referencePrices,
  setFeeSchedule,
  setReferencePrices,
} from './service.ts';

const tags = ['Operator'];

export const pricingOperatorRoutes: FastifyPluginAsync<{ ctx: PricingDeps }> = async (app, { ctx }) => {
  app.put<{ Body: Record<string, unknown> }>(
    '/operator/v1/rates',
    {
      schema: {
        tags,
        security: OPERATOR_SECURITY,
        summary: 'Set reference prices in USD (used when RAMPART_RATE_SOURCE=reference)',
        description:
          'Operator token only. Sets the USD price of each currency given (`{"BTC": {"USD": "60000"}}` or `{"BTC": "60000"}`), keeping the others; quotes and /v3/rates use them at once when the rate source is `reference`. Unknown currencies and non-positive prices answer 400 and change nothing. Audited.',
        body: withExample(ReferencePricesBody, referencePricesRequest),
        response: {
          200: withExample(ReferencePricesAnswer, referencePricesAnswer),
          ...errorResponses(400, 401),
        },
      },
    },
    async (request) => {
      const call = operatorAct(request);
      const answer = await setReferencePrices(ctx, call, request.body);
      request.operatorAudited = true;
      return answer;
    },
  );

  app.get(
    '/operator/v1/rates',
    {
      schema: {
        tags,
        security: OPERATOR_SECURITY,
        summary: 'The reference prices in force',
        description:
          'Operator token only. The reference price table (in sandbox over the shipped defaults) and which source quotes use (`reference` or `feed`).',
        response: { 200: withExample(ReferencePricesAnswer, referencePricesAnswer), ...errorResponses(401) },
      },
    },
    async () => referencePrices(ctx),
  );

  app.put<{ Body: FeeScheduleJson }>(
    '/operator/v1/fees',
    {
      schema: {
        tags,
        security: OPERATOR_SECURITY,
        summary: 'Replace the fee schedule (percent + flat per method and source currency, network fees)',
        description:
          'Operator token only. Replaces the whole schedule: per payment method and source currency a percent, a flat fee and the order bounds, and per destination currency the network fee. A method or currency left out can no longer be quoted. percent must be in [0, 50), maxOrder not below minOrder, amounts within the currency’s decimals (400 otherwise, nothing changed). Audited.',
        body: withExample(FeeScheduleBody, feeScheduleExample),
        response: { 200: withExample(FeeScheduleAnswer, feeScheduleExample), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const call = operatorAct(request);
      const answer = await setFeeSchedule(ctx, call, request.body);
      request.operatorAudited = true;
      return answer;
    },
  );

  app.get(
    '/operator/v1/fees',
    {
      schema: {
        tags,
        security: OPERATOR_SECURITY,
        summary: 'The fee schedule in force',
        description:
          'Operator token only. The schedule quotes use now, amounts as exact decimal strings: the shipped default until an operator replaced it.',
        response: { 200: withExample(FeeScheduleAnswer, feeScheduleExample), ...errorResponses(401) },
      },
    },
    async () => feeScheduleView(ctx),
  );
};
