import type { Queryable, Tx } from '../platform/db/pool.ts';
import { isId } from '../platform/ids.ts';
import { findAccountById } from './accounts-store.ts';
import { identityErrors } from './errors.ts';
import { tieSessionKeyToUser } from './keys-store.ts';
import type { Caller, Scope } from './types.ts';

/** `PT_…` names a partner by its master account's id under another prefix (users/user-view partnerRef). */
function partnerAccountId(partnerId: unknown): string | undefined {
  if (typeof partnerId !== 'string' || !partnerId.startsWith('PT_')) return undefined;
  const accountId = `AC_${partnerId.slice(3)}`;
  return isId(accountId, 'AC') ? accountId : undefined;
}

/**
 * The scope an untied decentralized token creates its user in (docs/contract.md, decision 95):
 * the partner's master account acting as itself, as when the partner creates a user, so the user
 * is owned and billed as the partner's. An unknown partner, one that is not a master, or one
 * whose Users API is off get the same 400, so the answer never tells which ids exist.
 */
export async function sessionUserScope(q: Queryable, caller: Caller, partnerId: unknown): Promise<Scope> {
  const accountId = partnerAccountId(partnerId);
  const partner = accountId === undefined ? undefined : await findAccountById(q, accountId);
  if (partner?.kind !== 'master' || !partner.users_api_enabled || partner.status === 'CLOSED')
    throw identityErrors.unknownPartner();
  const account = {
    id: partner.id,
    partnerId: partner.partner_id,
    kind: partner.kind,
    usersApiEnabled: true,
  };
  return {
    partnerId: partner.partner_id,
    accountId: partner.id,
    caller: { ...caller, account },
    masqueraded: false,
  };
}

/**
 * Ties the token to the user it just created, in the same transaction (as tieSessionKey does for
 * an account): a token tied meanwhile fails the whole call, so the user is not created either.
 */
export async function tieTokenToUser(tx: Tx, scope: Scope, userId: string): Promise<void> {
  const tied = await tieSessionKeyToUser(tx, scope.caller.apiKey, {
    partnerAccountId: scope.accountId,
    userId,
  });
  if (!tied) throw identityErrors.tokenAlreadyTied();
}
