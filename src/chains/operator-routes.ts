import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { errorResponses, OPERATOR_SECURITY, withExample } from '../platform/http/openapi.ts';
import { reconciliationExample } from './examples.ts';
import type { ChainsDeps } from './port.ts';
import { reconcileChain } from './reconciliation.ts';

const ChainParams = Type.Object({ name: Type.String({ maxLength: 32 }) }, { additionalProperties: false });

const CurrencyLine = Type.Object({
  currency: Type.String(),
  liabilities: Type.Number(),
  houseInventory: Type.Number(),
  houseOther: Type.Number(),
  pendingWithdrawals: Type.Number(),
  expectedOnChain: Type.Number(),
  hotWallet: Type.Number(),
  depositAddresses: Type.Number(),
  onChain: Type.Number(),
  difference: Type.Number(),
  balanced: Type.Boolean(),
  queuedSends: Type.Number(),
  shortfall: Type.Number(),
});

const Reconciliation = Type.Object({
  chain: Type.String(),
  blockNumber: Type.Integer(),
  houseDepositAddress: Type.String(),
  hotWalletAddress: Type.String(),
  currencies: Type.Array(CurrencyLine),
  balanced: Type.Boolean(),
});

export const chainsOperatorRoutes: FastifyPluginAsync<{ ctx: ChainsDeps }> = async (app, { ctx }) => {
  app.get<{ Params: { name: string } }>(
    '/operator/v1/chains/:name/reconciliation',
    {
      schema: {
        tags: ['Operator'],
        security: OPERATOR_SECURITY,
        summary: "A chain's custody on chain against the ledger",
        description:
          'Operator token only. Per currency of the chain: what customers hold on the ledger (liabilities), the house inventory and other house balances, the sends paid out on the ledger the chain has not confirmed (pendingWithdrawals), against what the hot wallet and the deposit addresses hold at the last block the watcher credited. `houseDepositAddress` is where the operator deposits to fund the inventory; `shortfall` is what the hot wallet lacks to pay the sends still queued (card deliveries waiting for funds among them). Amounts are numbers in currency units (strings with format=json_numberstring). 404 for a chain without real custody (no RPC URL); 503 when its node does not answer.',
        params: ChainParams,
        response: {
          200: withExample(Reconciliation, reconciliationExample),
          ...errorResponses(401, 404, 503),
        },
      },
    },
    (request) => reconcileChain(ctx, request.params.name),
  );
};
