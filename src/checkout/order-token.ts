import { createHmac } from 'node:crypto';
import { secretsEqual } from '../platform/crypto.ts';

/**
 * Binds a wallet order to the reservation it was made from, so the page's status and code
 * endpoints answer only to whoever holds both the reservation (the buyer's capability) and the
 * order. Stateless: any node checks it, and nothing about the order is stored by the page.
 */
function tokenKey(masterKey: Buffer): Buffer {
  // A key of its own, so this MAC can never be confused with another HMAC under the master key.
  return createHmac('sha256', masterKey).update('rampart:checkout-order:v1').digest();
}

export function orderToken(masterKey: Buffer, orderId: string, reservation: string): string {
  return createHmac('sha256', tokenKey(masterKey)).update(`${orderId}.${reservation}`).digest('base64url');
}

export function orderTokenValid(masterKey: Buffer, orderId: string, reservation: string, token: string) {
  return secretsEqual(token, orderToken(masterKey, orderId, reservation));
}
