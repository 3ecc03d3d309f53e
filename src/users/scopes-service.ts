import type { Queryable, Tx } from '../platform/db/pool.ts';
import type { UsersDeps } from './deps.ts';
import { hasActivePaymentMethod } from './payment-methods-store.ts';
import { readyForReview, type ScopeName, type UserFacts } from './scope-rules.ts';
import { findUser, listScopes, recordScopeTransition, type ScopeRow, type UserRow } from './users-store.ts';

/**
 * For other modules (card limits): does this partner's user exist, and which of its scopes are
 * APPROVED? undefined for an unknown user or another partner's, alike.
 */
export async function approvedScopesOf(
  q: Queryable,
  partnerId: string,
  userId: string,
): Promise<ScopeName[] | undefined> {
  if (!(await findUser(q, partnerId, userId))) return undefined;
  const scopes = await listScopes(q, partnerId, userId);
  return scopes.filter((row) => row.status === 'APPROVED').map((row) => row.scope);
}

export async function factsOf(q: Queryable, user: UserRow): Promise<UserFacts> {
  return {
    fields: user.fields,
    onboarding: user.onboarding_status,
    hasActivePaymentMethod: await hasActivePaymentMethod(q, user.partner_id, user.id),
  };
}

/**
 * Moves every OPEN scope whose requirements are all met to PENDING and, when the sandbox
 * auto-approves (docs/contract.md, decision 8), on to APPROVED; each step leaves a history row with `cause`.
 * TRANSFER is handled first because ACH and DEBIT_CARD_L2 are only approved on top of it.
 * The caller holds the user's row lock and its transaction.
 */
export async function advanceScopes(
  ctx: UsersDeps,
  tx: Tx,
  user: UserRow,
  cause: string,
  extraScopes: ScopeName[] = [],
): Promise<ScopeRow[]> {
  const nowMs = ctx.clock.nowMs();
  const base = { partnerId: user.partner_id, userId: user.id, nowMs };
  const scopes = await listScopes(tx, user.partner_id, user.id);
  for (const scope of extraScopes) {
    if (scopes.some((row) => row.scope === scope)) continue;
    await recordScopeTransition(tx, { ...base, scope, from: null, to: 'OPEN', cause });
    scopes.push({ scope, status: 'OPEN', submitted_at: null });
  }
  const facts = await factsOf(tx, user);
  const order: ScopeName[] = ['TRANSFER', 'DEBIT_CARD_L2', 'ACH'];
  scopes.sort((a, b) => order.indexOf(a.scope) - order.indexOf(b.scope));
  for (const row of scopes) {
    if (row.status !== 'OPEN' || !readyForReview(row.scope, facts)) continue;
    await recordScopeTransition(tx, { ...base, scope: row.scope, from: 'OPEN', to: 'PENDING', cause });
    row.status = 'PENDING';
    row.submitted_at = new Date(nowMs);
    const transferApproved = scopes.some((s) => s.scope === 'TRANSFER' && s.status === 'APPROVED');
    const needsTransfer = row.scope !== 'TRANSFER' && scopes.some((s) => s.scope === 'TRANSFER');
    if (ctx.config.sandboxAutoApprove && (!needsTransfer || transferApproved)) {
      await recordScopeTransition(tx, {
        ...base,
        scope: row.scope,
        from: 'PENDING',
        to: 'APPROVED',
        cause: 'sandbox.autoApprove',
      });
      row.status = 'APPROVED';
    }
  }
  return scopes;
}
