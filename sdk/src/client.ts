import { type Caller, callerOf } from './resources/caller.js';
import { AccountsApi, ApiKeysApi, PaymentMethodsApi, SessionsApi, UsersApi } from './resources/identity.js';
import {
  CardsApi,
  LimitsApi,
  OrdersApi,
  RatesApi,
  SubscriptionsApi,
  TransfersApi,
  WidgetApi,
} from './resources/money.js';
import { V2Api, WalletsApi } from './resources/v2.js';
import { type ClientOptions, Transport } from './transport.js';

/** `AC_…`, `account:AC_…` or `user:US_…` (spec §5.5). */
const MASQUERADE_TARGET = /^(?:(?:account:)?AC_|user:US_)[2-9A-HJ-NP-Z]{11}$/;

/**
 * The Rampart partner API. One instance per credential; cheap to create. Every method takes a
 * last `CallOptions` argument (`signal`, `timeoutMs`, `idempotencyKey`, `maxRetries`).
 */
export class RampartClient {
  readonly sessions: SessionsApi;
  readonly apiKeys: ApiKeysApi;
  readonly accounts: AccountsApi;
  readonly users: UsersApi;
  /** A user's bank accounts: use on `client.masquerade('user:US_…')`. */
  readonly paymentMethods: PaymentMethodsApi;
  readonly rates: RatesApi;
  readonly orders: OrdersApi;
  readonly cards: CardsApi;
  readonly widget: WidgetApi;
  readonly limits: LimitsApi;
  readonly transfers: TransfersApi;
  readonly subscriptions: SubscriptionsApi;
  /** v2 wallets (`wallet:WA_…`); masquerade to reach a user's or sub-account's. */
  readonly wallets: WalletsApi;
  /** Wyre's v2 paths: transfers, quote, tracker, rates, legacy account. */
  readonly v2: V2Api;
  private readonly transport: Transport;

  constructor(options: ClientOptions);
  /** @internal used by masquerade() */
  constructor(options: ClientOptions, transport: Transport);
  constructor(options: ClientOptions, transport?: Transport) {
    if (!/^https?:\/\//.test(options.baseUrl)) throw new TypeError('baseUrl must be an http(s) URL');
    this.transport = transport ?? new Transport(options);
    const call: Caller = callerOf(this.transport);
    this.sessions = new SessionsApi(call);
    this.apiKeys = new ApiKeysApi(call);
    this.accounts = new AccountsApi(call);
    this.users = new UsersApi(call);
    this.paymentMethods = new PaymentMethodsApi(call);
    this.rates = new RatesApi(call);
    this.orders = new OrdersApi(call);
    this.cards = new CardsApi(call);
    this.widget = new WidgetApi(call);
    this.limits = new LimitsApi(call);
    this.transfers = new TransfersApi(call);
    this.subscriptions = new SubscriptionsApi(call);
    this.wallets = new WalletsApi(call);
    this.v2 = new V2Api(call);
  }

  /** The masquerade target of this client, if any. */
  get masqueradeAs(): string | undefined {
    return this.transport.masqueradeAs;
  }

  /**
   * A client acting for a sub-account (`AC_…`, `account:AC_…`) or a user (`user:US_…`) with this
   * client's credentials: every request carries `masqueradeAs=<target>` in its (signed) URL.
   */
  masquerade(target: string): RampartClient {
    if (!MASQUERADE_TARGET.test(target)) {
      throw new TypeError(
        `masquerade target must be AC_…, account:AC_… or user:US_…, got ${JSON.stringify(target)}`,
      );
    }
    return new RampartClient(this.transport.options, this.transport.withMasquerade(target));
  }
}
