import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { operatorAct } from '../operator/index.ts';
import { runIdempotent, sendIdempotent } from '../platform/http/idempotency.ts';
import { errorResponses, OPERATOR_SECURITY, withExample } from '../platform/http/openapi.ts';
import { type CreditInput, creditOwner } from './credits.ts';
import { creditAnswer, creditRequest } from './examples.ts';
import type { LedgerDeps } from './owners.ts';

const Amount = Type.Union([Type.String({ maxLength: 64 }), Type.Number()], {
  description: "Decimal amount as a string or number; at most the currency's decimals",
});

const CreditBody = Type.Object(
  {
    owner: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'account:AC_…, user:US_… or wallet:WA_…',
    }),
    currency: Type.String({ pattern: '^[A-Z]{3,5}$' }),
    amount: Amount,
    memo: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);

const Balances = Type.Record(Type.String(), Type.Number());
const CreditAnswer = Type.Object({
  entryId: Type.Integer(),
  owner: Type.String(),
  currency: Type.String(),
  amount: Type.Number(),
  totalBalances: Balances,
  availableBalances: Balances,
});

export const ledgerOperatorRoutes: FastifyPluginAsync<{ ctx: LedgerDeps }> = async (app, { ctx }) => {
  app.post<{ Body: CreditInput }>(
    '/operator/v1/ledger/credits',
    {
      schema: {
        tags: ['Operator'],
        security: OPERATOR_SECURITY,
        summary: 'Fund a balance from external:bank (double-entry), audited',
        description:
          'Operator token only. Credits an account, user or wallet (`account:AC_…`, `user:US_…`, `wallet:WA_…`) with money received outside the service: one double-entry posting from external:bank, audited in the same transaction, answered with the owner’s balances after it. The amount must be positive within the currency’s decimals; an unknown owner or currency answers 400. Repeat safely with an Idempotency-Key.',
        body: withExample(CreditBody, creditRequest),
        response: { 200: withExample(CreditAnswer, creditAnswer), ...errorResponses(400, 401, 409, 422) },
      },
    },
    async (request, reply) => {
      const act = operatorAct(request);
      const outcome = await runIdempotent(ctx, request, 'operator', (tx) =>
        creditOwner(ctx.owners, tx, act, request.body),
      );
      request.operatorAudited = true;
      return sendIdempotent(reply, outcome);
    },
  );
};
