import type { Scope } from '../identity/types.ts';
import type { AppContext } from '../platform/context.ts';
import { withTransaction } from '../platform/db/pool.ts';
import { ApiError } from '../platform/errors.ts';
import { actingUser } from './access.ts';
import { userErrors } from './errors.ts';
import { FIELD_IDS, type FieldId } from './fields.ts';
import { ONBOARDING_LINK_TTL_MS, signOnboardingToken, verifyOnboardingToken } from './onboarding-link.ts';
import { type OnboardingStatus, REQUIREMENTS, type ScopeName, type ScopeStatus } from './scope-rules.ts';
import { advanceScopes } from './scopes-service.ts';
import { findUser, listScopes, setOnboardingStatus } from './users-store.ts';

export interface OnboardingLink {
  userId: string;
  verificationLinkUrl: string;
  status: OnboardingStatus;
  expiresAt: number;
}

/** GET /v3/users/{id}/onboarding: a signed link to Rampart's hosted page, valid for an hour. */
export async function onboardingLink(ctx: AppContext, scope: Scope, userId: string): Promise<OnboardingLink> {
  const user = await actingUser(ctx.db, scope, userId);
  const expiresAtMs = ctx.clock.nowMs() + ONBOARDING_LINK_TTL_MS;
  const token = signOnboardingToken(ctx.config.masterKey, {
    userId,
    partnerId: user.partner_id,
    expiresAtMs,
  });
  const base = ctx.config.publicUrls[0] ?? '';
  return {
    userId,
    verificationLinkUrl: `${base}/onboarding/${token}`,
    status: user.onboarding_status,
    expiresAt: expiresAtMs,
  };
}

export const onboardingErrors = {
  invalidLink: () =>
    new ApiError('NotFoundException', 'onboarding.invalidLink', 'This onboarding link is not valid.'),
  expiredLink: () =>
    new ApiError(
      'ValidationException',
      'onboarding.linkExpired',
      'This onboarding link has expired; ask for a new one.',
      {
        status: 410,
      },
    ),
};

export interface OnboardingPageModel {
  userId: string;
  firstName: string | null;
  onboarding: OnboardingStatus;
  closed: boolean;
  sandbox: boolean;
  /** What the user's scopes still need, field by field, for the page to list. */
  requirements: { fieldId: FieldId; status: 'OPEN' | 'SUBMITTED'; error: string | null }[];
  scopes: { scope: ScopeName; status: ScopeStatus }[];
}

async function userFromToken(ctx: AppContext, token: string) {
  const check = verifyOnboardingToken(ctx.config.masterKey, token, ctx.clock.nowMs());
  if (!check.ok)
    throw check.reason === 'expired' ? onboardingErrors.expiredLink() : onboardingErrors.invalidLink();
  return check.claims;
}

export async function onboardingPage(ctx: AppContext, token: string): Promise<OnboardingPageModel> {
  const claims = await userFromToken(ctx, token);
  const user = await findUser(ctx.db, claims.partnerId, claims.userId);
  if (!user) throw onboardingErrors.invalidLink();
  const scopes = await listScopes(ctx.db, user.partner_id, user.id);
  const needed = new Set<FieldId>(scopes.flatMap((row) => REQUIREMENTS[row.scope].fields));
  const firstName = user.fields.firstName?.value;
  return {
    userId: user.id,
    firstName: typeof firstName === 'string' ? firstName : null,
    onboarding: user.onboarding_status,
    closed: scopes.some((row) => row.status === 'CLOSED'),
    sandbox: ctx.config.env === 'sandbox',
    requirements: FIELD_IDS.filter((id) => needed.has(id)).map((fieldId) => ({
      fieldId,
      status: user.fields[fieldId]?.status ?? 'OPEN',
      error: user.fields[fieldId]?.error ?? null,
    })),
    scopes: scopes.map((row) => ({ scope: row.scope, status: row.status })),
  };
}

/**
 * The hosted page's submit. Sandbox simulates a passed identity check: onboarding is COMPLETE
 * at once. Production records the submission (SUBMITTED) for the operator, whose approval of the
 * scope completes it. Either way the scopes that were waiting for it move on, in one transaction.
 */
export async function submitOnboarding(ctx: AppContext, token: string): Promise<OnboardingStatus> {
  const claims = await userFromToken(ctx, token);
  return withTransaction(ctx.db, async (tx) => {
    const user = await findUser(tx, claims.partnerId, claims.userId, true);
    if (!user) throw onboardingErrors.invalidLink();
    const scopes = await listScopes(tx, user.partner_id, user.id);
    if (scopes.some((row) => row.status === 'CLOSED')) throw userErrors.userClosed();
    if (user.onboarding_status === 'COMPLETE') return 'COMPLETE';
    const next: OnboardingStatus = ctx.config.env === 'sandbox' ? 'COMPLETE' : 'SUBMITTED';
    const nowMs = ctx.clock.nowMs();
    await setOnboardingStatus(tx, user.partner_id, user.id, next, nowMs);
    const updated = { ...user, onboarding_status: next };
    await advanceScopes(
      ctx,
      tx,
      updated,
      next === 'COMPLETE' ? 'onboarding.sandboxCheckPassed' : 'onboarding.submitted',
    );
    return next;
  });
}
