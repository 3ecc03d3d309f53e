import { EXAMPLE_CHAIN, EXAMPLE_IDS, EXAMPLE_TIME } from '../platform/http/examples.ts';

/** OpenAPI examples of v2 wallets: the example user's savings wallet, holding 25 USD. */

export const EXAMPLE_WALLET_ID = 'WA_M7K2XQ9PBNE';

export const createWalletRequest = {
  name: 'deandre-savings',
  callbackUrl: 'https://partner.example.com/wyre/wallets',
  notes: 'Savings of the example user',
  type: 'SAVINGS' as const,
};

export const walletAnswer = {
  id: EXAMPLE_WALLET_ID,
  srn: `wallet:${EXAMPLE_WALLET_ID}`,
  name: 'deandre-savings',
  owner: `user:${EXAMPLE_IDS.user}`,
  status: null,
  type: 'SAVINGS' as const,
  callbackUrl: 'https://partner.example.com/wyre/wallets',
  notes: 'Savings of the example user',
  pusherChannel: '5f0c2a9e8d7b4c3a2f1e0d9c8b7a6f5e',
  depositAddresses: { ETH: EXAMPLE_CHAIN.userEthDeposit, BTC: EXAMPLE_CHAIN.userBtcDeposit },
  balances: { USD: 25 },
  totalBalances: { USD: 25 },
  availableBalances: { USD: 25 },
  verificationData: null,
  createdAt: EXAMPLE_TIME,
};

export const createWalletsRequest = {
  wallets: [
    { name: 'deandre-savings', type: 'SAVINGS' },
    { name: 'deandre-spending', notes: 'Everyday spending' },
  ],
};

export const updateWalletRequest = { notes: 'Savings for the summer', verificationData: { reviewed: true } };
