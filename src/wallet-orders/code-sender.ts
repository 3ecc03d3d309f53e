import { randomInt } from 'node:crypto';

export type CodeKind = 'SMS' | 'CARD2FA';

/**
 * The SMS / card-statement code port: draws the code an issuer's extra step asks for, and says
 * which kinds of code it can get to the buyer. Rampart keeps only the code's keyed hash.
 *
 * Delivery never happens inside the order's transaction (a remote call there would hold the
 * order's locks for its duration, and a rollback after it would have sent a code for an order
 * that does not exist): a sender with a `channel` has each code it draws queued, sealed, as a
 * job in the order's own transaction, and the job sends it after COMMIT and retries until the
 * channel confirms (code-delivery.ts; docs/contract.md, decision 123). A sender without one
 * delivers nothing, and queues nothing.
 */
export interface CodeSender {
  /** The kinds of code the buyer can receive from this sender; a step asks for no other. */
  readonly delivers: readonly CodeKind[];
  /** A new code for `kind` of order `orderId`. */
  issue(orderId: string, kind: CodeKind): string;
  /** Where the queued codes go, after COMMIT. */
  readonly channel?: SmsChannel;
}

/** A text message to one phone, as an SMS provider takes it. */
export interface SmsMessage {
  /** E.164, as the order's `phone` carries it. */
  to: string;
  body: string;
}

/**
 * An SMS provider's answer. `unconfirmed`: no clear answer (a timeout, a 5xx, a lost
 * connection): the job asks again. `refused`: the provider answered that this message cannot
 * be sent (an invalid or unreachable number, a rejected sender); asking again changes nothing.
 * `detail` never carries the code, the phone number or a credential: it is logged and stored.
 */
export type SmsOutcome =
  | { sent: true; reference: string }
  | { sent: false; unconfirmed: true; detail: string }
  | { sent: false; unconfirmed: false; detail: string };

/** The SMS provider port: Twilio in production (twilio-sms.ts). */
export interface SmsChannel {
  readonly name: string;
  send(message: SmsMessage): Promise<SmsOutcome>;
}

/** Six random digits, as every real step draws them. */
export const randomCode = () => String(randomInt(0, 1_000_000)).padStart(6, '0');

/**
 * Sandbox: both codes are always this (Wyre's own samples send "000000"), so tests and the hosted
 * page demo can complete them; nothing is sent and no job is queued.
 */
const SANDBOX_AUTHORIZATION_CODE = '000000';

export const sandboxCodeSender: CodeSender = {
  delivers: ['SMS', 'CARD2FA'],
  issue: () => SANDBOX_AUTHORIZATION_CODE,
};

/**
 * Production without an SMS provider: it delivers no code, so an order whose card needs one is
 * refused before it is placed (walletOrderErrors.codesUndeliverable) rather than left to expire.
 */
export const undeliveredCodes: CodeSender = { delivers: [], issue: randomCode };

/**
 * Production with an SMS provider: random SMS codes sent through `channel`. CARD2FA codes ride
 * on a small authorization's statement descriptor, which is the card connector's to carry, not
 * an SMS provider's: this sender does not deliver them, so its orders ask for the SMS code only.
 */
export function smsCodeSender(channel: SmsChannel): CodeSender {
  return { delivers: ['SMS'], issue: randomCode, channel };
}
