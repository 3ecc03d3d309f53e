import { EXAMPLE_CHAIN } from '../platform/http/examples.ts';

/**
 * OpenAPI example of a reconciliation: ETH on a chain where customers hold 1.5 ETH, the house
 * inventory 2 ETH and 0.01 ETH of gas revenue, one withdrawal of 0.2 ETH paid out on the ledger
 * and not yet confirmed, and the chain holding exactly what the ledger expects.
 */
export const reconciliationExample = {
  chain: 'ethereum',
  blockNumber: 19_000_000,
  houseDepositAddress: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  hotWalletAddress: EXAMPLE_CHAIN.hotWallet,
  currencies: [
    {
      currency: 'ETH',
      liabilities: 1.5,
      houseInventory: 2,
      houseOther: 0.01,
      pendingWithdrawals: 0.2,
      expectedOnChain: 3.71,
      hotWallet: 3.2,
      depositAddresses: 0.51,
      onChain: 3.71,
      difference: 0,
      balanced: true,
      queuedSends: 0,
      shortfall: 0,
    },
  ],
  balanced: true,
};
