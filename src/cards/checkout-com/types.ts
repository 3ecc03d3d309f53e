/**
 * Checkout.com's payment objects, for the fields Rampart sends and reads. checkout-sdk-node types
 * its request bodies and answers as `Object`, so the field types here are written from
 * Checkout.com's API reference (https://api-reference.checkout.com, "Payments": Request a
 * payment or payout, Get payment details, Capture / Void / Refund a payment; and
 * https://www.checkout.com/docs/resources/codes/response-codes for `response_code`). Amounts are
 * integers in the currency's minor unit.
 */

export interface CkoAddress {
  address_line1?: string;
  city?: string;
  state?: string;
  zip?: string;
  /** ISO 3166-1 alpha-2. */
  country?: string;
}

/** A card as POST /tokens takes it (the SDK's `tokens.request`): exchanged for a `tok_…`. */
export interface CkoCardTokenRequest {
  type: 'card';
  number: string;
  expiry_month: number;
  expiry_year: number;
  cvv?: string;
  name?: string;
  billing_address?: CkoAddress;
  phone?: { number: string };
}

export interface CkoCardTokenResponse {
  type: 'card';
  token: string;
  expires_on: string;
}

/** `source.type: "token"`: the card of an earlier POST /tokens. */
export interface CkoTokenSource {
  type: 'token';
  token: string;
  billing_address?: CkoAddress;
}

/** `source.type: "card"`: the card itself, server-side (full PCI scope). */
export interface CkoCardSource extends Omit<CkoCardTokenRequest, 'type'> {
  type: 'card';
}

/** POST /payments. `capture: false` holds the amount until POST /payments/{id}/captures. */
export interface CkoPaymentRequest {
  source: CkoTokenSource | CkoCardSource;
  amount: number;
  /** ISO 4217. */
  currency: string;
  payment_type?: 'Regular' | 'Recurring' | 'MOTO' | 'Installment' | 'Unscheduled';
  /** Rampart's order id: Checkout.com's dashboard and events carry it. */
  reference: string;
  capture: boolean;
  '3ds'?: {
    enabled: boolean;
    attempt_n3d?: boolean;
    challenge_indicator?:
      | 'no_preference'
      | 'no_challenge_requested'
      | 'challenge_requested'
      | 'challenge_requested_mandate';
  };
  /** Where the buyer lands after 3-D Secure, approved or not. */
  success_url?: string;
  failure_url?: string;
  customer?: { email?: string; name?: string };
  metadata?: Record<string, string>;
}

/** POST /payments/{id}/captures; without `amount` the whole authorized amount. */
export interface CkoCaptureRequest {
  amount?: number;
  reference?: string;
  metadata?: Record<string, string>;
}

/** POST /payments/{id}/voids. */
export interface CkoVoidRequest {
  reference?: string;
  metadata?: Record<string, string>;
}

/** POST /payments/{id}/refunds; without `amount` the whole captured amount. */
export interface CkoRefundRequest {
  amount?: number;
  reference?: string;
  metadata?: Record<string, string>;
}

export type CkoPaymentStatus =
  | 'Pending'
  | 'Authorized'
  | 'Card Verified'
  | 'Voided'
  | 'Partially Captured'
  | 'Captured'
  | 'Partially Refunded'
  | 'Refunded'
  | 'Declined'
  | 'Canceled'
  | 'Expired'
  | 'Paid'
  | 'Retry Scheduled';

export interface CkoLink {
  href: string;
}

/**
 * A payment: the 201 (processed) and 202 (pending, e.g. 3-D Secure) answers of POST /payments,
 * and GET /payments/{id}. A 202 answer carries little more than `id`, `status` and `_links`.
 */
export interface CkoPayment {
  id: string;
  action_id?: string;
  amount?: number;
  currency?: string;
  approved?: boolean;
  status: CkoPaymentStatus;
  auth_code?: string;
  response_code?: string;
  response_summary?: string;
  reference?: string;
  /** When the authorization lapses if not captured (ISO 8601). */
  expires_on?: string;
  processed_on?: string;
  '3ds'?: { downgraded?: boolean; enrolled?: 'Y' | 'N' | 'U' };
  balances?: {
    total_authorized: number;
    total_voided: number;
    available_to_void: number;
    total_captured: number;
    available_to_capture: number;
    total_refunded: number;
    available_to_refund: number;
  };
  _links: {
    self: CkoLink;
    /** Set on a 202 Pending answer: the issuer's 3-D Secure page for the buyer. */
    redirect?: CkoLink;
    capture?: CkoLink;
    void?: CkoLink;
    refund?: CkoLink;
  };
}

/** The 202 answer of a capture, a void or a refund: accepted, not yet done. */
export interface CkoActionAccepted {
  action_id: string;
  reference?: string;
  _links?: { payment: CkoLink };
}
