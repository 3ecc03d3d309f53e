import type { Address, Amount, AmountInput, EpochMs } from './common.js';

export type RatesView = 'DIVISOR' | 'MULTIPLIER' | 'PRICED';

export interface RatesQuery {
  /** DIVISOR (default): source ÷ rate = dest; MULTIPLIER: source × rate = dest; PRICED: both. */
  as?: RatesView;
}

/** Keyed `<FROM><TO>` (e.g. `USDBTC`): an amount, or `{FROM, TO}` amounts for PRICED. */
export type Rates = Record<string, Amount | Record<string, Amount>>;

export type WalletType = 'DEBIT_CARD' | 'APPLE_PAY' | 'WALLET_PAY';

export interface QuoteRequest {
  amount?: AmountInput;
  sourceAmount?: AmountInput;
  destAmount?: AmountInput;
  amountIncludeFees?: boolean;
  sourceCurrency: string;
  destCurrency: string;
  dest?: string;
  accountId?: string;
  country?: string;
  walletType?: WalletType;
  paymentMethod?: string;
}

export interface Quote {
  sourceCurrency: string;
  /** Total charged, fees included. */
  sourceAmount: Amount;
  sourceAmountWithoutFees: Amount;
  destCurrency: string;
  destAmount: Amount;
  /** Destination units per one source unit. */
  exchangeRate: Amount;
  equivalencies: Record<string, Amount>;
  fees: Record<string, Amount>;
}

/** Spec §2.1. With sourceAmount or destAmount the quote is locked for 15 minutes. */
export interface ReserveRequest {
  sourceAmount?: AmountInput;
  destAmount?: AmountInput;
  /** Not rate-locked. */
  amount?: AmountInput;
  /** Note the spelling: amountIncludeFees (transfers say amountIncludesFees). */
  amountIncludeFees?: boolean;
  /** `debit-card` or `apple-pay`. */
  paymentMethod?: string;
  sourceCurrency?: string;
  destCurrency?: string;
  /** `<chain>:<address>` or `account:AC_…`. */
  dest?: string;
  referrerAccountId?: string;
  country?: string;
  redirectUrl?: string;
  failureRedirectUrl?: string;
  autoRedirect?: boolean;
  lockFields?: string[];
  street1?: string;
  city?: string;
  state?: string;
  postalCode?: string;
  firstName?: string;
  lastName?: string;
  phone?: string;
  email?: string;
  referenceId?: string | null;
  hideTrackBtn?: boolean | null;
}

export interface Reserved {
  /** Hosted checkout page for this reservation. */
  url: string;
  /** 20 characters; usable once, for 15 minutes. */
  reservation: string;
}

/** Spec §2.3: the request as stored, plus the locked quote. */
export interface Reservation {
  reservation: string;
  amount: Amount | null;
  sourceAmount: Amount | null;
  destAmount: Amount | null;
  amountIncludeFees: boolean | null;
  sourceCurrency: string | null;
  destCurrency: string | null;
  dest: string | null;
  referrerAccountId: string | null;
  paymentMethod: string | null;
  country: string | null;
  street1: string | null;
  city: string | null;
  state: string | null;
  postalCode: string | null;
  firstName: string;
  lastName: string;
  phone: string;
  email: string;
  redirectUrl: string | null;
  failureRedirectUrl: string | null;
  autoRedirect: boolean | null;
  referenceId: string | null;
  hideTrackBtn: boolean | null;
  lockFields: string[];
  quoteLockRequest: boolean;
  quote: Quote | null;
  createdAt: EpochMs;
  expiresAt: EpochMs;
}

export interface DebitCard {
  number: string;
  /** 4 digits. */
  year: string;
  /** 2 digits. */
  month: string;
  cvv: string;
}

/** POST /v3/debitcard/process/partner (facts §1.9). */
export interface CardOrderRequest {
  debitCard: DebitCard;
  reservationId: string;
  /** For a rate-locked reservation: the quote's sourceAmount (the total charged). */
  amount: AmountInput;
  sourceCurrency: string;
  destCurrency: string;
  dest: string;
  referrerAccountId: string;
  givenName: string;
  familyName: string;
  email: string;
  phone: string;
  referenceId?: string | null;
  address: Address;
  /** The end user's IP address. */
  ipAddress: string;
  trigger3ds?: boolean;
  walletType?: 'DEBIT_CARD' | 'APPLE_PAY';
  /** `user:US_…`: the buyer's own limits (DEBIT_CARD_L2 when approved). */
  owner?: string;
}

export type WalletOrderStatus = 'RUNNING_CHECKS' | 'PROCESSING' | 'COMPLETE' | 'FAILED';

export interface WalletOrder {
  id: string;
  createdAt: EpochMs;
  owner: string;
  status: WalletOrderStatus;
  orderType: string;
  sourceAmount: Amount;
  purchaseAmount: Amount;
  sourceCurrency: string;
  destCurrency: string;
  destAmount: Amount;
  exchangeRate: Amount;
  fees: Record<string, Amount>;
  transferId: string | null;
  dest: string;
  email: string;
  authCodesRequested: boolean;
  paymentMethodName: string;
  accountId: string;
  walletType: string;
  errorMessage: string | null;
  errorCode: string | null;
  failureReason: string | null;
  referenceId: string | null;
  reservationId: string;
  updatedAt: EpochMs;
  completedAt: EpochMs | null;
  /** Wyre's SMS tracking fields, kept for compatibility; null in Rampart. */
  smsSentAt: EpochMs | null;
  smsDeliveredAt: EpochMs | null;
  smsRepliedAt: EpochMs | null;
  smsReplyBody: string | null;
  smsTriggerAt: EpochMs | null;
}

/** GET /v3/orders/{orderId}/full and the items of GET /v3/orders/list. */
export interface FullWalletOrder extends WalletOrder {
  /** `GENERAL` once FAILED, else null. */
  errorCategory: string | null;
  paymentNetworkErrorCode: string | null;
  internalErrorCode: string | null;
}

/** GET /v3/orders/{orderId} without credentials (a buyer's status page): nothing about the buyer. */
export interface PublicWalletOrder {
  id: string;
  status: WalletOrderStatus;
  createdAt: EpochMs;
  sourceCurrency: string;
  sourceAmount: Amount;
  purchaseAmount: Amount;
  destCurrency: string;
  destAmount: Amount;
  dest: string;
  transferId: string | null;
  errorMessage: string | null;
}

/** An Apple Pay contact (PKContact); Apple's other members may be passed along too. */
export interface ApplePayContact {
  givenName?: string;
  familyName?: string;
  addressLines?: string[];
  locality?: string;
  administrativeArea?: string;
  postalCode?: string;
  countryCode?: string;
  emailAddress?: string;
  phoneNumber?: string;
  [member: string]: unknown;
}

/** POST /v3/apple-pay/process/partner. */
export interface ApplePayRequest {
  /** Your own account id. */
  partnerId: string;
  payload: {
    orderRequest: {
      /** Total charged, fees included. */
      amount: AmountInput;
      sourceCurrency: string;
      destCurrency: string;
      dest: string;
      referrerAccountId: string;
      referenceId?: string | null;
      /** A reservation to use; without one the server makes an unlocked one for `amount`. */
      reservationId?: string;
    };
    paymentObject: {
      billingContact: ApplePayContact;
      shippingContact?: ApplePayContact;
      /** Apple's PKPaymentToken, as the device gave it. */
      token: {
        paymentData: unknown;
        paymentMethod: { displayName?: string; network?: string; type?: string; [member: string]: unknown };
        transactionIdentifier?: string;
        [member: string]: unknown;
      };
    };
  };
}

export interface ApplePayOrder {
  /** The wallet order, `WO_…`. */
  id: string;
}

/** One window of one currency of GET /v3/limits; null: not limited in that direction. */
export interface WindowLimit {
  in: Amount;
  out: Amount | null;
  availIn: Amount;
  availOut: Amount | null;
}

/** GET /v3/limits: context → window in hours (`"24"`, `"168"`, `"8760"`) → currency → limit. */
export interface LimitsByContext {
  ACCOUNT: Record<string, Record<string, WindowLimit>>;
  ACH: Record<string, Record<string, WindowLimit>>;
  DEBIT_CARD: Record<string, Record<string, WindowLimit>>;
}

export interface LimitsQuery {
  /** `user:US_…` for one of your users. */
  srn?: string;
}

export interface CardAuthorization {
  walletOrderId: string;
  smsNeeded: boolean;
  card2faNeeded: boolean;
  authorization3dsUrl: string | null;
}

export interface AuthorizeRequest {
  type: 'SMS' | 'CARD2FA' | 'ALL';
  walletOrderId: string;
  reservation: string;
  /** 6 digits; for SMS and ALL. */
  sms?: string;
  /** 6 digits; for CARD2FA and ALL. */
  card2fa?: string;
}

export interface AuthorizeResult {
  walletOrderId: string;
  success: boolean;
}

export interface WalletOrderWebhook {
  /** `account:AC_…`. */
  owner: string;
  webhook: string;
}

/** Spec §4.5. */
export interface LimitsRequest {
  accountId: string;
  address: Address;
  walletType?: 'WALLET_PAY' | 'APPLE_PAY' | 'DEBIT_CARD';
  userId?: string;
  sourceCurrency?: 'USD' | 'EUR' | 'CAD' | 'GBP' | 'AUD';
}

/** Spec §2.4, all in USD. */
export interface Limits {
  dailyTotalSpent: Amount;
  weeklyTotalSpent: Amount;
  yearlyTotalSpent: Amount;
  dailyTotal: Amount;
  weeklyTotal: Amount;
  yearlyTotal: Amount;
  dailyRemaining: Amount;
  weeklyRemaining: Amount;
  yearlyRemaining: Amount;
}

export interface SupportedCountry {
  name: string;
  code: string;
}

/** A card the hosted checkout declined on a reservation: the reason the buyer was not told. */
export interface DeclinedCardAttempt {
  createdAt: EpochMs;
  /** What the partner API would have answered, e.g. `validation.avs.zipcode`. */
  errorCode: string;
  /** The processor's reason, its decline code included. */
  message: string;
}

export interface DeclinedCardAttempts {
  data: DeclinedCardAttempt[];
}

/** How the hosted checkout shows the partner to its buyers. */
export interface CheckoutBranding {
  name: string | null;
  /** `#rrggbb`. */
  accentColor: string | null;
  /** Where Rampart serves the logo (same origin as the checkout). */
  logoUrl: string | null;
}

/**
 * POST /v3/checkout/branding: members left out keep their value, null removes one. `logo` is the
 * image file (PNG, JPEG or WebP, at most 256 KiB) in base64; `accentColor` must keep white text
 * on it readable (contrast at least 4.5:1).
 */
export interface CheckoutBrandingRequest {
  name?: string | null;
  accentColor?: string | null;
  logo?: string | null;
}

/** POST /v3/orders/{orderId}/refund/partner's answer: the order's refund. */
export interface WalletOrderRefund {
  walletOrderId: string;
  createdAt: number;
  /** Who asked: `account:AC_…`, `operator:<name>`, `system` or `processor`. */
  requester: string;
  status: 'PENDING' | 'COMPLETE' | 'FAILED';
  finishedAt: number | null;
  failedReason: string | null;
}
