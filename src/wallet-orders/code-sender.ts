import { randomInt } from 'node:crypto';

/**
 * The SMS / card-statement code port: draws the code an issuer's extra step asks for and sends
 * it to the buyer (SMS to the order's phone; CARD2FA on the card statement). Rampart keeps only
 * the code's keyed hash.
 */
export interface CodeSender {
  /** A new code for `kind` of order `orderId`; the sender delivers it to the buyer. */
  issue(orderId: string, kind: 'SMS' | 'CARD2FA'): string;
}

/**
 * Sandbox: both codes are always this (Wyre's own samples send "000000"), so tests and the hosted
 * page demo can complete them.
 */
const SANDBOX_AUTHORIZATION_CODE = '000000';

export const sandboxCodeSender: CodeSender = { issue: () => SANDBOX_AUTHORIZATION_CODE };

/**
 * Production's codes are random; no SMS or statement descriptor channel delivers them yet
 * (docs/sandbox-cards.md), so an order that needs them can only expire.
 */
export const undeliveredCodes: CodeSender = {
  issue: () => String(randomInt(0, 1_000_000)).padStart(6, '0'),
};
