import type { CallOptions } from '../transport.js';
import type { ListPage, ListQuery } from '../types/common.js';
import type {
  ApplePayOrder,
  ApplePayRequest,
  AuthorizeRequest,
  AuthorizeResult,
  CardAuthorization,
  CardOrderRequest,
  CheckoutBranding,
  CheckoutBrandingRequest,
  DeclinedCardAttempts,
  FullWalletOrder,
  Limits,
  LimitsByContext,
  LimitsQuery,
  LimitsRequest,
  Quote,
  QuoteRequest,
  Rates,
  RatesQuery,
  Reservation,
  Reserved,
  ReserveRequest,
  SupportedCountry,
  WalletOrder,
  WalletOrderRefund,
  WalletOrderWebhook,
} from '../types/orders.js';
import type {
  CreateSubscriptionRequest,
  CreateTransferRequest,
  SigningSecret,
  Subscription,
  Transfer,
} from '../types/transfers.js';
import type { Caller } from './caller.js';

export class RatesApi {
  constructor(private readonly call: Caller) {}

  /** GET /v3/rates (no auth): every value an exact decimal string. */
  get(query: RatesQuery = {}, options?: CallOptions): Promise<Rates> {
    return this.call('getRates', { query: { as: query.as } }, options);
  }
}

export class OrdersApi {
  constructor(private readonly call: Caller) {}

  /** POST /v3/orders/quote/partner: an unlocked quote. */
  quote(request: QuoteRequest, options?: CallOptions): Promise<Quote> {
    return this.call('quote', { json: request }, options);
  }

  /** POST /v3/orders/reserve: with sourceAmount or destAmount the quote is locked for 15 minutes. */
  reserve(request: ReserveRequest, options?: CallOptions): Promise<Reserved> {
    return this.call('reserve', { json: request }, options);
  }

  getReservation(reservationId: string, options?: CallOptions): Promise<Reservation> {
    return this.call('getReservation', { pathParams: { reservationId } }, options);
  }

  /**
   * GET /v3/orders/reservation/{reservationId}/cardAttempts: the cards its hosted checkout
   * declined, with the processor's reasons the buyer was not told.
   */
  cardAttempts(reservationId: string, options?: CallOptions): Promise<DeclinedCardAttempts> {
    return this.call('getCardAttempts', { pathParams: { reservationId } }, options);
  }

  /** GET /v3/checkout/branding: how the hosted checkout shows this partner. */
  checkoutBranding(options?: CallOptions): Promise<CheckoutBranding> {
    return this.call('getCheckoutBranding', {}, options);
  }

  /** POST /v3/checkout/branding: the hosted checkout's name, logo (base64) and accent colour. */
  setCheckoutBranding(request: CheckoutBrandingRequest, options?: CallOptions): Promise<CheckoutBranding> {
    return this.call('setCheckoutBranding', { json: request }, options);
  }

  /** GET /v3/orders/{orderId}: a wallet order. */
  get(orderId: string, options?: CallOptions): Promise<WalletOrder> {
    return this.call('getWalletOrder', { pathParams: { orderId } }, options);
  }

  /** GET /v3/orders/{orderId}/full: the order with its failure details. */
  getFull(orderId: string, options?: CallOptions): Promise<FullWalletOrder> {
    return this.call('getFullWalletOrder', { pathParams: { orderId } }, options);
  }

  /**
   * POST /v3/orders/{orderId}/refund/partner: a void before capture, the whole charge before
   * delivery; a delivered order is refused (400 `refund.afterDelivery`).
   */
  refund(orderId: string, options?: CallOptions): Promise<WalletOrderRefund> {
    return this.call('refundWalletOrder', { pathParams: { orderId } }, options);
  }

  /** GET /v3/orders/list: the acting account's (or masqueraded user's) orders, newest first. */
  list(query: ListQuery = {}, options?: CallOptions): Promise<ListPage<FullWalletOrder>> {
    return this.call('listWalletOrders', { query: { offset: query.offset, limit: query.limit } }, options);
  }

  /** POST /v2/digitalwallet/webhook: where wallet-order events are POSTed. */
  setWebhook(request: WalletOrderWebhook, options?: CallOptions): Promise<WalletOrderWebhook> {
    return this.call('setWalletOrderWebhook', { json: request }, options);
  }
}

/** White-label card processing (facts §1.9). */
export class CardsApi {
  constructor(private readonly call: Caller) {}

  /** POST /v3/debitcard/process/partner: consumes the reservation; answers the RUNNING_CHECKS order. */
  process(request: CardOrderRequest, options?: CallOptions): Promise<WalletOrder> {
    return this.call('processCardOrder', { json: request }, options);
  }

  authorization(orderId: string, options?: CallOptions): Promise<CardAuthorization> {
    return this.call('getCardAuthorization', { pathParams: { orderId } }, options);
  }

  /**
   * GET /v3/debitcard/authorization/{orderId}/with-redirection: as authorization(), but the
   * 3-D Secure page sends the buyer on to the reservation's redirectUrl or failureRedirectUrl.
   */
  authorizationWithRedirection(orderId: string, options?: CallOptions): Promise<CardAuthorization> {
    return this.call('getCardAuthorizationWithRedirection', { pathParams: { orderId } }, options);
  }

  /** POST /v3/apple-pay/process/partner: an Apple Pay payment token pays a wallet order. */
  applePay(request: ApplePayRequest, options?: CallOptions): Promise<ApplePayOrder> {
    return this.call('processApplePay', { json: request }, options);
  }

  /** Codes count attempts (5 at most), so this is not retried after a network failure unless keyed. */
  authorize(request: AuthorizeRequest, options?: CallOptions): Promise<AuthorizeResult> {
    return this.call('authorizeCard', { json: request }, options);
  }
}

/** GET /v3/limits: the limits the server enforces, in Wyre's nesting. */
export class LimitsApi {
  constructor(private readonly call: Caller) {}

  get(query: LimitsQuery = {}, options?: CallOptions): Promise<LimitsByContext> {
    return this.call('getLimits', { query: { srn: query.srn } }, options);
  }
}

/** The hosted-widget helpers (no auth). */
export class WidgetApi {
  constructor(private readonly call: Caller) {}

  calculateLimits(request: LimitsRequest, options?: CallOptions): Promise<Limits> {
    return this.call('calculateLimits', { json: request }, options);
  }

  supportedCountries(options?: CallOptions): Promise<SupportedCountry[]> {
    return this.call('supportedCountries', {}, options);
  }
}

export class TransfersApi {
  constructor(private readonly call: Caller) {}

  create(request: CreateTransferRequest, options?: CallOptions): Promise<Transfer> {
    return this.call('createTransfer', { json: request }, options);
  }

  /** Confirms an UNCONFIRMED transfer before its expiresAt. */
  confirm(transferId: string, options?: CallOptions): Promise<Transfer> {
    return this.call('confirmTransfer', { pathParams: { transferId } }, options);
  }

  get(transferId: string, options?: CallOptions): Promise<Transfer> {
    return this.call('getTransfer', { pathParams: { transferId } }, options);
  }

  list(query: ListQuery = {}, options?: CallOptions): Promise<ListPage<Transfer>> {
    return this.call('listTransfers', { query: { offset: query.offset, limit: query.limit } }, options);
  }
}

export class SubscriptionsApi {
  constructor(private readonly call: Caller) {}

  create(request: CreateSubscriptionRequest, options?: CallOptions): Promise<Subscription> {
    return this.call('createSubscription', { json: request }, options);
  }

  list(query: ListQuery = {}, options?: CallOptions): Promise<ListPage<Subscription>> {
    return this.call('listSubscriptions', { query: { offset: query.offset, limit: query.limit } }, options);
  }

  /** One subscription, implicit ones (from a transfer's notifyUrl) included. */
  get(subscriptionId: string, options?: CallOptions): Promise<Subscription> {
    return this.call('getSubscription', { pathParams: { subscriptionId } }, options);
  }

  /** No further callbacks (queued ones still go out); answers the subscription as it was. */
  delete(subscriptionId: string, options?: CallOptions): Promise<Subscription> {
    return this.call('deleteSubscription', { pathParams: { subscriptionId } }, options);
  }

  /** The key callbacks are signed with; pass it to verifyCallback(). */
  signingSecret(options?: CallOptions): Promise<SigningSecret> {
    return this.call('getSigningSecret', {}, options);
  }
}
