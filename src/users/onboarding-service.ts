import type { Scope } from '../identity/index.ts';
import { type Tx, withTransaction } from '../platform/db/pool.ts';
import { ApiError } from '../platform/errors.ts';
import { actingUser } from './access.ts';
import type { UsersDeps } from './deps.ts';
import { checkUploadableField, DOC_TYPES_BY_FIELD, storeUserDocument } from './documents-service.ts';
import { userErrors } from './errors.ts';
import { FIELD_IDS, type FieldId } from './fields.ts';
import { ONBOARDING_LINK_TTL_MS, signOnboardingToken, verifyOnboardingToken } from './onboarding-link.ts';
import {
  type OnboardingStatus,
  openFields,
  REQUIREMENTS,
  type ScopeName,
  type ScopeStatus,
  type UserFacts,
} from './scope-rules.ts';
import { advanceScopes, factsOf } from './scopes-service.ts';
import { applyFields } from './users-service.ts';
import { findUser, listScopes, type ScopeRow, saveUserFields, setOnboardingStatus } from './users-store.ts';

export interface OnboardingLink {
  userId: string;
  verificationLinkUrl: string;
  status: OnboardingStatus;
  expiresAt: number;
}

/** GET /v3/users/{id}/onboarding: a signed link to Rampart's hosted page, valid for an hour. */
export async function onboardingLink(ctx: UsersDeps, scope: Scope, userId: string): Promise<OnboardingLink> {
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

/**
 * Where the user stands, for the page to say: `needsInput` while any field a scope needs is OPEN,
 * the identity check is not done or a payment method is missing; `underReview` once everything
 * is in but a scope still waits for its review; `complete` only when every scope is APPROVED.
 */
export type OnboardingProgress = 'closed' | 'needsInput' | 'underReview' | 'complete';

export interface ScopeNeeds {
  scope: ScopeName;
  status: ScopeStatus;
  /** The scope's fields still OPEN (never provided, or returned by the operator with an error). */
  openFields: FieldId[];
  identityCheckNeeded: boolean;
  paymentMethodNeeded: boolean;
}

export interface OnboardingPageModel {
  userId: string;
  firstName: string | null;
  onboarding: OnboardingStatus;
  progress: OnboardingProgress;
  sandbox: boolean;
  /** Every field the user's scopes need, with its status, for the page to list. */
  requirements: { fieldId: FieldId; status: 'OPEN' | 'SUBMITTED'; error: string | null }[];
  /** What each scope still needs. */
  scopes: ScopeNeeds[];
  /** The identity documents the page takes, each with the document types it accepts. */
  documents: {
    fieldId: FieldId;
    docTypes: readonly string[];
    status: 'OPEN' | 'SUBMITTED';
    error: string | null;
  }[];
}

async function userFromToken(ctx: UsersDeps, token: string) {
  const check = verifyOnboardingToken(ctx.config.masterKey, token, ctx.clock.nowMs());
  if (!check.ok)
    throw check.reason === 'expired' ? onboardingErrors.expiredLink() : onboardingErrors.invalidLink();
  return check.claims;
}

function scopeNeeds(row: ScopeRow, facts: UserFacts): ScopeNeeds {
  const needs = REQUIREMENTS[row.scope];
  const open = openFields(row.scope, facts);
  return {
    scope: row.scope,
    status: row.status,
    // In the order the page lists fields in.
    openFields: FIELD_IDS.filter((id) => open.includes(id)),
    identityCheckNeeded: needs.onboarding && facts.onboarding === 'OPEN',
    paymentMethodNeeded: needs.paymentMethod && !facts.hasActivePaymentMethod,
  };
}

function progressOf(scopes: ScopeNeeds[], onboarding: OnboardingStatus): OnboardingProgress {
  if (scopes.some((s) => s.status === 'CLOSED')) return 'closed';
  const missing = scopes.some(
    (s) => s.openFields.length > 0 || (s.status !== 'APPROVED' && s.paymentMethodNeeded),
  );
  // The page is where the identity check is made: not done yet is something still needed.
  if (missing || onboarding === 'OPEN') return 'needsInput';
  return scopes.every((s) => s.status === 'APPROVED') ? 'complete' : 'underReview';
}

export async function onboardingPage(ctx: UsersDeps, token: string): Promise<OnboardingPageModel> {
  const claims = await userFromToken(ctx, token);
  const user = await findUser(ctx.db, claims.partnerId, claims.userId);
  if (!user) throw onboardingErrors.invalidLink();
  const [rows, facts] = await Promise.all([
    listScopes(ctx.db, user.partner_id, user.id),
    factsOf(ctx.db, user),
  ]);
  const scopes = rows.map((row) => scopeNeeds(row, facts));
  const needed = new Set<FieldId>(rows.flatMap((row) => REQUIREMENTS[row.scope].fields));
  const firstName = user.fields.firstName?.value;
  return {
    userId: user.id,
    firstName: typeof firstName === 'string' ? firstName : null,
    onboarding: user.onboarding_status,
    progress: progressOf(scopes, user.onboarding_status),
    sandbox: ctx.identityCheck.simulated,
    requirements: FIELD_IDS.filter((id) => needed.has(id)).map((fieldId) => ({
      fieldId,
      status: user.fields[fieldId]?.status ?? 'OPEN',
      error: user.fields[fieldId]?.error ?? null,
    })),
    scopes,
    documents: FIELD_IDS.filter((id) => Object.hasOwn(DOC_TYPES_BY_FIELD, id)).map((fieldId) => ({
      fieldId,
      docTypes: DOC_TYPES_BY_FIELD[fieldId]!,
      status: user.fields[fieldId]?.status ?? 'OPEN',
      error: user.fields[fieldId]?.error ?? null,
    })),
  };
}

/**
 * The hosted page's submit, as the wired identity check answers it: COMPLETE at once (the
 * sandbox's simulated check), or SUBMITTED for the operator, whose approval of the scope
 * completes it. Either way the scopes that were waiting for it move on, in one transaction.
 */
export async function submitOnboarding(ctx: UsersDeps, token: string): Promise<OnboardingStatus> {
  const claims = await userFromToken(ctx, token);
  return withTransaction(ctx.db, async (tx) => {
    const user = await findUser(tx, claims.partnerId, claims.userId, true);
    if (!user) throw onboardingErrors.invalidLink();
    const scopes = await listScopes(tx, user.partner_id, user.id);
    if (scopes.some((row) => row.status === 'CLOSED')) throw userErrors.userClosed();
    if (user.onboarding_status === 'COMPLETE') return 'COMPLETE';
    const next: OnboardingStatus = ctx.identityCheck.onSubmission();
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

/** The link's user, locked for update, refused when unknown (as an invalid link) or closed. */
async function lockedLinkUser(tx: Tx, claims: { partnerId: string; userId: string }) {
  const user = await findUser(tx, claims.partnerId, claims.userId, true);
  if (!user) throw onboardingErrors.invalidLink();
  return user;
}

/**
 * The hosted page's details form: the fields the user still has OPEN, checked exactly as
 * POST /v3/users/{id} checks them (users-service applyFields: same validators, same locks), all
 * or nothing, and the scopes moved on as that call moves them.
 */
export async function submitOnboardingFields(
  ctx: UsersDeps,
  token: string,
  inputs: Record<string, unknown>,
): Promise<void> {
  const claims = await userFromToken(ctx, token);
  await withTransaction(ctx.db, async (tx) => {
    const user = await lockedLinkUser(tx, claims);
    const scopes = await listScopes(tx, user.partner_id, user.id);
    if (scopes.some((row) => row.status === 'CLOSED')) throw userErrors.userClosed();
    const nowMs = ctx.clock.nowMs();
    const fields = applyFields(user.fields, inputs, scopes, nowMs);
    await saveUserFields(tx, user.partner_id, user.id, fields, nowMs);
    await advanceScopes(ctx, tx, { ...user, fields }, 'user.updated');
  });
}

/** The hosted page's document upload: the checks and write of POST /v3/users/{id}/{fieldId}. */
export async function uploadOnboardingDocument(
  ctx: UsersDeps,
  token: string,
  input: { fieldId: string; docType: string; contentType: string | undefined; body: unknown },
): Promise<void> {
  checkUploadableField(input.fieldId);
  const claims = await userFromToken(ctx, token);
  await storeUserDocument(ctx, (tx) => lockedLinkUser(tx, claims), input);
}
