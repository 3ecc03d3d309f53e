import type { FastifyPluginAsync } from 'fastify';
import { operatorAction } from '../operator/auth.ts';
import type { AppContext } from '../platform/context.ts';
import { errorResponses, OPERATOR_SECURITY } from '../platform/http/openapi.ts';
import type { FeeScheduleJson } from './fees.ts';
import { FeeScheduleAnswer, FeeScheduleBody, ReferencePricesAnswer, ReferencePricesBody } from './schemas.ts';
import { feeScheduleView, referencePrices, setFeeSchedule, setReferencePrices } from './service.ts';

const tags = ['Operator'];

export const pricingOperatorRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.put<{ Body: Record<string, unknown> }>(
    '/operator/v1/rates',
    {
      schema: {
        tags,
        security: OPERATOR_SECURITY,
        summary: 'Set reference prices in USD (used when RAMPART_RATE_SOURCE=reference)',
        body: ReferencePricesBody,
        response: { 200: ReferencePricesAnswer, ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const call = { action: operatorAction(request), remoteIp: request.ip };
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
        response: { 200: ReferencePricesAnswer, ...errorResponses(401) },
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
        body: FeeScheduleBody,
        response: { 200: FeeScheduleAnswer, ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const call = { action: operatorAction(request), remoteIp: request.ip };
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
        response: { 200: FeeScheduleAnswer, ...errorResponses(401) },
      },
    },
    async () => feeScheduleView(ctx),
  );
};
