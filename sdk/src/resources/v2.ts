import type { CallOptions } from '../transport.js';
import type { ListQuery } from '../types/common.js';
import type { Rates, RatesQuery } from '../types/orders.js';
import type { Transfer } from '../types/transfers.js';
import type {
  CreateWalletRequest,
  LegacyAccount,
  TransferTracking,
  UpdateWalletRequest,
  V2CreateTransferRequest,
  Wallet,
  WalletList,
} from '../types/v2.js';
import type { Caller } from './caller.js';

/** v2 wallets: use `client.masquerade('user:US_…')` to make or reach a user's wallets. */
export class WalletsApi {
  constructor(private readonly call: Caller) {}

  create(request: CreateWalletRequest, options?: CallOptions): Promise<Wallet> {
    return this.call('createWallet', { json: request }, options);
  }

  /** All or nothing: one refused wallet refuses the batch, listing every refused one. */
  createMany(wallets: CreateWalletRequest[], options?: CallOptions): Promise<Wallet[]> {
    return this.call('createWallets', { json: { wallets } }, options);
  }

  get(walletId: string, options?: CallOptions): Promise<Wallet> {
    return this.call('getWallet', { pathParams: { walletId } }, options);
  }

  /** The wallet of this name owned by the party the client acts as. */
  findByName(name: string, options?: CallOptions): Promise<Wallet> {
    return this.call('findWallet', { query: { name } }, options);
  }

  update(walletId: string, request: UpdateWalletRequest, options?: CallOptions): Promise<Wallet> {
    return this.call('updateWallet', { pathParams: { walletId }, json: request }, options);
  }

  /** Refused while the wallet holds any balance. */
  delete(walletId: string, options?: CallOptions): Promise<Record<string, never>> {
    return this.call('deleteWallet', { pathParams: { walletId } }, options);
  }

  list(query: ListQuery = {}, options?: CallOptions): Promise<WalletList> {
    return this.call('listWallets', { query: { offset: query.offset, limit: query.limit } }, options);
  }
}

/** Wyre's v2 paths of transfers, rates and the account, for code written against them. */
export class V2Api {
  constructor(private readonly call: Caller) {}

  createTransfer(request: V2CreateTransferRequest, options?: CallOptions): Promise<Transfer> {
    return this.call('createTransferV2', { json: request }, options);
  }

  /** POST /v2/quote: the transfer as a PREVIEW; nothing moves. */
  quote(request: V2CreateTransferRequest, options?: CallOptions): Promise<Transfer> {
    return this.call('quoteTransferV2', { json: request }, options);
  }

  getTransfer(transferId: string, options?: CallOptions): Promise<Transfer> {
    return this.call('getTransferV2', { pathParams: { transferId } }, options);
  }

  transferByCustomId(customId: string, options?: CallOptions): Promise<Transfer> {
    return this.call('findTransferV2', { query: { customId } }, options);
  }

  confirmTransfer(transferId: string, options?: CallOptions): Promise<Transfer> {
    return this.call('confirmTransferV2', { pathParams: { transferId } }, options);
  }

  /** GET /v2/transfer/{transferId}/track (no auth). */
  track(transferId: string, options?: CallOptions): Promise<TransferTracking> {
    return this.call('trackTransfer', { pathParams: { transferId } }, options);
  }

  rates(query: RatesQuery = {}, options?: CallOptions): Promise<Rates> {
    return this.call('getRatesV2', { query: { as: query.as } }, options);
  }

  /** The account the client acts as, or `accountId` (a sub-account), in the legacy shape. */
  account(accountId?: string, options?: CallOptions): Promise<LegacyAccount> {
    return accountId === undefined
      ? this.call('getLegacyAccount', {}, options)
      : this.call('getLegacyAccountById', { pathParams: { accountId } }, options);
  }
}
