import { addressSpendKey, checkBillingAddress } from './billing-address.ts';
import { limitErrors } from './errors.ts';
import type { CalculateBody } from './schemas.ts';
import { currentLimits, type LimitsDeps, type LimitsView, tierOfUser } from './service.ts';

/**
 * POST /v3/widget/limits/calculate (docs/contract.md, Card limits): the address's limits and spend in USD; with
 * `userId`, the user's spend counts too and its DEBIT_CARD_L2 scope picks the higher table.
 * walletType and sourceCurrency are validated but change nothing: limits are one USD figure for
 * card and wallet-pay alike.
 */
export async function calculateLimits(ctx: LimitsDeps, body: CalculateBody): Promise<LimitsView> {
  const address = checkBillingAddress(body.address);
  const partnerId = await ctx.limitReads.partnerOf(body.accountId);
  if (!partnerId) throw limitErrors.unknownAccount();
  const tier = await tierOfUser(ctx.db, partnerId, body.userId, 'userId');
  const keys = [addressSpendKey(address)];
  if (body.userId !== undefined) keys.push(`user:${body.userId}`);
  return currentLimits(ctx, { partnerId, country: address.country, tier }, keys);
}
