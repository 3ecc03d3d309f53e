import { ApiError, invalidValue, notFound } from '../platform/errors.ts';

/**
 * The chains module's failures: a chain's node out of reach when a payout to it is asked for (one
 * answer for withdrawals, reservations and card orders alike), and a chain's reconciliation
 * (GET /operator/v1/chains/{name}/reconciliation).
 */
export const chainErrors = {
  /** A `blockchains` code Rampart does not know (users' and accounts' deposit addresses). */
  unsupportedBlockchain: (path: string, value: string) =>
    invalidValue(
      path,
      `Unsupported blockchain "${value.slice(0, 16)}"; use BTC, ETH, MATIC, AVAX or ALL.`,
      'validation.unsupportedBlockchain',
    ),
  /** No backend for a requested chain: an address nobody holds the key to is never handed out. */
  depositAddressesUnavailable: () =>
    invalidValue(
      'blockchains',
      'Deposit addresses are only generated in sandbox until a custody backend is configured.',
      'validation.unsupportedBlockchain',
    ),
  /** A payout to the chain cannot be asked for while its node does not answer; nothing was written. */
  unavailable: (chain: string) =>
    new ApiError(
      'ServiceUnavailableException',
      'transfer.chainUnavailable',
      `The ${chain} network cannot be reached right now; try again later.`,
      { transient: true },
    ),
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
