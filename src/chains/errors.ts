import { ApiError, notFound } from '../platform/errors.ts';

/** The chains module's failures: a chain's reconciliation (GET /operator/v1/chains/{name}/reconciliation). */
export const chainErrors = {
  /** No such chain, or one without real custody (no RPC URL: simulated or refused). */
  noCustody: () => notFound('Chain with real custody'),
  /** The chain's node did not answer: nothing is known, ask again. */
  nodeUnreachable: (chain: string) =>
    new ApiError(
      'ServiceUnavailableException',
      'chains.nodeUnreachable',
      `The ${chain} node did not answer; try again.`,
    ),
};
