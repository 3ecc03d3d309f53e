import {
  EXAMPLE_CHAIN,
  EXAMPLE_IDS,
  EXAMPLE_TIME,
  exampleTime,
  QUOTE_LIFETIME_SECONDS,
} from '../platform/http/examples.ts';

/** OpenAPI examples of transfers: 25 USD between two users, and an ETH withdrawal to a wallet. */

const payer = `user:${EXAMPLE_IDS.user}`;
const payee = `user:${EXAMPLE_IDS.otherUser}`;

/** Made masquerading as the payer (masqueradeAs=user:US_…); confirmed with the next call. */
export const createTransferRequest = {
  source: payer,
  sourceCurrency: 'USD',
  sourceAmount: '25.00',
  dest: payee,
  destCurrency: 'USD',
  message: 'Rent share, March',
  customId: 'rent-2026-03',
};

type HistoryState = 'INITIATED' | 'PENDING' | 'COMPLETED';
const DETAIL: Record<HistoryState, [number, string]> = {
  INITIATED: [0, 'Initiating Transfer'],
  PENDING: [200, 'Transfer Pending'],
  COMPLETED: [400, 'Transfer Completed'],
};
/** One statusHistories entry (11-character ids, like Wyre's). */
const history = (id: string, transferId: string, state: HistoryState, createdAt: number) => ({
  id,
  transferId,
  createdAt,
  type: 'OUTGOING',
  statusOrder: DETAIL[state][0],
  statusDetail: DETAIL[state][1],
  state,
  failedState: null,
});

const created = history('6E86R4MG3EB', EXAMPLE_IDS.transfer, 'INITIATED', EXAMPLE_TIME);
const confirmedAt = exampleTime(30);

export const unconfirmedTransferAnswer = {
  id: EXAMPLE_IDS.transfer,
  status: 'UNCONFIRMED' as const,
  owner: payer,
  source: payer,
  dest: payee,
  sourceCurrency: 'USD',
  sourceAmount: 25,
  destCurrency: 'USD',
  destAmount: 25,
  exchangeRate: null,
  message: 'Rent share, March',
  customId: 'rent-2026-03',
  fees: { USD: 0 },
  totalFees: 0,
  createdAt: EXAMPLE_TIME,
  updatedAt: EXAMPLE_TIME,
  completedAt: null,
  cancelledAt: null,
  expiresAt: exampleTime(QUOTE_LIFETIME_SECONDS),
  failureReason: null,
  blockchainTx: null,
  statusHistories: [created],
  pendingSubStatus: null,
  reversingSubStatus: null,
  reversalReason: null,
};

/** Between two users of one partner a confirmed transfer completes at once. */
export const completedTransferAnswer = {
  ...unconfirmedTransferAnswer,
  status: 'COMPLETED' as const,
  updatedAt: confirmedAt,
  completedAt: confirmedAt,
  statusHistories: [
    created,
    history('4LD5R6G4NWX', EXAMPLE_IDS.transfer, 'PENDING', confirmedAt),
    history('XJSH5QPF84N', EXAMPLE_IDS.transfer, 'COMPLETED', confirmedAt),
  ],
};

const withdrawalId = EXAMPLE_IDS.withdrawal;
const minedAt = exampleTime(75);
/** 0.1 ETH withdrawn to a wallet (autoConfirm), with the 0.0004 ETH network fee on top. */
export const withdrawalAnswer = {
  ...unconfirmedTransferAnswer,
  id: withdrawalId,
  status: 'COMPLETED' as const,
  dest: `ethereum:${EXAMPLE_CHAIN.ethAddress}`,
  sourceCurrency: 'ETH',
  sourceAmount: 0.1004,
  destCurrency: 'ETH',
  destAmount: 0.1,
  message: null,
  customId: null,
  fees: { ETH: 0.0004 },
  totalFees: 0.0004,
  updatedAt: minedAt,
  completedAt: minedAt,
  blockchainTx: {
    id: EXAMPLE_IDS.chainTx,
    networkTxId: '0x7080e461bfc849b8d84480534493af3ca327abfae80533c7d48cdcf9fef34f5a',
    createdAt: minedAt,
    confirmations: 1,
    timeObserved: minedAt,
    blockTime: minedAt,
    blockhash: '0xf5c5508837ee5bcc3cc81b93498c0e2f62ec0402cfbe0240dbd148cfebb74434',
    amount: 0.1,
    direction: 'OUTGOING',
    networkFee: 0.0004,
    address: EXAMPLE_CHAIN.ethAddress,
    sourceAddress: EXAMPLE_CHAIN.hotWallet,
    currency: 'ETH',
    twinTxId: null,
  },
  statusHistories: [
    history('RV9S4PMXG82', withdrawalId, 'INITIATED', EXAMPLE_TIME),
    history('XCBVJZ5TXH2', withdrawalId, 'PENDING', EXAMPLE_TIME),
    history('RDA4HKC34SB', withdrawalId, 'COMPLETED', minedAt),
  ],
};

/** A list item: the transfer with the history fields of docs/contract.md, decision 65. */
const listItem = (transfer: typeof withdrawalAnswer | typeof completedTransferAnswer) => ({
  ...transfer,
  closedAt: transfer.completedAt,
  sourceName: transfer.source,
  destName: transfer.dest,
  blockchainTxId: transfer.blockchainTx?.networkTxId ?? null,
  destNickname: null,
});

export const transferListAnswer = {
  data: [listItem(withdrawalAnswer), listItem(completedTransferAnswer)],
  position: 0,
  recordsTotal: 2,
  recordsFiltered: 2,
};

/** Sandbox: 0.5 ETH arriving at the example user's deposit address. */
export const depositRequest = {
  dest: `ethereum:${EXAMPLE_CHAIN.userEthDeposit}`,
  currency: 'ETH',
  amount: '0.5',
};
export const depositAnswer = {
  entryId: 6,
  owner: payer,
  chain: 'ethereum',
  address: EXAMPLE_CHAIN.userEthDeposit,
  currency: 'ETH',
  amount: 0.5,
  totalBalances: { ETH: 0.5, USD: 225 },
  availableBalances: { ETH: 0.5, USD: 225 },
};

/** POST /v2/transfers: v2 names the callback `callbackUrl`. */
export const v2CreateTransferRequest = {
  sourceCurrency: 'USD',
  sourceAmount: '25.00',
  dest: 'wallet:WA_M7K2XQ9PBNE',
  message: 'Rent share, March',
  callbackUrl: 'https://partner.example.com/wyre/transfers',
  autoConfirm: true,
};

/** POST /v2/quote: a preview transfer, moving nothing. */
export const previewTransferAnswer = {
  ...unconfirmedTransferAnswer,
  status: 'PREVIEW' as const,
  customId: null,
  statusHistories: [{ ...created, statusDetail: 'Transfer Preview', state: 'PREVIEW' }],
};

/** What anyone holding the id of the completed transfer above sees on the tracker. */
export const trackingAnswer = {
  transferId: EXAMPLE_IDS.transfer,
  feeCurrency: 'USD',
  fee: 0,
  fees: { USD: 0 },
  sourceCurrency: 'USD',
  destCurrency: 'USD',
  sourceAmount: 25,
  destAmount: 25,
  destSrn: payee,
  from: `User ${EXAMPLE_IDS.user}`,
  to: `User ${EXAMPLE_IDS.otherUser}`,
  rate: null,
  customId: 'rent-2026-03',
  status: 'COMPLETED',
  blockchainNetworkTx: null,
  message: 'Rent share, March',
  transferHistoryEntryType: 'OUTGOING' as const,
  successTimeline: completedTransferAnswer.statusHistories.map((step) => ({
    statusDetails: step.statusDetail,
    state: step.state,
    createdAt: step.createdAt,
  })),
  failedTimeline: [],
  failureReason: null,
  reversalReason: null,
};
