import { createHmac } from 'node:crypto';
import { secretsEqual } from '../platform/crypto.ts';
import type { WalletOrdersDeps } from './deps.ts';

/**
 * The capability in a 3-D Secure page's path (the simulated issuer's, or a remote processor's
 * start and return routes): HMAC of the order id, so nobody else can decide or resolve it.
 */
export function threeDsCapability(ctx: Pick<WalletOrdersDeps, 'config'>, orderId: string): string {
  const key = createHmac('sha256', ctx.config.masterKey).update('rampart sandbox 3ds v1').digest();
  return createHmac('sha256', key).update(orderId).digest('base64url').slice(0, 32);
}

export function threeDsCapabilityValid(
  ctx: Pick<WalletOrdersDeps, 'config'>,
  orderId: string,
  token: string,
): boolean {
  return secretsEqual(token, threeDsCapability(ctx, orderId));
}
