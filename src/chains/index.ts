/** The public face of chains/: what routes and other domains use. Inside chains/, files import each other directly. */

export {
  CHAINS,
  type Chain,
  chainsForCurrency,
  isChain,
  type Network,
  networkFor,
  parseChainSrn,
} from './addresses.ts';
export {
  assignDepositAddresses,
  chainsRequested,
  completeDepositAddresses,
  depositAddressesOf,
  depositAddressesOfOwners,
  findDepositAddressOwner,
  withEveryChain,
} from './deposit-addresses.ts';
export { chainErrors } from './errors.ts';
export { parseCustodySeed } from './evm/custody-seed.ts';
export {
  type EvmChainSettings,
  type EvmSendSettings,
  parseEvmChains,
  parseEvmSendSettings,
} from './evm/settings.ts';
export { onSweepGasOutcome, SWEEP_GAS } from './evm/sweep-gas.ts';
export { KnownDepositAddresses } from './known-addresses.ts';
export { chainsOperatorRoutes } from './operator-routes.ts';
export {
  type ChainBackend,
  type ChainDeposit,
  type ChainOutcome,
  type ChainOutcomeHandler,
  type ChainReconciliation,
  type ChainSend,
  type ChainsDeps,
  chainBooksGas,
  chainCarries,
  chainDestinationRefusal,
  chainReachable,
  chainSendsAvailable,
  checkChainIds,
  closeChainBackends,
  registerChainSettlers,
  registerChainWatchers,
  requestChainSend,
  requestChainSends,
  stopChainSend,
} from './port.ts';
export { chainsWithCustody, reconcileChain } from './reconciliation.ts';
export { sandboxChain } from './sandbox-chain.ts';
